# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CUDA toolkit install plan: NVIDIA's repository, the distribution's package, or NVIDIA's redistributables."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional

from ._base import PlanError, mm, vtuple

CUDA_METHODS = ("repo", "distro", "redist")

# The toolkit each distribution packages itself (Debian non-free, Ubuntu multiverse): one per release.
# Debian rows: `apt-cache policy nvidia-cuda-toolkit` in gpucluster/debian:12 and :13 with contrib non-free
# enabled, 2026-11-23. Ubuntu rows: packages.ubuntu.com (jammy 11.5.1, noble 12.0.140), not re-read here.
DISTRO_CUDA: Dict[str, Dict[str, str]] = {
    "debian12": {"version": "11.8", "apt": "11.8.89~11.8.0-5~deb12u1", "package": "nvidia-cuda-toolkit"},
    "debian13": {"version": "12.4", "apt": "12.4.131~12.4.1-2", "package": "nvidia-cuda-toolkit"},
    "ubuntu22.04": {"version": "11.5", "apt": "11.5.1-1ubuntu1", "package": "nvidia-cuda-toolkit"},
    "ubuntu24.04": {"version": "12.0", "apt": "12.0.140~12.0.1-4build4", "package": "nvidia-cuda-toolkit"},
}

# NVIDIA's redistributable archives per machine (the manifest's platform keys).
REDIST_PLATFORMS = {"x86_64": "linux-x86_64", "aarch64": "linux-sbsa", "ppc64le": "linux-ppc64le"}


def _family(os_id: str) -> str:
    if os_id.startswith(("debian", "ubuntu")):
        return "debian"
    if os_id.startswith("rhel"):
        return "redhat"
    raise PlanError(f"no CUDA packaging is known for OS {os_id} (known: Debian, Ubuntu, RHEL and its rebuilds)")


def _repo(version: str, os_id: str, os_row: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    _family(os_id)
    cuda_mm = mm(version)
    if os_row:
        lo, hi = [*(os_row.get("cuda_repo") or []), None, None][:2]
        if lo and (vtuple(cuda_mm) < vtuple(lo) or (hi and vtuple(cuda_mm) > vtuple(hi))):
            distro = DISTRO_CUDA.get(os_id)
            hint = (
                f"; {os_id} packages CUDA {distro['version']} itself (cuda_install_method: distro)"
                if distro and distro["version"] == cuda_mm
                else ""
            )
            raise PlanError(
                f"NVIDIA's repository for {os_id} has CUDA {lo}-{hi or 'current'}, not {cuda_mm}{hint}; "
                "cuda_install_method: redist installs any release on any glibc Linux"
            )
    name = "cuda-toolkit-" + cuda_mm.replace(".", "-")
    # The full patch release when the version names one (12.4.1 -> 12.4.1-*), else any patch of the minor:
    # the package name already fixes the minor, the pin keeps apt from moving what the plan chose.
    pin = f"{version}-*" if len(vtuple(version)) >= 3 else f"{cuda_mm}.*"
    return {
        "packages": [name],
        "pins": [{"package": name, "version": pin}],
        "hold": [name],
        "repo_distro": (os_row or {}).get("repo_distro", os_id.replace(".", "")),
        "note": f"{name} from NVIDIA's repository (never the cuda meta package, which pulls a driver in)",
    }


def _distro(version: str, os_id: str) -> Dict[str, Any]:
    row = DISTRO_CUDA.get(os_id)
    if row is None:
        known = ", ".join(f"{k} ({v['version']})" for k, v in DISTRO_CUDA.items())
        raise PlanError(
            f"{os_id} packages no CUDA toolkit of its own (known: {known}); use cuda_install_method: repo or redist"
        )
    if mm(version) != row["version"]:
        raise PlanError(
            f"{os_id} packages CUDA {row['version']} ({row['package']} {row['apt']}), not {version}; "
            f"set cuda_version: {row['version']}, or cuda_install_method: repo or redist for {mm(version)}"
        )
    return {
        "packages": [row["package"]],
        # Debian's version string starts with the toolkit's component version (11.8.89~11.8.0-...).
        "pins": [{"package": row["package"], "version": f"{row['version']}.*"}],
        "hold": [row["package"]],
        "note": f"{row['package']} {row['apt']} from {os_id}'s own archive",
    }


def redist_release(version: str, known_releases: Iterable[str]) -> str:
    """The toolkit release whose manifest to read: the version itself when it names a patch, else the newest
    known patch of that minor ('12.4' -> '12.4.1')."""
    if len(vtuple(version)) >= 3:
        return ".".join(str(p) for p in vtuple(version)[:3])
    cuda_mm = mm(version)
    same = sorted((r for r in known_releases if len(vtuple(r)) >= 3 and mm(r) == cuda_mm), key=vtuple)
    if not same:
        raise PlanError(
            f"no release of CUDA {cuda_mm} is known to name its redistrib manifest; set cuda_version to the full "
            "release (e.g. 12.4.1)"
        )
    return same[-1]


def _redist(version: str, arch: str, components: List[str], known_releases: Iterable[str]) -> Dict[str, Any]:
    if arch not in REDIST_PLATFORMS:
        raise PlanError(f"NVIDIA publishes no CUDA redistributables for {arch} (known: {', '.join(REDIST_PLATFORMS)})")
    if not components:
        raise PlanError("no redistributable component asked for (cuda_redist_components is empty)")
    release = redist_release(version, known_releases)
    if vtuple(release)[0] >= 13 and "cuda_nvcc" in components and "cuda_crt" not in components:
        # CUDA 13 moved the crt/ headers (host_defines.h, which cuda_runtime_api.h includes) out of cuda_nvcc
        # into a component of their own.
        components = [*components, "cuda_crt"]
    return {
        "packages": [],
        "pins": [],
        "hold": [],
        "redist": {
            "release": release,
            "manifest": f"redistrib_{release}.json",
            "platform": REDIST_PLATFORMS[arch],
            "components": list(components),
        },
        "note": f"NVIDIA's redistributable archives of CUDA {release}, each checked against the manifest's sha256",
    }


def cuda_plan(
    method: str,
    version: Any,
    os_id: str,
    *,
    arch: str = "x86_64",
    prefix: str = "/usr/local",
    components: Optional[List[str]] = None,
    known_releases: Iterable[str] = (),
    os_row: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """What the cuda role installs for one toolkit version, by method; PlanError says why it cannot."""
    if method not in CUDA_METHODS:
        raise PlanError(f"unknown install method '{method}' (known: {', '.join(CUDA_METHODS)})")
    version = str(version).strip()
    if not version:
        raise PlanError("no CUDA version: preflight resolved none (gpucluster_stack.cuda) and cuda_version is empty")
    cuda_mm = mm(version)
    if method == "repo":
        plan = _repo(version, os_id, os_row)
    elif method == "distro":
        plan = _distro(version, os_id)
    else:
        plan = _redist(version, arch, list(components or []), known_releases)
    plan.update(
        {
            "method": method,
            "version": version,
            "version_mm": cuda_mm,
            "major": str(vtuple(version)[0]),
            # Side by side: every toolkit in its own /usr/local/cuda-X.Y (the distro method links Debian's
            # /usr layout there), /usr/local/cuda points at the resolved one through alternatives.
            "home": f"{prefix.rstrip('/')}/cuda-{cuda_mm}",
        }
    )
    plan.setdefault("redist", {})
    return plan


def cuda_header_wheels(version: Any) -> List[str]:
    """The wheels whose headers compile a program that includes cuda_runtime.h, cuda_fp16.h (nccl.h) or cudnn.h
    without a toolkit: the runtime (cuda_runtime*.h), the crt/ headers (the compiler's wheel up to CUDA 12,
    nvidia-cuda-crt from 13) and CCCL (<nv/target>).
    CUDA 11 and 12 wheels carry a -cuN suffix; CUDA 13's do not."""
    parts = vtuple(version)
    cuda_mm = mm(version)
    suffix = f"-cu{parts[0]}" if parts[0] < 13 else ""
    # CUDA 13 moved crt/ out of the compiler's wheel into nvidia-cuda-crt.
    names = ("runtime", "nvcc", "cccl") if parts[0] < 13 else ("runtime", "crt", "cccl")
    return [f"nvidia-cuda-{name}{suffix}=={cuda_mm}.*" for name in names]
