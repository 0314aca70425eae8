# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Install plans of the GPU libraries: what the cuda, cudnn and nccl roles install for a resolved version.

Pure, controller-side Python (no Ansible imports). Given an install method, the version the stack resolved and
the host's OS id (``debian12``, ``ubuntu22.04``, ``rhel9``), each ``*_plan`` function returns the package names
with their exact version strings, the pins and holds, the paths, the pip requirement or the redistributable
component; or raises PlanError saying why the combination cannot be installed and what would work. The roles
reach these functions through the filters in plugins/filter/gpu_libs.py. Layout: ``_base`` (versions, the codes
the libraries' version calls return, PlanError) · ``cuda`` · ``cudnn`` · ``nccl``.
"""

from __future__ import annotations

from ._base import (
    GPU_STACK_ROLES,
    PlanError,
    archive_dir,
    decode_cudart,
    decode_cudnn,
    decode_nccl,
    gpu_stack_applies,
    redist_entry,
    version_matches,
)
from .cuda import CUDA_METHODS, cuda_header_wheels, cuda_plan
from .cudnn import CUDNN_METHODS, cudnn_plan
from .nccl import NCCL_METHODS, nccl_apt_version, nccl_location, nccl_plan

__all__ = [
    "CUDA_METHODS",
    "CUDNN_METHODS",
    "GPU_STACK_ROLES",
    "NCCL_METHODS",
    "PlanError",
    "archive_dir",
    "cuda_header_wheels",
    "cuda_plan",
    "cudnn_plan",
    "decode_cudart",
    "decode_cudnn",
    "decode_nccl",
    "gpu_stack_applies",
    "nccl_apt_version",
    "nccl_location",
    "nccl_plan",
    "redist_entry",
    "version_matches",
]
