# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CUDA picker: the framework wheel's CUDA (or the pin), checked against every GPU, the OS and Horovod."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..request import Candidate, Context
from ..tables import fw_label, fw_releases
from ..versions import in_range, mm, vcmp, vtuple


def pin_mismatch(ctx: Context, c: Candidate, fw: Optional[Dict[str, Any]], variant: Dict[str, Any]) -> bool:
    """True (and a conflict) when a cuda pin is not this framework wheel's CUDA: the candidate stops here."""
    pin = ctx.pins["cuda"]
    if fw is None or not pin or mm(pin) == variant["cuda"]:
        return False
    label = fw_label(ctx.framework)
    wheel_cudas = " and ".join(v["cuda"] for v in fw["variants"])
    matching = [
        r["version"] for r in fw_releases(ctx.framework, ctx.t) if any(v["cuda"] == mm(pin) for v in r["variants"])
    ]
    alt = (
        "{} versions with CUDA {} builds: {}".format(label, mm(pin), ", ".join(sorted(matching, key=vtuple)))
        if matching
        else f"no {label} release has CUDA {mm(pin)} builds"
    )
    c.conflict(
        "cuda",
        "pin cuda",
        "{} {} wheels exist for CUDA {}; pinned cuda {} — unpin cuda, or use {}".format(
            label, fw["version"], wheel_cudas, pin, alt
        ),
    )
    return True


def _gpu_conflicts(ctx: Context, c: Candidate, fw: Optional[Dict[str, Any]], variant: Dict[str, Any], cuda_mm: str):
    label = fw_label(ctx.framework)
    for g in ctx.gpus:
        src = "GPU {} (sm_{}, {})".format(g["input"], g["sm"].replace(".", ""), g["arch"])
        if vcmp(cuda_mm, g["min_cuda"]) < 0:
            c.conflict(
                "cuda",
                src,
                "{} needs CUDA >= {}; CUDA {} cannot target it (gpu_arch.yml)".format(src, g["min_cuda"], cuda_mm),
            )
        if g.get("max_cuda") and vcmp(cuda_mm, g["max_cuda"]) > 0:
            c.conflict(
                "cuda",
                src,
                "{} is supported up to CUDA {}; CUDA {} dropped it (gpu_arch.yml)".format(src, g["max_cuda"], cuda_mm),
            )
        if not _sm_covered(g["sm"], variant.get("sm")):
            c.conflict(
                "cuda",
                src,
                "{} {} {} wheels carry kernels for sm {} only, not {} ({})".format(
                    label,
                    fw["version"] if fw else "",
                    variant["variant"],
                    ", ".join(variant["sm"]),
                    src,
                    fw["table"] if fw else "",
                ),
            )
        if ctx.framework == "mxnet" and vcmp(g["sm"], ctx.t["mxnet"]["max_sm"]) > 0:
            c.conflict(
                "framework",
                src,
                "no MXNet build targets {} (newest is sm_{}; mxnet.yml)".format(
                    src, ctx.t["mxnet"]["max_sm"].replace(".", "")
                ),
            )


def _sm_covered(sm: str, wheel_sms: Optional[List[str]]) -> bool:
    """SASS for X.y runs on X.z (z >= y); "+PTX" entries JIT-compile for any newer SM."""
    if not wheel_sms:
        return True
    for entry in wheel_sms:
        ptx = entry.endswith("+PTX")
        base = entry.replace("+PTX", "")
        if ptx and vcmp(sm, base) >= 0:
            return True
        if vtuple(base)[0] == vtuple(sm)[0] and vcmp(sm, base) >= 0:
            return True
    return False


def _os_check(ctx: Context, c: Candidate, cuda_mm: str) -> None:
    lo, hi = ctx.os["cuda_repo"]
    if not in_range(cuda_mm, lo, hi) and cuda_mm != ctx.os.get("distro_cuda"):
        distro = " and {} from the distribution".format(ctx.os["distro_cuda"]) if ctx.os.get("distro_cuda") else ""
        c.conflict(
            "cuda",
            "os {} (os.yml)".format(ctx.os["os"]),
            "{} has CUDA {}-{} in NVIDIA's repository{}, not CUDA {}".format(
                ctx.os["os"], lo, hi or "current", distro, cuda_mm
            ),
        )
    elif not in_range(cuda_mm, lo, hi):
        c.reasons["cuda"] += " {} packages CUDA {} itself (not in NVIDIA's repository for it).".format(
            ctx.os["os"], cuda_mm
        )


def pick(
    ctx: Context, c: Candidate, fw: Optional[Dict[str, Any]], hv: Optional[Dict[str, Any]], variant: Dict[str, Any]
) -> str:
    """The CUDA of this candidate (pin or wheel variant), with every GPU, OS and Horovod constraint checked."""
    pin = ctx.pins["cuda"]
    cuda = variant["cuda"]
    if pin:
        cuda = pin if len(vtuple(pin)) > 2 else mm(pin)
    cuda_mm = mm(cuda)
    label = fw_label(ctx.framework)
    if fw is not None:
        c.reasons["cuda"] = (
            "{} {} is published for CUDA {} ({} variant {}); the system toolkit matches it so "
            "Horovod's GPU ops build against the same CUDA.".format(
                label, fw["version"], cuda_mm, variant.get("status"), variant["variant"]
            )
        )
    else:
        c.reasons["cuda"] = (
            f"pinned cuda {cuda}." if pin else f"CUDA {cuda_mm} is the newest toolkit every GPU and the OS support."
        )
    if variant.get("status") == "experimental":
        c.warnings.append(
            "{} {}'s {} wheels are marked experimental upstream".format(
                label, fw["version"] if fw else "", variant["variant"]
            )
        )
    _gpu_conflicts(ctx, c, fw, variant, cuda_mm)
    _os_check(ctx, c, cuda_mm)
    if hv is not None and hv.get("cuda_known_max") and vcmp(cuda_mm, hv["cuda_known_max"]) > 0:
        msg = "CUDA {} is newer than the newest known to build Horovod {} ({}; CI-tested {})".format(
            cuda_mm, hv["horovod"], hv["cuda_known_max"], hv["cuda_tested_max"]
        )
        if pin:
            c.warnings.append(msg + "; pinned, so it is attempted")
        else:
            c.conflict("cuda", "horovod.yml", msg)
    return cuda
