#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: fabric_facts
short_description: Read the host's InfiniBand and RoCE devices and say which ports NCCL can use
version_added: "0.2.0"
description:
  - Reads every RDMA device under C(/sys/class/infiniband) (HCA type, firmware, NUMA node, netdevs) and each port's
    state, physical state, rate, link layer and GIDs, and returns them with a summary - C(none), C(infiniband),
    C(roce) or C(mixed), the usable ports as C(<device>:<port>) (what C(NCCL_IB_HCA) takes), their rate and, for RoCE,
    the GID index of a RoCE v2 GID (C(NCCL_IB_GID_INDEX)).
  - A port is usable when it is C(ACTIVE) and C(LinkUp); an Ethernet (RoCE) port also needs a RoCE v2 GID, which the
    kernel creates from an IP address on its netdev. Every other port is listed with the reason.
  - Where C(ibv_devinfo) is installed (rdma-core's ibverbs-utils), its device list is compared with sysfs; a device
    the verbs library does not see (a missing provider such as C(libmlx5-1)) is reported in RV(fabric.problems).
  - Changes nothing; safe in check mode. The preflight role publishes the result as the fact C(gpucluster_fabric).
author: gpucluster.horovod contributors (@gpucluster)
options:
  root:
    description:
      - The directory sysfs is read under (C(<root>/sys/class/infiniband)). C(/) on a real host; a fixture tree in
        tests, so that a node without HCAs runs the whole fabric path.
    type: path
    default: /
  ibv_devinfo:
    description: Compare with C(ibv_devinfo -l) when it is installed (and O(root) is C(/)).
    type: bool
    default: true
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
  - The reader and the rules are in C(plugins/module_utils/_fabric.py), tested on fixture trees.
"""

EXAMPLES = r"""
- name: Read the fabric
  gpucluster.horovod.fabric_facts:
  register: fabric

- name: Show what NCCL can use
  ansible.builtin.debug:
    msg: "{{ fabric.fabric.kind }}: {{ fabric.fabric.ports | join(',') }}"
"""

RETURN = r"""
fabric:
  description: The RDMA devices and what NCCL can use.
  returned: always
  type: dict
  contains:
    kind:
      description: C(none), C(infiniband), C(roce) or C(mixed) (InfiniBand and RoCE ports both up).
      type: str
    ports:
      description: The usable ports, C(<device>:<port>) (for example C(mlx5_0:1)).
      type: list
      elements: str
    port_count:
      description: Number of usable ports.
      type: int
    rate_gbps:
      description: The lowest rate of the usable ports in Gbit/s (the link limit), or null.
      type: float
    rates_gbps:
      description: The rate of each usable port.
      type: list
      elements: float
    gid_index:
      description: The RoCE v2 GID index shared by every usable RoCE port, or null.
      type: int
    gid_indexes:
      description: The RoCE v2 GID index of each usable RoCE port (more than one means they disagree).
      type: list
      elements: int
    unusable:
      description: The other ports, each with C(port) and C(reason).
      type: list
      elements: dict
    devices:
      description: Every device with C(name), C(hca_type), C(fw_ver), C(board_id), C(numa_node), C(netdevs), C(ports).
      type: list
      elements: dict
    verbs_devices:
      description: The devices C(ibv_devinfo -l) lists, or null when it was not run.
      type: list
      elements: str
    problems:
      description: Disagreements between sysfs and the verbs library.
      type: list
      elements: str
    root:
      description: The root sysfs was read under.
      type: str
    ofed:
      description: Whether MLNX_OFED or DOCA-OFED is installed (C(ofed_info) found).
      type: bool
    peermem_module:
      description: Whether the nvidia-peermem module exists for the running kernel (C(modinfo nvidia-peermem)).
      type: bool
  sample:
    kind: infiniband
    ports: [mlx5_0:1, mlx5_1:1]
    port_count: 2
    rate_gbps: 200.0
    rates_gbps: [200.0, 200.0]
    gid_index: null
    gid_indexes: []
    unusable: []
    devices: []
    verbs_devices: [mlx5_0, mlx5_1]
    problems: []
    root: /
    ofed: false
    peermem_module: false
"""


from ansible.module_utils.basic import AnsibleModule  # noqa: E402 - Ansible modules keep their docs first

from ansible_collections.gpucluster.horovod.plugins.module_utils import _fabric as fabric  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec={"root": {"type": "path", "default": "/"}, "ibv_devinfo": {"type": "bool", "default": True}},
        supports_check_mode=True,
    )
    root = module.params["root"]
    devices = fabric.read_tree(root)
    result = fabric.summarize(devices)
    result.update(devices=devices, verbs_devices=None, problems=[], root=root)
    tool = module.get_bin_path("ibv_devinfo") if module.params["ibv_devinfo"] and root == "/" else None
    if tool:
        rc, out, err = module.run_command([tool, "-l"], environ_update={"LC_ALL": "C"})
        if rc == 0:
            result["verbs_devices"] = fabric.parse_ibv_devinfo_list(out)
            missing = sorted({d["name"] for d in devices} - set(result["verbs_devices"]))
            if missing:
                result["problems"].append(
                    f"{', '.join(missing)} in sysfs but not seen by the verbs library (ibv_devinfo): its provider "
                    "(for example libmlx5-1 of rdma-core) is missing"
                )
        else:
            result["problems"].append(f"ibv_devinfo -l failed: {(err or out).strip().splitlines()[:1]}")
    # What the GPUDirect RDMA decision needs besides the GPU: the legacy nvidia-peermem module for the running kernel,
    # and an OFED stack whose ib_core has the peer-memory API it registers with (the inbox stack has none).
    result["ofed"] = bool(module.get_bin_path("ofed_info")) if root == "/" else False
    result["peermem_module"] = False
    modinfo = module.get_bin_path("modinfo") if root == "/" else None
    if modinfo:
        rc, _out, _err = module.run_command([modinfo, "-F", "filename", "nvidia-peermem"])
        result["peermem_module"] = rc == 0
    module.exit_json(changed=False, fabric=result)


if __name__ == "__main__":
    main()
