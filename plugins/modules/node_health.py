#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: node_health
short_description: Judge the health of a GPU node (XIDs, ECC, row remapping, PCIe link, slowdown, NVLink)
version_added: "0.1.0"
description:
  - Reads C(nvidia-smi -q -x) (XML), the kernel log since boot (C(journalctl -k -b), else C(dmesg)),
    C(nvidia-smi nvlink -s) and, on hosts with NVSwitches, whether Fabric Manager runs, and returns a list of checks,
    each with its status C(ok), C(warn) or C(fail), the value found, the value expected and the reason.
  - "Checks: the driver answers; the number of GPUs against O(expected_gpus); hardware-class XIDs since boot (for
    example 48, 79, 94, 95: C(fail); 63 and 92: C(warn); application XIDs such as 13, 31, 43 as information);
    volatile uncorrectable ECC errors; retired pages and row remapping (pending or failed); the PCIe link width
    against its maximum (a lower generation alone is an idle GPU); hardware and thermal clock slowdown; persistence
    mode; NVLink links down; a GPU that has not joined the NVLink fabric; Fabric Manager where NVSwitches exist;
    with O(dcgm_diag), NVIDIA DCGM's diagnostic (C(dcgmi diag -r <level> -j), read as JSON: a failed test C(fail),
    a warning or a test that did not run C(warn))."
  - Changes nothing; safe in check mode. On a host with no NVIDIA GPU and no O(expected_gpus) it returns no checks.
author: gpucluster.horovod contributors (@gpucluster)
options:
  expected_gpus:
    description:
      - GPUs the host should have. Fewer visible to the driver fails C(gpu_count). Unset, the count is reported only.
    type: int
  nvswitches:
    description:
      - NVSwitches of the host; more than zero means Fabric Manager must run. Unset, they are counted with
        C(lspci -nn) when it is installed.
    type: int
  kernel_log:
    description:
      - Read the kernel log for XIDs. C(false) leaves the XID check out; a log that cannot be read makes it a warning.
    type: bool
    default: true
  nvidia_smi:
    description: The nvidia-smi to run (a name on the PATH or a path).
    type: str
    default: nvidia-smi
  fabric_manager_service:
    description: The systemd unit of Fabric Manager.
    type: str
    default: nvidia-fabricmanager
  dcgm_diag:
    description:
      - Run DCGM's diagnostic at this level (C(dcgmi diag -r <level> -j)) and judge its results; C(0) does not run
        it. Level 1 takes seconds (deployment and software checks); 2 about two minutes; 3 and 4 run stress tests for
        tens of minutes and occupy the GPUs.
      - Where C(dcgmi) is not installed the check is a warning saying so. DCGM's host engine (C(nv-hostengine)) must
        run, or dcgmi starts an embedded one.
    type: int
    choices: [0, 1, 2, 3, 4]
    default: 0
  dcgmi:
    description: The dcgmi to run (a name on the PATH or a path).
    type: str
    default: dcgmi
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - The parsers and the rules are in C(plugins/module_utils/_node_health.py), tested on fixtures.
"""

EXAMPLES = r"""
- name: Judge the health of the GPU nodes
  gpucluster.horovod.node_health:
    expected_gpus: 8
  register: health

- name: Stop on a node that failed a check
  ansible.builtin.assert:
    that: health.status != 'fail'
    fail_msg: "{{ health.checks | selectattr('status', 'eq', 'fail') | map(attribute='reason') | list }}"
"""

RETURN = r"""
status:
  description: The worst status of the checks (C(ok), C(warn) or C(fail)).
  returned: always
  type: str
  sample: fail
checks:
  description:
    - One dict per check with C(name), C(status), C(value), C(expected), C(reason), and C(gpu) (the PCI bus id, or
      the nvidia-smi index for NVLink) where the check is about one GPU.
  returned: always
  type: list
  elements: dict
  sample:
    - {name: xid_hardware, status: fail, value: ["XID 79 on 0000:3b:00 (GPU has fallen off the bus)"], expected: [],
       reason: "hardware-class XIDs since boot: XID 79 on 0000:3b:00 (GPU has fallen off the bus)"}
xids:
  description: The XID lines of the kernel log since boot, parsed (C(pci), C(xid), C(class), C(meaning), C(detail)).
  returned: always
  type: list
  elements: dict
gpus:
  description: What nvidia-smi -q -x said of each GPU that the checks read (empty when it did not answer).
  returned: always
  type: list
  elements: dict
driver_version:
  description: The driver nvidia-smi reported, or null.
  returned: always
  type: str
dcgm_diag:
  description:
    - DCGM's results when O(dcgm_diag) asked for them (C(results) - C(category), C(test), C(gpu), C(status) one of
      C(pass), C(fail), C(warn), C(skip), C(not run), C(raw), C(reasons) - C(version), C(error)); null otherwise.
  returned: always
  type: dict
sources:
  description: Which sources were read (C(nvidia_smi), C(kernel_log), C(nvlink), C(lspci), C(fabric_manager), C(dcgmi)).
  returned: always
  type: dict
"""


from ansible.module_utils.basic import AnsibleModule  # noqa: E402 - Ansible modules keep their docs first

from ansible_collections.gpucluster.horovod.plugins.module_utils import _gpu_facts as gpu_parse  # noqa: E402
from ansible_collections.gpucluster.horovod.plugins.module_utils import _node_health as health  # noqa: E402


def _run(module, argv):
    return module.run_command(argv, environ_update={"LC_ALL": "C"})


def _kernel_log(module):
    """The kernel log since boot: journald's, else the ring buffer. (text, read)"""
    journalctl = module.get_bin_path("journalctl")
    if journalctl:
        rc, out, _err = _run(module, [journalctl, "-k", "-b", "--no-pager", "-o", "short-monotonic"])
        # a journal without kernel messages (no journald in a container or VM, volatile storage) still prints
        # "-- No entries --" (and journalctl's boot markers start with "-- " too): then the ring buffer has them
        if rc == 0 and any(line.strip() and not line.startswith("-- ") for line in out.splitlines()):
            return out, True
    dmesg = module.get_bin_path("dmesg")
    if dmesg:
        rc, out, _err = _run(module, [dmesg])
        if rc == 0:
            return out, True
    return "", False


def _dcgm_diag(module, level, dcgmi, sources):
    """DCGM's diagnostic at ``level`` (parsed), ``{"missing": True}`` without dcgmi, None when not asked for. dcgmi
    exits non-zero when a test fails and still prints the document, so the exit status is not the verdict."""
    if not level:
        return None
    path = module.get_bin_path(dcgmi) if "/" not in dcgmi else dcgmi
    if not path:
        return {"missing": True}
    rc, out, err = _run(module, [path, "diag", "-r", str(level), "-j"])
    sources["dcgmi"] = True
    parsed = health.parse_dcgm_diag(out)
    if not parsed["results"] and rc != 0:
        first = next((line.strip() for line in (err + "\n" + out).splitlines() if line.strip()), "")
        parsed["error"] = parsed.get("error") or first or f"dcgmi diag exited with {rc}"
        if first and first not in parsed["error"]:
            parsed["error"] = f"{parsed['error']} ({first})"
    return parsed


def _nvswitch_count(module):
    lspci = module.get_bin_path("lspci")
    if not lspci:
        return 0, False
    rc, out, _err = _run(module, [lspci, "-nn"])
    if rc != 0:
        return 0, False
    return len(gpu_parse.parse_lspci_nvswitches(out)), True


def main():
    module = AnsibleModule(
        argument_spec={
            "expected_gpus": {"type": "int"},
            "nvswitches": {"type": "int"},
            "kernel_log": {"type": "bool", "default": True},
            "nvidia_smi": {"type": "str", "default": "nvidia-smi"},
            "fabric_manager_service": {"type": "str", "default": "nvidia-fabricmanager"},
            "dcgm_diag": {"type": "int", "default": 0, "choices": [0, 1, 2, 3, 4]},
            "dcgmi": {"type": "str", "default": "dcgmi"},
        },
        supports_check_mode=True,
    )
    p = module.params
    sources = {
        "nvidia_smi": False,
        "kernel_log": False,
        "nvlink": False,
        "lspci": False,
        "fabric_manager": False,
        "dcgmi": False,
    }
    smi_bin = module.get_bin_path(p["nvidia_smi"]) if "/" not in p["nvidia_smi"] else p["nvidia_smi"]
    smi, smi_error, nvlink = None, None, None
    if smi_bin:
        rc, out, err = _run(module, [smi_bin, "-q", "-x"])
        if rc == 0:
            try:
                smi = health.parse_smi_xml(out)
                sources["nvidia_smi"] = True
            except ValueError as exc:
                smi_error = str(exc)
        else:
            smi_error = gpu_parse.parse_smi_error(out + "\n" + err)["error"] or f"nvidia-smi -q -x exited with {rc}"
        if smi is not None:
            rc, out, _err = _run(module, [smi_bin, "nvlink", "-s"])
            if rc == 0:
                nvlink = health.parse_nvlink_status(out)
                sources["nvlink"] = True
    else:
        smi_error = f"{p['nvidia_smi']} is not installed"

    nvswitches = p["nvswitches"]
    if nvswitches is None:
        nvswitches, sources["lspci"] = _nvswitch_count(module)
    if smi is None and not p["expected_gpus"] and not nvswitches and not smi_bin:
        # Not a GPU node: nothing to judge.
        module.exit_json(
            changed=False,
            status="ok",
            checks=[],
            xids=[],
            gpus=[],
            driver_version=None,
            dcgm_diag=None,
            sources=sources,
        )

    fabric_manager_active = None
    if nvswitches:
        systemctl = module.get_bin_path("systemctl")
        if systemctl:
            rc, _out, _err = _run(module, [systemctl, "is-active", "--quiet", p["fabric_manager_service"]])
            fabric_manager_active = rc == 0
            sources["fabric_manager"] = True

    xids = []
    if p["kernel_log"]:
        text, sources["kernel_log"] = _kernel_log(module)
        xids = health.parse_xids(text)
    dcgm = _dcgm_diag(module, p["dcgm_diag"], p["dcgmi"], sources)
    checks = health.evaluate(
        smi,
        smi_error=smi_error,
        xids=xids,
        nvlink=nvlink,
        expected_gpus=p["expected_gpus"],
        nvswitches=nvswitches or 0,
        fabric_manager_active=fabric_manager_active,
        kernel_log_read=sources["kernel_log"] if p["kernel_log"] else None,
        dcgm_diag=dcgm,
        dcgm_level=p["dcgm_diag"],
    )
    module.exit_json(
        changed=False,
        status=health.summary(checks),
        checks=checks,
        xids=[{k: v for k, v in x.items() if k != "line"} for x in xids],
        gpus=(smi or {}).get("gpus", []),
        driver_version=(smi or {}).get("driver_version"),
        dcgm_diag=dcgm if dcgm and not dcgm.get("missing") else None,
        sources=sources,
    )


if __name__ == "__main__":
    main()
