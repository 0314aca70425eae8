# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Install-plan filters of the cuda, cudnn and nccl roles: cuda_install_plan, cudnn_install_plan,
nccl_install_plan, cuda_header_wheels, gpu_lib_version_ok, gpu_lib_version, redist_archive.

Documented in the matching <name>.yml files; the logic is in plugin_utils/gpu_libs/.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_compat = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat")
_libs = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.gpu_libs")


def _os(facts):
    facts = dict(facts or {})
    return _compat.os_from_facts(facts), str(facts.get("architecture") or "x86_64")


def _os_row(os_id):
    try:
        return _compat.tables.find_os(os_id, _compat.load_tables())
    except _compat.CompatError:
        return None


def cuda_install_plan(version, method, facts, *, components=None, prefix="/usr/local"):
    """CUDA version -> what the cuda role installs by `method` on the host of `facts`."""
    os_id, arch = _os(facts)
    releases = [r["cuda"] for r in _compat.load_tables()["cuda_driver"]["toolkits"]]
    try:
        return _libs.cuda_plan(
            method,
            version,
            os_id,
            arch=arch,
            prefix=prefix,
            components=list(components or []),
            known_releases=releases,
            os_row=_os_row(os_id),
        )
    except _libs.PlanError as exc:
        raise AnsibleFilterError(f"cuda_install_plan: {exc}") from exc


def cudnn_install_plan(version, method, cuda, facts, *, venv="", prefix="/usr/local", available=None):
    """cuDNN version -> what the cudnn role installs by `method` for CUDA `cuda`."""
    os_id, arch = _os(facts)
    try:
        return _libs.cudnn_plan(
            method, version, cuda, os_id, arch=arch, prefix=prefix, venv=venv or "", available=list(available or [])
        )
    except _libs.PlanError as exc:
        raise AnsibleFilterError(f"cudnn_install_plan: {exc}") from exc


def nccl_install_plan(version, method, cuda, facts, *, prefix="/opt/gpucluster", available=None):
    """NCCL version -> what the nccl role installs by `method` for CUDA `cuda`."""
    os_id, _arch = _os(facts)
    try:
        return _libs.nccl_plan(method, version, cuda, os_id, prefix=prefix, available=list(available or []))
    except _libs.PlanError as exc:
        raise AnsibleFilterError(f"nccl_install_plan: {exc}") from exc


def nccl_location(plan, current_link=""):
    """The nccl role's install plan -> where NCCL is, as the role publishes it (gpucluster_nccl)."""
    return _libs.nccl_location(dict(plan or {}), str(current_link or ""))


def cuda_header_wheels(version):
    """CUDA version -> the wheels whose headers compile against cuda_runtime.h/cuda_fp16.h without a toolkit."""
    try:
        return _libs.cuda_header_wheels(version)
    except _libs.PlanError as exc:
        raise AnsibleFilterError(f"cuda_header_wheels: {exc}") from exc


def gpu_lib_version_ok(found, resolved):
    """Whether an installed version agrees with the resolved one on every component both name."""
    try:
        return _libs.version_matches(resolved, found)
    except _libs.PlanError:
        return False


_DECODERS = {"cudart": _libs.decode_cudart, "cudnn": _libs.decode_cudnn, "nccl": _libs.decode_nccl}


def gpu_lib_version(code, library):
    """A library's version code (cudaRuntimeGetVersion, cudnnGetVersion, ncclGetVersion) -> dotted version."""
    if library not in _DECODERS:
        raise AnsibleFilterError(f"gpu_lib_version: unknown library '{library}' (known: {', '.join(_DECODERS)})")
    try:
        return _DECODERS[library](int(code))
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError(f"gpu_lib_version: '{code}' is not a version code") from exc


def redist_archive(manifest, component, platform, variant=None):
    """One component's archive {relative_path, sha256, version, dir} in an NVIDIA redistrib manifest."""
    try:
        entry = _libs.redist_entry(manifest, component, platform, variant)
    except _libs.PlanError as exc:
        raise AnsibleFilterError(f"redist_archive: {exc}") from exc
    entry["dir"] = _libs.archive_dir(entry["relative_path"])
    return entry


def gpu_stack_applies(gpu_facts, forces=()):
    """Whether site.yml's GPU stack plays apply to the host (gpu_libs/_base.py gpu_stack_applies)."""
    return _libs.gpu_stack_applies(gpu_facts, forces or ())


class FilterModule:
    """gpucluster.horovod GPU library install-plan filters."""

    def filters(self):
        return {
            "cuda_install_plan": cuda_install_plan,
            "cuda_header_wheels": cuda_header_wheels,
            "cudnn_install_plan": cudnn_install_plan,
            "nccl_install_plan": nccl_install_plan,
            "nccl_location": nccl_location,
            "gpu_lib_version_ok": gpu_lib_version_ok,
            "gpu_lib_version": gpu_lib_version,
            "gpu_stack_applies": gpu_stack_applies,
            "redist_archive": redist_archive,
        }
