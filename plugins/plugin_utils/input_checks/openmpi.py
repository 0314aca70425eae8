# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the openmpi role."""

from __future__ import annotations

import re

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import openmpi_problem

from ._base import WARNING, Finding, absolute_path, check, inventory_host, positive, training_user

_SOURCE_ONLY = (
    "openmpi_version",
    "openmpi_source_url",
    "openmpi_source_checksum",
    "openmpi_configure_flags",
    "openmpi_pmix",
)
_ARCHIVE = re.compile(r"\.(tar\.gz|tgz|tar\.bz2|tbz2|tar\.xz|txz)$")


@check(
    "openmpi_install_method",
    description="a source-build input set by the user while openmpi_install_method is distro is refused, not ignored",
)
def _source_inputs_with_distro(values, ctx):
    if values["openmpi_install_method"] != "distro":
        return
    for name in _SOURCE_ONLY:
        if name in ctx.user_set:
            yield Finding(
                name,
                values.get(name),
                "openmpi_install_method is distro, which installs the distribution's Open MPI and cannot honour it",
                "set openmpi_install_method: source to build it, or remove the variable",
            )


@check("openmpi_install_method", "openmpi_version", description="a source build of a version Horovod can use")
def _version(values, ctx):
    if values["openmpi_install_method"] != "source":
        return
    version = values["openmpi_version"]
    problem = openmpi_problem(version)
    if problem:
        yield Finding("openmpi_version", version, problem, "e.g. 4.1.6 or 5.0.8")
        return
    majors = ctx.role_vars.get("_openmpi_major_data") or {}
    if majors and str(version).split(".", maxsplit=1)[0] not in majors:
        yield Finding("openmpi_version", version, "the role builds Open MPI 4 and 5 only", "4.x or 5.x")


@check(
    "openmpi_install_method",
    "openmpi_source_checksum",
    "openmpi_source_url",
    description="a source build has an archive URL and its checksum ('sha256:<hex>')",
)
def _source(values, ctx):
    if values["openmpi_install_method"] != "source":
        return
    checksum, url = values["openmpi_source_checksum"], values["openmpi_source_url"]
    if not re.match(r"^(sha256|sha384|sha512):[0-9a-fA-F]+$", checksum or ""):
        yield Finding(
            "openmpi_source_checksum",
            checksum,
            "a source build needs the checksum of the tarball",
            f"'sha256:<hex>' of {url}",
        )
    if not _ARCHIVE.search(url or ""):
        yield Finding("openmpi_source_url", url, "not a .tar.gz, .tar.bz2 or .tar.xz archive", "a release tarball URL")


@check(
    "openmpi_with_cuda",
    "openmpi_install_method",
    description="warns that openmpi_with_cuda applies to source builds only",
    level=WARNING,
)
def _cuda_with_distro(values, ctx):
    if values["openmpi_with_cuda"] and values["openmpi_install_method"] == "distro":
        yield Finding(
            "openmpi_with_cuda",
            True,
            "ignored: the distribution's Open MPI is installed as it is built",
            "openmpi_install_method: source for a CUDA-aware build",
            WARNING,
        )


@check(
    "openmpi_with_cuda",
    "openmpi_install_method",
    description="warns about a CUDA-aware build on a host where gpu_facts found no GPU",
    level=WARNING,
)
def _cuda_without_gpu(values, ctx):
    if values["openmpi_with_cuda"] and values["openmpi_install_method"] == "source" and ctx.has_gpu is False:
        yield Finding(
            "openmpi_with_cuda", True, f"gpu_facts found no NVIDIA GPU on {ctx.host}", "false on CPU hosts", WARNING
        )


@check(
    "openmpi_install_dev",
    "openmpi_install_method",
    description="warns that openmpi_install_dev applies to the distro method only",
    level=WARNING,
)
def _dev_with_source(values, ctx):
    if "openmpi_install_dev" in ctx.user_set and values["openmpi_install_method"] == "source":
        yield Finding(
            "openmpi_install_dev",
            values["openmpi_install_dev"],
            "ignored: a source build installs its whole prefix, development files included, on every node",
            "remove it, or openmpi_install_method: distro",
            WARNING,
        )


CHECKS = [
    _source_inputs_with_distro,
    _dev_with_source,
    _version,
    _source,
    _cuda_with_distro,
    _cuda_without_gpu,
    absolute_path("openmpi_prefix", "openmpi_cuda_home", "openmpi_build_dir", "openmpi_artifact_dir"),
    absolute_path("openmpi_build_ccache_dir", optional=True),
    positive("openmpi_build_timeout", what="seconds"),
    inventory_host("openmpi_builder"),
    training_user("openmpi_user"),
]
