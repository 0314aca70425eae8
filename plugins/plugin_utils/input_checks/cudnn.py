# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the cudnn role."""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs

from ._base import Finding, absolute_path, check
from ._gpu_libs import apt_only, for_gpu_hosts, no_gpu, os_id, repo_key, sha256, url


@check(
    "cudnn_install_method",
    "cudnn_version",
    "cudnn_cuda_version",
    "cudnn_venv",
    description=(
        "the method can install this cuDNN for this CUDA (the install plan, gpu_libs/cudnn.py); the distro "
        "method is refused: Debian's nvidia-cudnn is a download script, not cuDNN"
    ),
)
def _plan(values, ctx):
    method, version, cuda = values["cudnn_install_method"], values["cudnn_version"], values["cudnn_cuda_version"]
    try:
        gpu_libs.cudnn_plan(method, version, cuda, os_id(ctx) or "debian12", venv=values["cudnn_venv"])
    except gpu_libs.PlanError as exc:
        text = str(exc)
        if method == "distro":
            yield Finding("cudnn_install_method", method, text, "pip, redist or repo")
        elif "venv" in text:
            yield Finding("cudnn_venv", values["cudnn_venv"], text, "an absolute path such as /opt/gpucluster/venv")
        elif "CUDA 11 build" in text or "wheel is published for CUDA" in text:
            yield Finding("cudnn_cuda_version", cuda, text, "a CUDA cuDNN is built for")
        else:
            yield Finding("cudnn_version", version, text, "a version the method can install (see the message)")


CHECKS = [
    *for_gpu_hosts(
        "cudnn",
        [
            _plan,
            sha256("cudnn_redist_manifest_sha256"),
            apt_only("cudnn", ("repo",)),
            repo_key("cudnn"),
            url(
                "cudnn_pip_index_url",
                "cudnn_repo_base_url",
                "cudnn_repo_url",
                "cudnn_repo_key_url",
                "cudnn_redist_base_url",
            ),
            absolute_path("cudnn_prefix", "cudnn_cuda_home"),
        ],
    ),
    no_gpu("cudnn"),
]
