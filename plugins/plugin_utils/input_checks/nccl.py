# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the nccl role."""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs

from ._base import Finding, absolute_path, check
from ._gpu_libs import apt_only, for_gpu_hosts, no_gpu, os_id, repo_key, url


@check(
    "nccl_install_method",
    "nccl_version",
    "nccl_cuda_version",
    description="the method can install this NCCL for this CUDA on this OS (the install plan, gpu_libs/nccl.py)",
)
def _plan(values, ctx):
    method, version, cuda = values["nccl_install_method"], values["nccl_version"], values["nccl_cuda_version"]
    host_os = os_id(ctx)
    if not host_os:
        if method == "distro":
            return  # the OS decides; the role's own preflight knows it
        host_os = "debian12"
    try:
        gpu_libs.nccl_plan(method, version, cuda, host_os)
    except gpu_libs.PlanError as exc:
        text = str(exc)
        if method == "distro" and host_os not in gpu_libs.nccl.DISTRO_NCCL:
            yield Finding("nccl_install_method", method, text, "pip or repo")
        elif "not CUDA" in text or "wheel is published for CUDA" in text:
            yield Finding("nccl_cuda_version", cuda, text, "a CUDA the method has NCCL builds for")
        else:
            yield Finding("nccl_version", version, text, "a version the method can install (see the message)")


CHECKS = [
    *for_gpu_hosts(
        "nccl",
        [
            _plan,
            apt_only("nccl", ("repo", "distro")),
            repo_key("nccl"),
            url("nccl_pip_index_url", "nccl_repo_base_url", "nccl_repo_url", "nccl_repo_key_url"),
            absolute_path("nccl_prefix", "nccl_cuda_home"),
        ],
    ),
    no_gpu("nccl"),
]
