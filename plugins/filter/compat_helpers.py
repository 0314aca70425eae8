# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Small compatibility filters for roles: min_driver_for_cuda, cuda_arch_for_gpu, cuda_cc_list, openmpi_version_ok,
openmpi_version_problem, compat_table.

Documented in the matching <name>.yml files; the logic is in plugin_utils/compat/.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_compat = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat")


def min_driver_for_cuda(cuda, mode="toolkit"):
    """Minimum Linux driver for a CUDA version."""
    try:
        return _compat.min_driver_for_cuda(cuda, mode=mode)
    except _compat.CompatError as exc:
        raise AnsibleFilterError(f"min_driver_for_cuda: {exc.message}") from exc


def cuda_arch_for_gpu(gpu):
    """GPU model or compute capability -> architecture facts."""
    try:
        row = _compat.gpu_arch(gpu)
    except _compat.CompatError as exc:
        raise AnsibleFilterError(f"cuda_arch_for_gpu: {exc.message}") from exc
    keys = (
        "input",
        "model",
        "sm",
        "arch",
        "min_cuda",
        "max_cuda",
        "last_driver_branch",
        "kernel_module",
        "open_module_required",
        "min_nccl",
        "min_cudnn",
        "max_cudnn",
    )
    return {k: row.get(k) for k in keys}


def cuda_cc_list(gpus):
    """List of GPUs -> "80,90" for HOROVOD_BUILD_CUDA_CC_LIST."""
    try:
        return _compat.cuda_cc_list(list(gpus or []))
    except _compat.CompatError as exc:
        raise AnsibleFilterError(f"cuda_cc_list: {exc.message}") from exc


def compat_table(stack):
    """A resolved stack (compatible_stack output) as readable text lines."""
    return _compat.render_table(dict(stack))


def openmpi_version_ok(version):
    """True when Horovod can use this Open MPI version."""
    return _compat.openmpi_version_ok(version)


def openmpi_version_problem(version):
    """Why Horovod must not use this Open MPI version, or an empty string when it can."""
    return _compat.openmpi_problem(version) or ""


class FilterModule:
    """gpucluster.horovod compatibility helper filters."""

    def filters(self):
        return {
            "min_driver_for_cuda": min_driver_for_cuda,
            "cuda_arch_for_gpu": cuda_arch_for_gpu,
            "cuda_cc_list": cuda_cc_list,
            "openmpi_version_ok": openmpi_version_ok,
            "openmpi_version_problem": openmpi_version_problem,
            "compat_table": compat_table,
        }
