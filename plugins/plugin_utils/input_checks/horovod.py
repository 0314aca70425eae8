# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the horovod role. Each names the one input that is wrong."""

from __future__ import annotations

import re

from ..horovod.frameworks import framework_plan
from ._base import WARNING, Finding, absolute_path, check, inventory_host, positive, running_jobs, training_user

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@check("horovod_version", description="a Horovod release whose sdist checksum the role knows (vars/main.yml)")
def _version(values, ctx):
    known = ctx.role_vars.get("_horovod_sdist_sha256") or {}
    value = str(values["horovod_version"])
    if known and value not in known:
        yield Finding(
            "horovod_version",
            value,
            "no sdist checksum is known for this release",
            f"{', '.join(sorted(known))} (or add its sha256 to roles/horovod/vars/main.yml)",
        )


@check("horovod_python_version", description="a Python 3 version such as 3.11")
def _python(values, ctx):
    value = str(values["horovod_python_version"])
    if not re.match(r"^3\.\d+$", value):
        yield Finding("horovod_python_version", value, "not a Python 3 major.minor version", "e.g. 3.11")


@check("horovod_patches", "horovod_version", description="every patch exists and has edits for this Horovod version")
def _patches(values, ctx):
    table = ctx.role_vars.get("_horovod_source_patches") or {}
    if not table:
        return
    version = str(values["horovod_version"])
    known_versions = ctx.role_vars.get("_horovod_sdist_sha256") or {}
    for name in values["horovod_patches"] or []:
        if name not in table:
            yield Finding("horovod_patches", name, "no such patch", ", ".join(sorted(table)))
        # An unknown Horovod version is refused by itself; its patches are not the problem then.
        elif version not in (table[name] or {}) and (not known_versions or version in known_versions):
            yield Finding(
                "horovod_patches",
                name,
                f"the patch has no edits for Horovod {version}",
                f"Horovod {', '.join(sorted(table[name]))} (roles/horovod/vars/patches.yml)",
            )


@check("horovod_with_mpi", description="auto, true or false")
def _with_mpi(values, ctx):
    value = values["horovod_with_mpi"]
    if str(value).lower() not in ("auto", "true", "false"):
        yield Finding("horovod_with_mpi", value, "not a choice", "auto, true or false")


@check("horovod_build_env", "horovod_env_extra", description="environment variable names ([A-Za-z_][A-Za-z0-9_]*)")
def _env_names(values, ctx):
    for var in ("horovod_build_env", "horovod_env_extra"):
        for key in values[var] or {}:
            if not _ENV_NAME.match(str(key)):
                yield Finding(var, key, "not an environment variable name", "letters, digits and _")


@check(
    "horovod_pip_no_index",
    "horovod_pip_find_links",
    "horovod_wheelhouse",
    description="horovod_pip_no_index needs somewhere to install from (find-links or a wheelhouse)",
)
def _no_index(values, ctx):
    if values["horovod_pip_no_index"] and not values["horovod_pip_find_links"] and not values["horovod_wheelhouse"]:
        yield Finding(
            "horovod_pip_no_index",
            True,
            "pip would have no index and no local wheels",
            "set horovod_pip_find_links or horovod_wheelhouse, or horovod_pip_no_index: false",
        )


@check(
    "horovod_extra_frameworks",
    "horovod_framework",
    description="each extra framework is a dict with a known name other than the resolved one and an exact version",
)
def _extra_frameworks(values, ctx):
    primary = str(values["horovod_framework"])
    seen = {primary}
    for item in values["horovod_extra_frameworks"] or []:
        try:
            plan = framework_plan(item)
        except ValueError as exc:
            yield Finding(
                "horovod_extra_frameworks",
                item,
                str(exc),
                "a dict such as {name: pytorch, version: 2.13.0, variant: cpu} (name: pytorch, tensorflow or mxnet)",
            )
            continue
        if plan["name"] in seen:
            yield Finding(
                "horovod_extra_frameworks",
                item,
                f"{plan['name']} is already in the venv"
                + (" (the resolved framework)" if plan["name"] == primary else ""),
                "each framework once; the resolved one is horovod_framework",
            )
        seen.add(plan["name"])


@check(
    "horovod_cuda_version",
    "horovod_nccl_version",
    "horovod_framework_cuda_variant",
    description="a CUDA build needs a CUDA build of the framework, and NCCL needs CUDA",
)
def _cuda_sense(values, ctx):
    cuda, nccl, variant = (
        values["horovod_cuda_version"],
        values["horovod_nccl_version"],
        values["horovod_framework_cuda_variant"],
    )
    if cuda and variant == "cpu":
        yield Finding(
            "horovod_framework_cuda_variant",
            variant,
            f"Horovod is built with CUDA {cuda} and NCCL, but against the CPU build of the framework (training would"
            " not use the GPUs)",
            "the framework's CUDA wheel variant (e.g. cu121; the resolved stack's), or horovod_cuda_version: ''",
        )
    if nccl and not cuda:
        yield Finding(
            "horovod_nccl_version",
            nccl,
            "NCCL operations need a CUDA build (horovod_cuda_version is empty)",
            "set horovod_cuda_version too, or leave horovod_nccl_version empty",
        )


@check(
    "horovod_slurm_batch_script",
    description="warns when the Slurm batch script is set where the first play found no Slurm (it is not written)",
    level=WARNING,
)
def _batch_script_without_slurm(values, ctx):
    path = values["horovod_slurm_batch_script"]
    if path and "horovod_slurm_batch_script" in ctx.user_set and not ctx.slurm:
        why = "found no Slurm there" if ctx.slurm is False else "did not read Slurm (preflight_detect_slurm)"
        yield Finding(
            "horovod_slurm_batch_script",
            path,
            f"not written on {ctx.host}: the first play {why}",
            "a node of the site's Slurm, or drop horovod_slurm_batch_script",
            WARNING,
        )


@check(
    "horovod_cuda_version",
    description="warns about a CUDA build on a host where gpu_facts found no GPU",
    level=WARNING,
)
def _cuda_without_gpu(values, ctx):
    if values["horovod_cuda_version"] and ctx.has_gpu is False and "horovod_cuda_version" in ctx.user_set:
        yield Finding(
            "horovod_cuda_version",
            values["horovod_cuda_version"],
            f"gpu_facts found no NVIDIA GPU on {ctx.host}; the build needs the CUDA toolkit there",
            "empty on CPU hosts",
            WARNING,
        )


@check(
    "horovod_cuda_version",
    "horovod_build_env",
    description="on a host where gpu_facts found NVIDIA GPUs, a build with GPU operations (a CUDA version)",
)
def _gpu_without_cuda(values, ctx):
    env = values["horovod_build_env"] or {}
    if ctx.has_gpu and not values["horovod_cuda_version"] and "HOROVOD_GPU_OPERATIONS" not in env:
        yield Finding(
            "horovod_cuda_version",
            values["horovod_cuda_version"],
            f"gpu_facts found NVIDIA GPUs on {ctx.host} but Horovod would be built without GPU operations (no"
            " CUDA in the resolved stack or the variable): training there would silently run on the CPU",
            "the CUDA version of the host's toolkit (the stack resolves it when the GPU roles run), e.g. '12.4'",
        )


@check(
    "horovod_cuda_version",
    "horovod_build_env",
    description="with CUDA 13 or newer, the GPUs' compute capabilities in HOROVOD_BUILD_CUDA_CC_LIST",
)
def _cc_list(values, ctx):
    cuda = str(values["horovod_cuda_version"] or "")
    env = values["horovod_build_env"] or {}
    major = re.match(r"^(\d+)", cuda)
    if major and int(major.group(1)) >= 13 and not str(env.get("HOROVOD_BUILD_CUDA_CC_LIST") or "").strip():
        yield Finding(
            "horovod_build_env",
            "(no HOROVOD_BUILD_CUDA_CC_LIST)",
            f"CUDA {cuda}'s nvcc no longer compiles for compute capabilities below 7.5, and Horovod's default list"
            " (used without HOROVOD_BUILD_CUDA_CC_LIST) has older ones: the GPU build would stop in nvcc",
            "HOROVOD_BUILD_CUDA_CC_LIST with the GPUs' capabilities without the dot, e.g. '90' for H100 or '80,90'"
            " (the first play sets it from gpu_facts)",
        )


CHECKS = [
    _version,
    _python,
    _patches,
    _with_mpi,
    _env_names,
    _no_index,
    _extra_frameworks,
    _cuda_sense,
    _cuda_without_gpu,
    _batch_script_without_slurm,
    _gpu_without_cuda,
    _cc_list,
    training_user("horovod_user"),
    absolute_path(
        "horovod_venv",
        "horovod_build_dir",
        "horovod_log_dir",
        "horovod_node_cache_dir",
        "horovod_wheel_cache_dir",
        "horovod_cuda_home",
        "horovod_profile_path",
    ),
    absolute_path(
        "horovod_nccl_home",
        "horovod_wheelhouse",
        "horovod_build_ccache_dir",
        "horovod_slurm_batch_script",
        optional=True,
    ),
    inventory_host("horovod_builder", optional=True),
    positive("horovod_build_jobs", what="parallel compile jobs"),
    positive("horovod_build_timeout", "horovod_build_poll_interval", what="seconds"),
    positive("horovod_build_log_lines", what="lines"),
    *running_jobs("horovod"),
]
