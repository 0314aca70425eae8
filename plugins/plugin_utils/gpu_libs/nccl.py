# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NCCL install plan: NVIDIA's repository, the distribution's package, or NVIDIA's wheel."""

from __future__ import annotations

from typing import Any, Dict, Iterable

from ._base import PlanError, mm, pick_apt_build, vtuple

NCCL_METHODS = ("repo", "distro", "pip")

# NCCL the distributions package themselves (`apt-cache policy libnccl2 libnccl-dev` in gpucluster/debian:13
# with non-free enabled, 2026-11-23; bookworm has none). Debian builds it against its own CUDA 12 runtime.
DISTRO_NCCL: Dict[str, Dict[str, str]] = {
    "debian13": {"version": "2.22.3", "apt": "2.22.3-1-1", "cuda_major": "12"},
}

# nvidia-nccl-cuXX wheels on the package index (data/compat/nccl.yml): cu11 up to 2.21.5, cu12 from 2.16.2,
# cu13 from 2.27.3.
PIP_RANGES = {"11": ((2, 0, 0), (2, 21, 5)), "12": ((2, 16, 2), None), "13": ((2, 27, 3), None)}


def nccl_apt_version(version: Any, cuda: Any, available: Iterable[str] = ()) -> str:
    """libnccl2's apt version for the resolved NCCL and CUDA: '<nccl>-1+cuda<X.Y>', the build for the CUDA
    minor or, when the repository lacks it, the newest for an older minor of the same major."""
    available = [a for a in available if str(a).strip()]
    if available:
        return pick_apt_build("libnccl2", str(version), str(cuda), available)
    return f"{version}-1+cuda{mm(cuda)}"


def nccl_plan(
    method: str,
    version: Any,
    cuda: Any,
    os_id: str,
    *,
    prefix: str = "/opt/gpucluster",
    available: Iterable[str] = (),
) -> Dict[str, Any]:
    """What the nccl role installs for one NCCL version for the resolved CUDA; PlanError says why it cannot."""
    if method not in NCCL_METHODS:
        raise PlanError(f"unknown install method '{method}' (known: {', '.join(NCCL_METHODS)})")
    version, cuda = str(version).strip(), str(cuda).strip()
    if not version or not cuda:
        raise PlanError(
            "no NCCL or CUDA version: preflight resolved none (gpucluster_stack.nccl/.cuda) and "
            "nccl_version/nccl_cuda_version are empty"
        )
    parts, cuda_major = vtuple(version), str(vtuple(cuda)[0])
    if len(parts) != 3:
        raise PlanError(f"NCCL versions have three components (2.21.5), not '{version}'")
    plan: Dict[str, Any] = {
        "method": method,
        "version": version,
        "cuda_major": cuda_major,
        "packages": [],
        "pins": [],
        "hold": [],
        "pip": "",
        "home": "/usr",
    }
    if method == "repo":
        plan.update(_repo(version, cuda, os_id, available))
    elif method == "distro":
        plan.update(_distro(version, cuda_major, os_id))
    else:
        plan.update(_pip(version, cuda_major, prefix))
    return plan


def _repo(version: str, cuda: str, os_id: str, available: Iterable[str]) -> Dict[str, Any]:
    if os_id.startswith("rhel"):
        rpm_version = nccl_apt_version(version, cuda, available)
        names = ["libnccl", "libnccl-devel"]
        return {"packages": [f"{n}-{rpm_version}" for n in names], "hold": names, "apt_version": rpm_version}
    if not os_id.startswith(("debian", "ubuntu")):
        raise PlanError(f"NVIDIA's repository has no NCCL packages for {os_id}")
    apt_version = nccl_apt_version(version, cuda, available)
    names = ["libnccl2", "libnccl-dev"]
    return {
        "packages": [f"{n}={apt_version}" for n in names],
        "pins": [{"package": n, "version": apt_version} for n in names],
        "hold": names,
        "apt_version": apt_version,
    }


def _distro(version: str, cuda_major: str, os_id: str) -> Dict[str, Any]:
    row = DISTRO_NCCL.get(os_id)
    if row is None:
        known = ", ".join(f"{k} ({v['version']})" for k, v in DISTRO_NCCL.items())
        raise PlanError(f"{os_id} packages no NCCL (known: {known}); use nccl_install_method: pip or repo")
    if version != row["version"]:
        raise PlanError(
            f"{os_id} packages NCCL {row['version']} (libnccl2 {row['apt']}), not {version}; set "
            f"nccl_version: {row['version']}, or nccl_install_method: pip or repo for {version}"
        )
    if cuda_major != row["cuda_major"]:
        raise PlanError(f"{os_id}'s NCCL {row['version']} is built for CUDA {row['cuda_major']}, not CUDA {cuda_major}")
    names = ["libnccl2", "libnccl-dev"]
    return {
        "packages": [f"{n}={row['apt']}" for n in names],
        "pins": [{"package": n, "version": row["apt"]} for n in names],
        "hold": names,
        "apt_version": row["apt"],
    }


def _pip(version: str, cuda_major: str, prefix: str) -> Dict[str, Any]:
    if cuda_major not in PIP_RANGES:
        raise PlanError(f"no nvidia-nccl wheel is published for CUDA {cuda_major} (known: {', '.join(PIP_RANGES)})")
    lo, hi = PIP_RANGES[cuda_major]
    parts = vtuple(version)
    if parts < lo or (hi and parts > hi):
        span = f"{'.'.join(map(str, lo))} .. {'.'.join(map(str, hi)) if hi else 'current'}"
        raise PlanError(f"nvidia-nccl-cu{cuda_major} wheels exist for NCCL {span}, not {version}")
    target = f"{prefix.rstrip('/')}/nccl-{version}-cu{cuda_major}"
    return {
        "pip": f"nvidia-nccl-cu{cuda_major}=={version}",
        "pip_name": f"nvidia-nccl-cu{cuda_major}",
        "target": target,
        # The wheel's tree has include/nccl.h and lib/libnccl.so.2; the role adds lib/libnccl.so so the
        # directory serves as HOROVOD_NCCL_HOME (with HOROVOD_NCCL_LINK=SHARED).
        "home": f"{target}/nvidia/nccl",
    }


def nccl_location(plan: Dict[str, Any], current_link: str = "") -> Dict[str, Any]:
    """Where the nccl role put NCCL, as it publishes it (fact gpucluster_nccl; the horovod role builds against it).

    ``home`` has ``include/nccl.h`` and ``lib/libnccl.so`` (Horovod's HOROVOD_NCCL_HOME): the wheel's tree through
    the role's stable link for pip (``current_link``, else the version's own directory), ``/usr`` for the packages
    (the header in /usr/include, the library in the system's library directory, which the linker searches). ``link``
    is how Horovod links it: SHARED (the wheel has no static library; the training process and Horovod then share
    the one libnccl.so.2 the loader finds)."""
    home = plan.get("home") or "/usr"
    if plan.get("method") == "pip" and current_link:
        home = current_link
    return {"version": str(plan.get("version") or ""), "method": plan.get("method"), "home": home, "link": "SHARED"}
