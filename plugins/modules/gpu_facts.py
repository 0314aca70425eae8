#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_facts
short_description: Gather NVIDIA GPU facts (models, PCI ids, compute capability, driver, nouveau, Secure Boot)
version_added: "0.1.0"
description:
  - Reads C(lspci -nn) and, when present, C(nvidia-smi --query-gpu), C(/proc/driver/nvidia/version),
    C(/proc/modules) and C(mokutil --sb-state). Missing tools are skipped, not errors.
  - On a host without NVIDIA GPUs it returns an empty C(gpus) list and does not fail.
  - Changes nothing; safe in check mode.
author: gpucluster.horovod contributors (@gpucluster)
options: {}
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
  - gpucluster.horovod.facts
notes:
  - The preflight role feeds the result to the P(gpucluster.horovod.stack_facts#module) action.
"""

EXAMPLES = r"""
- name: Gather GPU facts
  gpucluster.horovod.gpu_facts:

- name: Show the GPU models of this host
  ansible.builtin.debug:
    msg: "{{ ansible_facts['gpucluster_gpu'].gpus | map(attribute='name') | list }}"
"""

RETURN = r"""
ansible_facts:
  description: Facts under the key C(gpucluster_gpu).
  returned: always
  type: dict
  contains:
    gpucluster_gpu:
      description: GPU facts of the host.
      type: dict
      contains:
        gpus:
          description:
            - One dict per GPU with C(index), C(name), C(pci_id) (for example C(10de:2330)), C(pci_slot) or
              C(pci_bus_id), C(uuid), C(memory_mib), C(compute_cap) (null without nvidia-smi or on drivers older than
              R510), C(driver_version) and C(source) (C(nvidia-smi) or C(lspci)).
          type: list
          elements: dict
        gpu_count:
          description: Number of GPUs.
          type: int
        models:
          description: Distinct GPU names.
          type: list
          elements: str
        driver_version:
          description: Loaded driver version, or null when no NVIDIA driver is loaded.
          type: str
        cuda_driver_version:
          description: Newest CUDA the loaded driver supports (nvidia-smi's "CUDA Version"), or null.
          type: str
        kernel_module:
          description: C(open), C(proprietary) or null when no NVIDIA module is loaded.
          type: str
        nvml_error:
          description:
            - The first line nvidia-smi printed when it failed (NVML's C(Driver/library version mismatch) line, for
              example), or null when it ran or is absent.
          type: str
        driver_mismatch:
          description:
            - Whether nvidia-smi failed because the loaded kernel module and the installed userspace differ (a driver
              upgraded without a reload or reboot). The nvidia_driver role then brings them in step.
          type: bool
        nvml_library_version:
          description: The userspace (NVML library) version nvidia-smi names with a mismatch, or null.
          type: str
        nouveau_loaded:
          description: Whether the nouveau module is loaded (it must be blacklisted before installing the driver).
          type: bool
        secure_boot:
          description: True or false from mokutil, null when mokutil is absent or the system has no EFI.
          type: bool
        nvswitches:
          description:
            - NVSwitch devices (PCI class 0680, vendor 10de) from lspci, each with C(pci_slot), C(pci_id) and C(name).
              A host with NVSwitches needs Fabric Manager of the driver's version.
          type: list
          elements: dict
        nvswitch_count:
          description: Number of NVSwitch devices.
          type: int
        tools:
          description: Which of lspci, nvidia-smi and mokutil were found.
          type: dict
  sample:
    gpucluster_gpu:
      gpus: []
      gpu_count: 0
      models: []
      driver_version: null
      cuda_driver_version: null
      kernel_module: null
      nvml_error: null
      driver_mismatch: false
      nvml_library_version: null
      nouveau_loaded: false
      secure_boot: null
      nvswitches: []
      nvswitch_count: 0
      tools: {lspci: false, nvidia-smi: false, mokutil: false}
"""


from ansible.module_utils.basic import AnsibleModule  # noqa: E402 - Ansible modules keep their docs first

from ansible_collections.gpucluster.horovod.plugins.module_utils import _gpu_facts as parse  # noqa: E402


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _run(module, argv):
    rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"})
    return rc, out, err


def main():
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    tools = {name: module.get_bin_path(name) for name in ("lspci", "nvidia-smi", "mokutil")}
    lspci, nvswitches = [], []
    if tools["lspci"]:
        rc, out, _err = _run(module, [tools["lspci"], "-nn"])
        lspci = parse.parse_lspci(out) if rc == 0 else []
        nvswitches = parse.parse_lspci_nvswitches(out) if rc == 0 else []
    smi, cuda = [], None
    smi_error = parse.parse_smi_error("")
    if tools["nvidia-smi"]:
        query = ",".join(parse.SMI_FIELDS)
        rc, out, err = _run(module, [tools["nvidia-smi"], "--query-gpu=" + query, "--format=csv,noheader,nounits"])
        fields = parse.SMI_FIELDS
        if rc != 0 and parse.smi_query_failed(out + err):
            fields = [f for f in parse.SMI_FIELDS if f != "compute_cap"]
            rc, out, err = _run(
                module, [tools["nvidia-smi"], "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"]
            )
        if rc == 0:
            smi = parse.parse_nvidia_smi_csv(out, fields)
            rc, out, _err = _run(module, [tools["nvidia-smi"]])
            cuda = parse.parse_smi_cuda_version(out) if rc == 0 else None
        else:
            smi_error = parse.parse_smi_error(out + "\n" + err)
    proc = parse.parse_proc_driver_version(_read("/proc/driver/nvidia/version"))
    modules = _read("/proc/modules")
    secure_boot = None
    if tools["mokutil"]:
        _rc, out, err = _run(module, [tools["mokutil"], "--sb-state"])
        secure_boot = parse.parse_mokutil_sb_state(out + err)
    gpus = parse.merge(lspci, smi)
    facts = {
        "gpus": gpus,
        "gpu_count": len(gpus),
        "models": sorted({g["name"] for g in gpus if g.get("name")}),
        "driver_version": proc["driver_version"] or next((g["driver_version"] for g in smi), None),
        "cuda_driver_version": cuda,
        "kernel_module": proc["kernel_module"],
        "nvml_error": smi_error["error"],
        "driver_mismatch": smi_error["mismatch"],
        "nvml_library_version": smi_error["library_version"],
        "nouveau_loaded": parse.module_loaded(modules, "nouveau"),
        "secure_boot": secure_boot,
        "nvswitches": nvswitches,
        "nvswitch_count": len(nvswitches),
        "tools": {name: bool(path) for name, path in tools.items()},
    }
    module.exit_json(changed=False, ansible_facts={"gpucluster_gpu": facts})


if __name__ == "__main__":
    main()
