# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster's RDMA fabric on the controller: whether the nodes agree (``cluster``), which GPUDirect RDMA path a node
can use (``gpudirect``), NCCL's system settings (``nccl_conf``), and which transport NCCL really used, from its INFO
log (``nccl_log``). Pure Python, no
Ansible imports; reached through plugins/filter/fabric.py. The host side (sysfs) is module_utils/_fabric.py."""

from __future__ import annotations

from .cluster import cluster_problems, link_rate_gbps, port_health_check
from .gpudirect import gpudirect_rdma
from .nccl_conf import nccl_conf, settings_problems
from .nccl_log import fabric_use_problem, nccl_transports

__all__ = [
    "cluster_problems",
    "fabric_use_problem",
    "gpudirect_rdma",
    "link_rate_gbps",
    "nccl_conf",
    "nccl_transports",
    "port_health_check",
    "settings_problems",
]
