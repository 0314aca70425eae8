# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cuDNN picker: the pin, else the framework wheel's cuDNN, else the newest release for the CUDA and GPUs."""

from __future__ import annotations

from typing import Any, Dict, Optional

from ..request import Candidate, Context
from ..tables import cudnn_rows, fw_label
from ..versions import in_range, mm, vcmp


def _supports(ctx: Context, row: Dict[str, Any], cuda_mm: str) -> Optional[str]:
    if not any(in_range(cuda_mm, lo, hi) for lo, hi in row["cuda"]):
        return "cuDNN {} is not built for CUDA {} (cudnn.yml)".format(row["cudnn"], cuda_mm)
    for g in ctx.gpus:
        if vcmp(g["sm"], row["sm_min"]) < 0:
            return "cuDNN {} supports sm >= {}; GPU {} is sm_{} (cudnn.yml)".format(
                row["cudnn"], row["sm_min"], g["input"], g["sm"].replace(".", "")
            )
    return None


def _gpu_limits(ctx: Context, version: str) -> Optional[str]:
    for g in ctx.gpus:
        if g.get("max_cudnn") and vcmp(mm(version), g["max_cudnn"]) > 0:
            return "GPU {} ({}) is supported by cuDNN <= {}, not {} (gpu_arch.yml)".format(
                g["input"], g["arch"], g["max_cudnn"], version
            )
        if g.get("min_cudnn") and vcmp(mm(version), g["min_cudnn"]) < 0:
            return "GPU {} ({}) needs cuDNN >= {}, not {} (gpu_arch.yml)".format(
                g["input"], g["arch"], g["min_cudnn"], version
            )
    return None


def pick(
    ctx: Context, c: Candidate, fw: Optional[Dict[str, Any]], variant: Dict[str, Any], cuda_mm: str
) -> Optional[str]:
    """The cuDNN of this candidate, or None with a conflict."""
    pin = ctx.pins["cudnn"]
    if pin:
        row = cudnn_rows(pin, ctx.t)[0]
        problem = _supports(ctx, row, cuda_mm) or _gpu_limits(ctx, pin)
        if problem:
            c.conflict("cudnn", "pin cudnn", f"pinned cudnn {pin}: {problem}")
        if variant.get("cudnn") and mm(variant["cudnn"]) != mm(pin):
            c.warnings.append(
                "pinned cudnn {} differs from the cuDNN {} {} {} was built with".format(
                    pin, variant["cudnn"], fw_label(ctx.framework), fw["version"] if fw else ""
                )
            )
        c.reasons["cudnn"] = f"pinned cudnn {pin}."
        return pin
    if variant.get("cudnn"):
        chosen = str(variant["cudnn"])
        problem = _gpu_limits(ctx, chosen)
        if problem:
            c.conflict("cudnn", "{} ({})".format(fw["table"], variant["variant"]), problem)
        c.reasons["cudnn"] = "{} {} ({}) is built and tested with cuDNN {}; the system cuDNN matches it.".format(
            fw_label(ctx.framework), fw["version"], variant["variant"], chosen
        )
        return chosen
    for row in ctx.t["cudnn"]["releases"]:
        if _supports(ctx, row, cuda_mm) is None and _gpu_limits(ctx, row["cudnn"]) is None:
            c.reasons["cudnn"] = (
                "cuDNN {} is the newest release built for CUDA {} that supports every GPU (cudnn.yml).".format(
                    row["cudnn"], cuda_mm
                )
            )
            return row["cudnn"]
    c.conflict("cudnn", "cudnn.yml", f"no cuDNN release supports CUDA {cuda_mm} and every GPU")
    return None
