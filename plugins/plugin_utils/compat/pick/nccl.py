# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NCCL picker: the pin, else the framework wheel's NCCL, else NVIDIA's pairing for the CUDA; raised to the
newest GPU's floor."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from ..request import Candidate, Context
from ..tables import fw_label, nccl_row
from ..versions import vcmp, vtuple


def _floor(ctx: Context) -> Tuple[Optional[str], Optional[Dict[str, Any]]]:
    floor, floor_gpu = None, None
    for g in ctx.gpus:
        if g.get("min_nccl") and (floor is None or vcmp(g["min_nccl"], floor) > 0):
            floor, floor_gpu = g["min_nccl"], g
    return floor, floor_gpu


def _pinned(ctx: Context, c: Candidate, pin: str, major: int) -> str:
    row = nccl_row(pin, ctx.t)
    floor, floor_gpu = _floor(ctx)
    if major not in row["cuda_majors"]:
        c.conflict(
            "nccl",
            "pin nccl",
            "pinned nccl {} is built for CUDA {}, not CUDA {} (nccl.yml)".format(
                pin, "/".join(str(m) for m in row["cuda_majors"]), major
            ),
        )
    if floor and vcmp(pin, floor) < 0:
        c.conflict(
            "nccl",
            "GPU {}".format(floor_gpu["input"]),
            "GPU {} ({}) needs NCCL >= {}; pinned nccl {}".format(floor_gpu["input"], floor_gpu["arch"], floor, pin),
        )
    c.reasons["nccl"] = f"pinned nccl {pin}."
    return pin


def _default(ctx: Context, fw: Optional[Dict[str, Any]], variant: Dict[str, Any], cuda_mm: str, major: int):
    if variant.get("nccl"):
        chosen = str(variant["nccl"])
        return chosen, "{} {} ({}) bundles NCCL {}; the system NCCL Horovod links matches it.".format(
            fw_label(ctx.framework), fw["version"], variant["variant"], chosen
        )
    paired = ctx.t["nccl"]["paired_with_cuda"]
    keys = [k for k in paired if vtuple(k)[0] == major and vcmp(k, cuda_mm) <= 0]
    if keys:
        key = max(keys, key=vtuple)
        return paired[key], f"NVIDIA pairs NCCL {paired[key]} with CUDA {key} (nccl.yml)."
    return None, ""


def pick(
    ctx: Context,
    c: Candidate,
    fw: Optional[Dict[str, Any]],
    variant: Dict[str, Any],
    cuda_mm: str,
    *,
    hv: Optional[Dict[str, Any]],
) -> Optional[str]:
    """The NCCL of this candidate, or None with a conflict."""
    major = vtuple(cuda_mm)[0]
    pin = ctx.pins["nccl"]
    if pin:
        return _pinned(ctx, c, pin, major)
    chosen, why = _default(ctx, fw, variant, cuda_mm, major)
    if chosen is None:
        c.conflict("nccl", "nccl.yml", f"no NCCL release is known for CUDA {cuda_mm}")
        return None
    floor, floor_gpu = _floor(ctx)
    if floor and vcmp(chosen, floor) < 0:
        ups = sorted(
            (r["nccl"] for r in ctx.t["nccl"]["releases"] if major in r["cuda_majors"] and vcmp(r["nccl"], floor) >= 0),
            key=vtuple,
        )
        if not ups:
            c.conflict(
                "nccl",
                "GPU {}".format(floor_gpu["input"]),
                f"GPU {floor_gpu['input']} ({floor_gpu['arch']}) needs NCCL >= {floor}, none is built for CUDA {major}",
            )
            return None
        why = "GPU {} ({}) needs NCCL >= {}, so NCCL {} instead of {}.".format(
            floor_gpu["input"], floor_gpu["arch"], floor, ups[0], chosen
        )
        chosen = ups[0]
    c.reasons["nccl"] = why
    if hv is not None and vcmp(chosen, hv["nccl_tested_max"]) > 0:
        c.warnings.append(
            "NCCL {} is newer than Horovod {}'s CI-tested {}; Horovod links NCCL statically, so "
            "rebuild it whenever NCCL changes".format(chosen, hv["horovod"], hv["nccl_tested_max"])
        )
    return chosen
