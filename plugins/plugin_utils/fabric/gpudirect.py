# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which GPUDirect RDMA path a node can use: DMA-BUF, nvidia-peermem or none, with the reason.

Sources (docs/compatibility.md cites them): NVIDIA recommends DMA-BUF over the legacy nvidia-peermem module (GPU
Operator, "GPUDirect RDMA and GPUDirect Storage"); DMA-BUF needs the open GPU kernel module, Linux 5.12 or later and
NCCL 2.13 or later (NCCL_DMABUF_ENABLE). nvidia-peermem registers with the peer-memory API of the MLNX_OFED/DOCA-OFED
ib_core, which the distributions' inbox RDMA stack does not have, so it is chosen only where that stack is installed
and the module exists for the running kernel.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Optional

from .. import versions

DMABUF_MIN_KERNEL = "5.12"
DMABUF_MIN_NCCL = "2.13"


def _kernel(release: Any) -> str:
    """``6.1.0-50-amd64`` -> ``6.1.0``."""
    match = re.match(r"^(\d+\.\d+(\.\d+)?)", str(release or ""))
    return match.group(1) if match else ""


def gpudirect_rdma(
    *,
    fabric_kind: str,
    has_gpu: bool,
    kernel_module: Optional[str],
    kernel_release: Any,
    nccl_version: Any = None,
    peermem_module: bool = False,
    ofed: bool = False,
) -> Dict[str, Any]:
    """``{"method": "dmabuf" | "peermem" | "none", "reason": str}`` for one node."""
    if not has_gpu:
        return {"method": "none", "reason": "no NVIDIA GPU on this node"}
    if fabric_kind in (None, "", "none"):
        return {"method": "none", "reason": "no usable InfiniBand or RoCE port: NCCL moves data between nodes over TCP"}
    kernel = _kernel(kernel_release)
    dmabuf_missing = []
    if kernel_module != "open":
        dmabuf_missing.append(f"the open GPU kernel module (loaded: {kernel_module or 'none'})")
    if not kernel or versions.vcmp(kernel, DMABUF_MIN_KERNEL) < 0:
        dmabuf_missing.append(f"Linux {DMABUF_MIN_KERNEL} or later (running: {kernel_release or 'unknown'})")
    if nccl_version and versions.vcmp(nccl_version, DMABUF_MIN_NCCL) < 0:
        dmabuf_missing.append(f"NCCL {DMABUF_MIN_NCCL} or later (resolved: {nccl_version})")
    if not dmabuf_missing:
        return {
            "method": "dmabuf",
            "reason": f"open GPU kernel module, Linux {kernel}, NCCL {nccl_version or 'as resolved'}: DMA-BUF",
        }
    why_not_dmabuf = "DMA-BUF needs " + " and ".join(dmabuf_missing)
    if peermem_module and ofed:
        return {"method": "peermem", "reason": f"{why_not_dmabuf}; nvidia-peermem with the installed OFED stack"}
    peermem_missing = []
    if not ofed:
        peermem_missing.append("MLNX_OFED or DOCA-OFED (the inbox RDMA stack has no peer-memory API)")
    if not peermem_module:
        peermem_missing.append("the nvidia-peermem module for the running kernel")
    return {
        "method": "none",
        "reason": f"{why_not_dmabuf}; nvidia-peermem needs {' and '.join(peermem_missing)}: NCCL copies through host "
        "memory (GPUDirect RDMA off, a large share of the link's bandwidth lost)",
    }
