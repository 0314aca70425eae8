# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cuDNN install plan: NVIDIA's repository, NVIDIA's redistributable archive, or NVIDIA's wheel in a venv."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

from ._base import PlanError, mm, pick_apt_build, vtuple

CUDNN_METHODS = ("repo", "redist", "pip", "distro")

# Debian's nvidia-cudnn (`apt-cache show nvidia-cudnn` in gpucluster/debian:12 and :13, 2026-11-23):
# bookworm 8.5.0.96~cuda11.7, trixie 9.0.0.312~cuda12 (Depends: curl | wget, nvidia-cuda-dev).
DISTRO_REFUSAL = (
    "the distributions package no cuDNN: Debian's nvidia-cudnn is an installer script that downloads cuDNN from "
    "NVIDIA while apt runs (nothing apt can pin, hold or check) and depends on the distribution's whole CUDA "
    "toolkit (nvidia-cuda-dev); use cudnn_install_method: pip, redist or repo"
)

# The newest cuDNN built for CUDA 11 (data/compat/cudnn.yml: 9.10.2 is the last with CUDA 11 builds;
# PyPI nvidia-cudnn-cu11 tops out at 9.10.2.21).
_LAST_FOR_CUDA11 = (9, 10, 2)
_PIP_MAJORS = ("11", "12", "13")


def _version_req(version: str) -> str:
    """pip: the exact wheel for four components (9.1.0.70), any build of a shorter version (9.1.0.*)."""
    return f"=={version}" if len(vtuple(version)) >= 4 else f"=={version}.*"


def cudnn_plan(
    method: str,
    version: Any,
    cuda: Any,
    os_id: str,
    *,
    arch: str = "x86_64",
    prefix: str = "/usr/local",
    venv: str = "",
    available: Iterable[str] = (),
) -> Dict[str, Any]:
    """What the cudnn role installs for one cuDNN version built for the resolved CUDA; PlanError says why not."""
    if method not in CUDNN_METHODS:
        raise PlanError(f"unknown install method '{method}' (known: {', '.join(CUDNN_METHODS)})")
    if method == "distro":
        raise PlanError(DISTRO_REFUSAL)
    version, cuda = str(version).strip(), str(cuda).strip()
    if not version or not cuda:
        raise PlanError(
            "no cuDNN or CUDA version: preflight resolved none (gpucluster_stack.cudnn/.cuda) and "
            "cudnn_version/cudnn_cuda_version are empty"
        )
    parts, cuda_major = vtuple(version), str(vtuple(cuda)[0])
    if len(parts) < 2:
        raise PlanError(f"cuDNN version '{version}' needs at least major.minor")
    if cuda_major == "11" and parts[:3] > _LAST_FOR_CUDA11:
        raise PlanError(f"cuDNN {version} has no CUDA 11 build (the last is 9.10.2); use cuDNN <= 9.10.2 or CUDA 12")
    plan: Dict[str, Any] = {
        "method": method,
        "version": version,
        "major": str(parts[0]),
        "cuda_major": cuda_major,
        "packages": [],
        "pins": [],
        "hold": [],
        "pip": "",
        "redist": {},
    }
    if method == "repo":
        plan.update(_repo(version, cuda, os_id, available=list(available)))
    elif method == "redist":
        if len(parts) < 3:
            raise PlanError(f"cuDNN redistributable manifests name a release (9.1.0); '{version}' does not")
        release = ".".join(str(p) for p in parts[:3])
        plan["redist"] = {
            "release": release,
            "manifest": f"redistrib_{release}.json",
            "component": "cudnn",
            "variant": f"cuda{cuda_major}",
            "platform": {"x86_64": "linux-x86_64", "aarch64": "linux-sbsa"}.get(arch, f"linux-{arch}"),
        }
        plan["home"] = f"{prefix.rstrip('/')}/cudnn-{version}-cuda{cuda_major}"
    else:
        if cuda_major not in _PIP_MAJORS:
            raise PlanError(
                f"no nvidia-cudnn wheel is published for CUDA {cuda_major} (known: {', '.join(_PIP_MAJORS)})"
            )
        if not venv.startswith("/"):
            raise PlanError(f"the pip method installs into a venv given by an absolute path, not '{venv}'")
        plan["pip"] = f"nvidia-cudnn-cu{cuda_major}{_version_req(version)}"
        plan["pip_name"] = f"nvidia-cudnn-cu{cuda_major}"
        plan["home"] = ""  # <venv>/lib/pythonX.Y/site-packages/nvidia/cudnn, found on the host after install
    return plan


def _repo(version: str, cuda: str, os_id: str, *, available) -> Dict[str, Any]:
    parts, cuda_major = vtuple(version), str(vtuple(cuda)[0])
    if not os_id.startswith(("debian", "ubuntu", "rhel")):
        raise PlanError(f"NVIDIA's repository has no cuDNN packages for {os_id}")
    rpm = os_id.startswith("rhel")
    if parts[0] >= 9:
        # cuDNN 9: one package per CUDA major in the name, the version without a CUDA suffix (9.1.0.70-1).
        names = [
            f"libcudnn9-cuda-{cuda_major}",
            f"libcudnn9-devel-cuda-{cuda_major}" if rpm else f"libcudnn9-dev-cuda-{cuda_major}",
        ]
        headers = f"libcudnn9-headers-cuda-{cuda_major}"
        exact = f"{version}-1" if len(parts) >= 4 else ""
        pin = exact or f"{version}.*"
        return {
            "packages": [f"{n}={exact}" if exact and not rpm else n for n in names],
            "pins": [{"package": n, "version": pin} for n in [*names, headers]],
            "hold": names,
            "home": "/usr",
        }
    if parts[0] == 8:
        # cuDNN 8: libcudnn8=8.9.7.29-1+cuda12.2, built per CUDA minor like NCCL.
        if available:
            apt_version = pick_apt_build("libcudnn8", version, cuda, available)
        elif len(parts) >= 4:
            apt_version = f"{version}-1+cuda{mm(cuda)}"
        else:
            raise PlanError(f"cuDNN 8 packages need the full version (8.9.7.29), not '{version}'")
        names = ["libcudnn8", "libcudnn8-devel" if rpm else "libcudnn8-dev"]
        return {
            "packages": [f"{n}={apt_version}" for n in names] if not rpm else names,
            "pins": [{"package": n, "version": apt_version} for n in names],
            "hold": names,
            "home": "/usr",
        }
    raise PlanError(f"cuDNN {version} is older than the repository's packaging the role knows (8.x, 9.x)")


def cudnn_expected(version: Any) -> Optional[str]:
    """The part of the resolved version cudnnGetVersion() can report (major.minor.patch)."""
    return ".".join(str(p) for p in vtuple(version)[:3])
