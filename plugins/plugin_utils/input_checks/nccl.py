# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the nccl role."""

from __future__ import annotations

import re

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import fabric as _fabric
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


_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")


@check(
    "nccl_tests_build",
    "nccl_tests_version",
    "nccl_tests_source_url",
    "nccl_tests_source_sha256",
    "nccl_tests_dir",
    "nccl_tests_binaries",
    "nccl_tests_cuda_archs",
    description="nccl-tests: a release, its archive's URL and sha256, known programs, compute capabilities",
)
def _nccl_tests(values, ctx):
    if not values["nccl_tests_build"]:
        return
    version = str(values["nccl_tests_version"])
    if not re.match(r"^\d+\.\d+\.\d+$", version):
        yield Finding("nccl_tests_version", version, "not an nccl-tests release", "three numbers, e.g. 2.19.6")
    source = str(values["nccl_tests_source_url"] or "")
    if not re.match(r"^(https?|ftp|file)://\S+$", source):
        yield Finding(
            "nccl_tests_source_url", source, "not a URL get_url can download", "https://..., ftp://... or file:///..."
        )
    if not _SHA256.match(str(values["nccl_tests_source_sha256"] or "")):
        yield Finding(
            "nccl_tests_source_sha256",
            values["nccl_tests_source_sha256"],
            "building nccl-tests needs the sha256 of its source archive (every download is checked)",
            f"64 hex digits: sha256sum of the archive at {source}",
        )
    directory = str(values["nccl_tests_dir"] or "")
    if directory and not directory.startswith("/"):
        yield Finding("nccl_tests_dir", directory, "not an absolute path", "an absolute path, or empty")
    known = ctx.role_vars.get("_nccl_tests_all_binaries") or []
    unknown = [name for name in values["nccl_tests_binaries"] or [] if known and name not in known]
    if unknown:
        yield Finding("nccl_tests_binaries", unknown, "not nccl-tests programs", ", ".join(known) + " (without _perf)")
    bad_archs = [arch for arch in values["nccl_tests_cuda_archs"] or [] if not re.match(r"^\d+\.\d+$", str(arch))]
    if bad_archs:
        yield Finding("nccl_tests_cuda_archs", bad_archs, "not compute capabilities", "major.minor, e.g. 9.0 for H100")


@check("nccl_conf_settings", description="NCCL variable names with one-line values, no debugging variables")
def _conf_settings(values, ctx):
    for problem in _fabric.settings_problems(values["nccl_conf_settings"]):
        yield Finding(
            "nccl_conf_settings",
            values["nccl_conf_settings"],
            problem,
            "a dict of NCCL_* system settings; NCCL_DEBUG and its kin in a job's environment",
        )


CHECKS = [
    _conf_settings,
    *for_gpu_hosts(
        "nccl",
        [
            _plan,
            apt_only("nccl", ("repo", "distro")),
            repo_key("nccl"),
            url("nccl_pip_index_url", "nccl_repo_base_url", "nccl_repo_url", "nccl_repo_key_url"),
            absolute_path("nccl_prefix", "nccl_cuda_home"),
            absolute_path("nccl_tests_ccache_dir", optional=True),
            _nccl_tests,
        ],
    ),
    no_gpu("nccl"),
]
