# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host toolchain picker: the GCC that builds Horovod.

nvcc refuses a host GCC newer than its CUDA release supports (``crt/host_config.h``), and Horovod's CMakeLists sets
``CMAKE_CUDA_HOST_COMPILER`` to the C++ compiler, so the compiler of the whole build must be in the CUDA release's
range. The OS's default GCC is used when it fits; otherwise the newest installable ``gcc-N`` that fits
(os.yml ``gcc_available``), exported as CC/CXX/CUDAHOSTCXX/NVCC_CCBIN; otherwise a conflict naming what would work.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..request import Candidate, Context
from ..tables import host_gcc_range
from ..versions import in_range, mm, vtuple

Toolchain = Dict[str, Any]


def _fits(gcc: int, row: Dict[str, Any]) -> bool:
    lo, hi = row.get("gcc_min"), row.get("gcc_max")
    return (lo is None or gcc >= int(lo)) and (hi is None or gcc <= int(hi))


def _range(row: Dict[str, Any]) -> str:
    lo, hi = row.get("gcc_min"), row.get("gcc_max")
    return "GCC {}-{}".format(lo if lo is not None else "any", hi if hi is not None else "current")


def installable(os_row: Dict[str, Any]) -> List[int]:
    """Every GCC major the OS's own archive installs, the default included, oldest first."""
    default = int(os_row["gcc_default"])
    return sorted({default, *(int(g) for g in os_row.get("gcc_available") or [])})


def _compiler(ctx: Context, gcc: int) -> Toolchain:
    spec = ctx.t["host_compiler"]["packages"][ctx.os["family"]]
    cc, cxx = spec["cc"].format(major=gcc), spec["cxx"].format(major=gcc)
    return {
        "host_gcc": str(gcc),
        "gcc": gcc,
        "packages": [p.format(major=gcc) for p in spec["packages"]],
        "env": {"CC": cc, "CXX": cxx, "CUDAHOSTCXX": cxx, "NVCC_CCBIN": cxx},
    }


def _os_has_cuda(os_row: Dict[str, Any], cuda_mm: str) -> bool:
    lo, hi = os_row["cuda_repo"]
    return in_range(cuda_mm, lo, hi) or cuda_mm == os_row.get("distro_cuda")


def what_would_work(ctx: Context, cuda_mm: str) -> str:
    """Other CUDA releases for this OS, and other OSes for this CUDA, whose host GCC range an installable GCC meets."""
    gccs = installable(ctx.os)
    cudas = [
        row["cuda"]
        for row in ctx.t["host_compiler"]["cuda"]
        if any(_fits(g, row) for g in gccs) and _os_has_cuda(ctx.os, row["cuda"])
    ]
    row = host_gcc_range(cuda_mm, ctx.t) or {}
    oses = [
        r["os"]
        for r in ctx.t["os"]["releases"]
        if r["os"] != ctx.os["os"] and _os_has_cuda(r, cuda_mm) and any(_fits(g, row) for g in installable(r))
    ]
    parts = []
    if cudas:
        parts.append("CUDA {} on {}".format(", ".join(sorted(cudas, key=vtuple)[-3:]), ctx.os["os"]))
    if oses:
        parts.append("{} for CUDA {}".format(", ".join(oses), cuda_mm))
    return "use " + " or ".join(parts) if parts else "no known OS and CUDA pairing fits"


def pick(ctx: Context, c: Candidate, cuda: Optional[str]) -> Toolchain:
    """The compiler that builds Horovod: ``host_gcc``, packages to install and compiler variables for the build."""
    default = int(ctx.os["gcc_default"])
    chosen: Toolchain = {"host_gcc": str(default), "gcc": default, "packages": [], "env": {}}
    name = ctx.os["os"]
    if cuda is None:
        c.reasons["host_gcc"] = f"{name}'s default GCC {default} builds Horovod (no CUDA, so no nvcc limit) (os.yml)."
        return chosen
    cuda_mm = mm(cuda)
    if not _os_has_cuda(ctx.os, cuda_mm):
        # The CUDA picker already refuses a CUDA the OS has no packages for; the compiler question is moot.
        c.reasons["host_gcc"] = f"{name}'s default GCC {default} (os.yml); {name} has no CUDA {cuda_mm} packages."
        return chosen
    row = host_gcc_range(cuda_mm, ctx.t)
    if row is None:
        c.warnings.append(
            f"no host-compiler range is known for CUDA {cuda_mm} (host_compiler.yml): {name}'s default GCC {default} "
            "is used unchecked"
        )
        c.reasons["host_gcc"] = f"{name}'s default GCC {default}; CUDA {cuda_mm}'s host-compiler range is unknown."
        return chosen
    if _fits(default, row):
        c.reasons["host_gcc"] = (
            f"{name}'s default GCC {default} is within CUDA {cuda_mm}'s supported host {_range(row)} "
            "(host_compiler.yml)."
        )
        return chosen
    fitting = [g for g in installable(ctx.os) if _fits(g, row)]
    if not fitting:
        c.conflict(
            "host_compiler",
            f"os {name} (os.yml) and CUDA {cuda_mm} (host_compiler.yml)",
            "nvcc of CUDA {} accepts host {} only; {}'s default GCC is {} and its archive installs GCC {}: none fits; "
            "{}".format(
                cuda_mm,
                _range(row),
                name,
                default,
                ", ".join(str(g) for g in installable(ctx.os)),
                what_would_work(ctx, cuda_mm),
            ),
        )
        return chosen
    chosen = _compiler(ctx, max(fitting))
    c.reasons["host_gcc"] = (
        "nvcc of CUDA {} accepts host {} but {}'s default GCC is {}: {} (from the OS archive) build Horovod "
        "and its CUDA kernels (CC, CXX, CUDAHOSTCXX, NVCC_CCBIN in horovod_build_env).".format(
            cuda_mm, _range(row), name, default, " and ".join(chosen["packages"])
        )
    )
    return chosen
