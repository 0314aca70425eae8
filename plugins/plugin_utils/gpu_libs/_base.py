# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the three install plans share: version strings, the libraries' version codes, manifest lookup."""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, Optional, Tuple

from .. import versions


class PlanError(ValueError):
    """The method cannot install this version on this OS; the message says why and what would work."""


def vtuple(version: Any) -> Tuple[int, ...]:
    """'12.4.1' -> (12, 4, 1); PlanError for anything that is not dotted numbers."""
    return versions.dotted(version, PlanError)


def mm(version: Any) -> str:
    """'12.4.1' -> '12.4'; PlanError below major.minor."""
    return versions.dotted_mm(version, PlanError)


def version_matches(resolved: Any, found: Any) -> bool:
    """Whether an installed version agrees with the resolved one on every component the resolved one names
    (versions.agrees: '12.4' matches '12.4.131', '9.1.0.70' matches '9.1.0', not '9.1.1')."""
    return versions.agrees(resolved, found, PlanError)


def decode_cudart(code: int) -> str:
    """cudaRuntimeGetVersion()/CUDART_VERSION -> 'major.minor' (12040 -> '12.4')."""
    code = int(code)
    return f"{code // 1000}.{(code % 1000) // 10}"


def decode_cudnn(code: int) -> str:
    """cudnnGetVersion() -> 'major.minor.patch': 9.x encodes M*10000+m*100+p, 8.x and older M*1000+m*100+p."""
    code = int(code)
    if code >= 90000:
        return f"{code // 10000}.{(code % 10000) // 100}.{code % 100}"
    return f"{code // 1000}.{(code % 1000) // 100}.{code % 100}"


def decode_nccl(code: int) -> str:
    """ncclGetVersion() -> 'major.minor.patch': from 2.9 M*10000+m*100+p, before that M*1000+m*100+p."""
    code = int(code)
    if code >= 20900:
        return f"{code // 10000}.{(code % 10000) // 100}.{code % 100}"
    return f"{code // 1000}.{(code % 1000) // 100}.{code % 100}"


def redist_entry(
    manifest: Dict[str, Any], component: str, platform: str, cuda_variant: Optional[str] = None
) -> Dict[str, str]:
    """The archive of one component in one of NVIDIA's redistrib_<release>.json manifests.

    Returns {relative_path, sha256, version}. CUDA's manifests hold the archive under the platform
    (``linux-x86_64``); cuDNN's hold one per CUDA major below it (``cuda12``), given as cuda_variant.
    """
    if not isinstance(manifest, dict) or component not in manifest:
        known = sorted(k for k, v in (manifest or {}).items() if isinstance(v, dict))
        raise PlanError(f"the manifest has no component {component} (it has: {', '.join(known) or 'none'})")
    entry = manifest[component]
    if platform not in entry:
        platforms = sorted(k for k, v in entry.items() if isinstance(v, dict))
        raise PlanError(f"{component} has no archive for {platform} (it has: {', '.join(platforms) or 'none'})")
    archive = entry[platform]
    if "relative_path" not in archive:
        if not cuda_variant or cuda_variant not in archive:
            raise PlanError(
                f"{component} for {platform} is built per CUDA major ({', '.join(sorted(archive))}), "
                f"not for {cuda_variant or 'an unnamed CUDA'}"
            )
        archive = archive[cuda_variant]
    sha = str(archive.get("sha256", ""))
    if not re.match(r"^[0-9a-f]{64}$", sha):
        raise PlanError(f"{component} for {platform} has no sha256 in the manifest; refusing an unchecked archive")
    return {"relative_path": str(archive["relative_path"]), "sha256": sha, "version": str(entry.get("version", ""))}


def archive_dir(relative_path: str) -> str:
    """'cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.4.127-archive.tar.xz' -> the directory it unpacks to
    ('cuda_cudart-linux-x86_64-12.4.127-archive')."""
    name = relative_path.rsplit("/", 1)[-1]
    return re.sub(r"\.(tar\.xz|tar\.gz|tgz|txz)$", "", name)


_APT_BUILD = re.compile(r"^(?P<version>\d+(?:\.\d+)*)-(?P<rev>\d+)\+cuda(?P<cuda>\d+\.\d+)$")


def pick_apt_build(package: str, version: str, cuda: str, available: Iterable[str]) -> str:
    """The apt version of a library NVIDIA builds per CUDA minor (libnccl2 2.21.5-1+cuda12.4, libcudnn8
    8.9.7.29-1+cuda12.2): the build for the resolved CUDA minor, else the newest build for an older minor of
    the same major (minor-version compatibility lets it run there). PlanError lists what the repository has."""
    want, cuda_t = vtuple(version), vtuple(mm(cuda))
    builds = []
    for text in available:
        match = _APT_BUILD.match(str(text).strip())
        if not match:
            continue
        have = vtuple(match["version"])
        build = vtuple(match["cuda"])
        if have[: len(want)] == want and build[0] == cuda_t[0] and build <= cuda_t:
            builds.append((build, have, int(match["rev"]), str(text).strip()))
    if not builds:
        shown = ", ".join(sorted({str(a).strip() for a in available})[-8:]) or "none"
        raise PlanError(
            f"the repository has no {package} {version} built for CUDA {mm(cuda)} or an older {cuda_t[0]}.x "
            f"(it has: {shown})"
        )
    return max(builds)[3]


# The roles of the GPU stack plays of site.yml (hvd_nodes:&gpucluster_gpu_stack) and their `<role>_force` inputs.
GPU_STACK_ROLES = ("nvidia_driver", "cuda", "cudnn", "nccl")


def gpu_stack_applies(gpu_facts: Any, forces: Iterable[Any] = ()) -> bool:
    """Whether site.yml's GPU stack plays apply to a host: it has an NVIDIA GPU, gpu_facts could not count its GPUs
    (no count: the roles decide on the host), or one of the GPU roles is forced (an image builder): site.yml's
    group gpucluster_gpu_stack (filter gpu_stack_applies)."""
    count = (gpu_facts or {}).get("gpu_count") if isinstance(gpu_facts, dict) else None
    if count is None:
        return True
    try:
        if int(count) > 0:
            return True
    except (TypeError, ValueError):
        return True
    return any(_truthy(force) for force in forces)


def _truthy(value: Any) -> bool:
    """As Ansible's bool filter reads a flag: true, yes, on, 1 (any case)."""
    return value is True or str(value).strip().lower() in ("true", "yes", "on", "1", "y", "t")
