# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Horovod build picker: the named source patches (horovod.yml ``patches``) and the HOROVOD_* build variables."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..request import Candidate, Context
from ..tables import fw_label
from ..versions import vcmp


def _framework_patch(ctx: Context, c: Candidate, fw: Dict[str, Any], hv: Dict[str, Any], patch: Dict[str, Any]) -> bool:
    if patch["framework"] != ctx.framework or hv["horovod"] not in patch["horovod"]:
        return False
    if vcmp(fw["version"], patch["framework_min"]) < 0:
        return False
    c.reasons["horovod_patches"] = (
        "Horovod {} builds its PyTorch extension as C++14 but {} {} needs C++{}: the '{}' build "
        "change ({}) compiles it with the standard the framework requires "
        "(framework_cxx_standard).".format(
            hv["horovod"], fw_label(ctx.framework), fw["version"], fw["cxx"], patch["name"], patch["upstream"]
        )
    )
    return True


def _compiler_patch(c: Candidate, hv: Dict[str, Any], gcc: int, patch: Dict[str, Any]) -> bool:
    if gcc < patch["gcc_min"] or vcmp(hv["horovod"], patch["fixed_after"]) > 0:
        return False
    if hv["horovod"] not in patch["horovod"]:
        c.warnings.append(
            "Horovod {} predates the upstream fix for GCC >= {} ({}) and the '{}' patch is only verified for {}: "
            "the build may fail with GCC {}".format(
                hv["horovod"], patch["gcc_min"], patch["upstream"], patch["name"], ", ".join(patch["horovod"]), gcc
            )
        )
        return False
    why = "GCC {} builds Horovod {}, which does not compile with GCC >= {} as released: the '{}' patch ({}): {}"
    why = why.format(gcc, hv["horovod"], patch["gcc_min"], patch["name"], patch["upstream"], patch["summary"].strip())
    c.reasons["horovod_patches"] = (c.reasons["horovod_patches"] + " " + why) if "horovod_patches" in c.reasons else why
    return True


def patches(
    ctx: Context, c: Candidate, fw: Optional[Dict[str, Any]], hv: Optional[Dict[str, Any]], gcc: Optional[int]
) -> List[str]:
    """The patches this Horovod needs for this framework release and this compiler, in table order."""
    out: List[str] = []
    if fw is not None and hv is not None:
        for patch in ctx.t["horovod"]["patches"]:
            if "framework" in patch:
                chosen = _framework_patch(ctx, c, fw, hv, patch)
            else:
                chosen = gcc is not None and _compiler_patch(c, hv, gcc, patch)
            if chosen:
                out.append(patch["name"])
    c.reasons.setdefault("horovod_patches", "no build changes are needed.")
    return out


def build_env(
    ctx: Context,
    c: Candidate,
    fw: Optional[Dict[str, Any]],
    hv: Optional[Dict[str, Any]],
    *,
    openmpi: str,
    compiler_env: Dict[str, str],
) -> Dict[str, str]:
    """HOROVOD_* variables (and the compiler variables of the host toolchain picker) for this stack."""
    if fw is None or hv is None:
        c.reasons["horovod_build_env"] = "nothing to build."
        return {}
    spec = ctx.t["horovod"]["build_env"]
    env: Dict[str, str] = {}
    for name in ("pytorch", "tensorflow", "mxnet"):
        if name == ctx.framework:
            env[spec["frameworks"][name]] = "1"
        else:
            env[spec["without"][name]] = "1"
    env["HOROVOD_WITH_MPI"] = "1" if openmpi else "0"
    env["HOROVOD_WITH_GLOO"] = "1"
    if ctx.gpus:
        env.update({k: str(v) for k, v in spec["gpu"].items()})
        env["HOROVOD_BUILD_CUDA_CC_LIST"] = ",".join(sorted({g["sm"].replace(".", "") for g in ctx.gpus}, key=int))
    env.update(compiler_env)
    c.reasons["horovod_build_env"] = "framework {} on, the others off; MPI and Gloo controllers{}{}.".format(
        ctx.framework,
        "; NCCL GPU operations for compute capabilities " + env.get("HOROVOD_BUILD_CUDA_CC_LIST", "")
        if ctx.gpus
        else "; no GPU operations (CPU-only)",
        "; compilers from the host toolchain (host_gcc)" if compiler_env else "",
    )
    return dict(sorted(env.items()))
