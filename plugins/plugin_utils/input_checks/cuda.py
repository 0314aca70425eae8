# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the cuda role."""

from __future__ import annotations

import re

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import CompatError, load_tables
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat.tables import find_os

from ._base import WARNING, Finding, absolute_path, check, set_by_user
from ._gpu_libs import apt_only, for_gpu_hosts, no_gpu, os_id, repo_key, sha256, url

_COMPONENT = re.compile(r"^[a-z][a-z0-9_]*$")


def _releases():
    return [r["cuda"] for r in load_tables()["cuda_driver"]["toolkits"]]


def _os_row(host_os):
    try:
        return find_os(host_os, load_tables())
    except CompatError:
        return None


@check(
    "cuda_install_method",
    "cuda_version",
    "cuda_redist_components",
    description="the method can install this CUDA on this OS (the install plan, gpu_libs/cuda.py)",
)
def _plan(values, ctx):
    method, version = values["cuda_install_method"], values["cuda_version"]
    host_os = os_id(ctx)
    if not host_os and method in ("distro", "repo"):
        return  # the OS decides; the role's own preflight knows it
    try:
        gpu_libs.cuda_plan(
            method,
            version,
            host_os or "debian12",
            components=values["cuda_redist_components"],
            known_releases=_releases(),
            os_row=_os_row(host_os) if host_os else None,
        )
    except gpu_libs.PlanError as exc:
        text = str(exc)
        if method == "distro" and host_os not in gpu_libs.cuda.DISTRO_CUDA:
            yield Finding("cuda_install_method", method, text, "repo or redist")
        elif "cuda_redist_components" in text:
            yield Finding(
                "cuda_redist_components", values["cuda_redist_components"], text, "e.g. [cuda_cudart, cuda_nvcc]"
            )
        else:
            yield Finding("cuda_version", version, text, "a version the method can install (see the message)")


@check("cuda_redist_components", description="redistributable component names as NVIDIA's manifests spell them")
def _components(values, ctx):
    bad = [c for c in values["cuda_redist_components"] or [] if not _COMPONENT.match(str(c))]
    if bad:
        yield Finding(
            "cuda_redist_components", bad, "not manifest component names", "keys such as cuda_cudart, cuda_nvcc"
        )


@check(
    "cuda_distro_install_recommends",
    "cuda_install_method",
    description="warns when cuda_distro_install_recommends is set while cuda_install_method is not distro",
    level=WARNING,
)
def _recommends_without_distro(values, ctx):
    name = "cuda_distro_install_recommends"
    method = values["cuda_install_method"]
    if method != "distro" and set_by_user(ctx, name):
        yield Finding(
            name,
            values[name],
            f"not used on {ctx.host}: cuda_install_method is {method}, and only the distribution's toolkit is "
            "installed with or without its Recommends",
            f"cuda_install_method: distro, or drop {name}",
            WARNING,
        )


CHECKS = [
    *for_gpu_hosts(
        "cuda",
        [
            _plan,
            _components,
            sha256("cuda_redist_manifest_sha256"),
            apt_only("cuda", ("repo", "distro")),
            repo_key("cuda"),
            url("cuda_repo_base_url", "cuda_repo_url", "cuda_repo_key_url", "cuda_redist_base_url"),
            absolute_path("cuda_prefix"),
            _recommends_without_distro,
        ],
    ),
    no_gpu("cuda"),
]
