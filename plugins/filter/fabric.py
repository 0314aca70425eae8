# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpucluster.horovod fabric filters: whether the nodes agree, the GPUDirect RDMA path, what NCCL used.

Documented in the matching <name>.yml files; the logic is in plugin_utils/fabric/.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_fabric = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.fabric")


def fabric_cluster_problems(per_host):
    """{host: fabric summary} -> the sentences naming the nodes that disagree ([] when they agree)."""
    if not isinstance(per_host, dict):
        raise AnsibleFilterError(f"fabric_cluster_problems: expects a dict of host -> fabric, got {type(per_host)}")
    return _fabric.cluster_problems(per_host)


def gpudirect_rdma(fabric, gpu=None, kernel_release="", nccl_version=None):
    """The node's GPUDirect RDMA path from its fabric facts and gpu_facts."""
    fabric, gpu = fabric or {}, gpu or {}
    return _fabric.gpudirect_rdma(
        fabric_kind=fabric.get("kind") or "none",
        has_gpu=bool(gpu.get("gpu_count")),
        kernel_module=gpu.get("kernel_module"),
        kernel_release=kernel_release,
        nccl_version=nccl_version,
        peermem_module=bool(fabric.get("peermem_module")),
        ofed=bool(fabric.get("ofed")),
    )


def fabric_link_rate(fabrics):
    """The nodes' gpucluster_fabric facts -> their lowest usable port rate in Gbit/s when every node has one."""
    if isinstance(fabrics, dict) or not isinstance(fabrics, (list, tuple)):
        raise AnsibleFilterError(f"fabric_link_rate: expects a list of the nodes' fabrics, got {type(fabrics)}")
    return _fabric.link_rate_gbps(list(fabrics))


def fabric_port_check(fabric):
    """The node-health check of the host's RDMA ports (ok, or warn naming the ports that are not usable)."""
    return _fabric.port_health_check(fabric or {})


def nccl_transports(text):
    """NCCL's INFO log (text, or its lines: stdout_lines + stderr_lines) -> the network and transports it used."""
    if isinstance(text, (list, tuple)):
        text = "\n".join(str(line) for line in text)
    return _fabric.nccl_transports(str(text or ""))


def fabric_use_problem(used, fabric_kind, nodes=2):
    """Why a multi-node run over a fabric must not count as valid ('' when it may)."""
    return _fabric.fabric_use_problem(str(fabric_kind or "none"), used or {}, nodes=int(nodes))


def nccl_conf(fabric, interconnect=None, settings=None):
    """The lines of /etc/nccl.conf as a dict (name -> value), from the node's fabric and interconnect facts."""
    problems = _fabric.settings_problems(settings or {})
    if problems:
        raise AnsibleFilterError("nccl_conf: " + "; ".join(problems))
    return _fabric.nccl_conf(fabric, interconnect, settings)


class FilterModule:
    """gpucluster.horovod fabric filters."""

    def filters(self):
        return {
            "fabric_cluster_problems": fabric_cluster_problems,
            "gpudirect_rdma": gpudirect_rdma,
            "nccl_transports": nccl_transports,
            "fabric_use_problem": fabric_use_problem,
            "nccl_conf": nccl_conf,
            "fabric_port_check": fabric_port_check,
            "fabric_link_rate": fabric_link_rate,
        }
