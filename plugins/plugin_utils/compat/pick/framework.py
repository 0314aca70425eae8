# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Framework picker: which framework and Horovod releases and wheel variants to try, and whether a framework
release works with a Horovod release (breakages, minimum, newest known to work)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..request import Candidate, Context
from ..tables import fw_label, fw_releases, known_cuda
from ..versions import mm, vcmp, vprefix, vtuple


def releases(ctx: Context) -> List[Dict[str, Any]]:
    """Framework releases to try, newest first, filtered by a framework_version pin."""
    return [
        r
        for r in fw_releases(ctx.framework, ctx.t)
        if not ctx.fv or vprefix(r["latest"], ctx.fv) or vprefix(r["version"], ctx.fv)
    ]


def horovod_releases(ctx: Context) -> List[Dict[str, Any]]:
    """Horovod releases to try, newest first, filtered by a horovod pin."""
    rows = list(ctx.t["horovod"]["releases"])
    rows.sort(key=lambda r: vtuple(r["horovod"]), reverse=True)
    if ctx.pins["horovod"]:
        rows = [r for r in rows if vprefix(r["horovod"], ctx.pins["horovod"])]
    return rows


def variants(ctx: Context, fw: Optional[Dict[str, Any]], hv: Optional[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Wheel variants to try: cpu without GPUs; else the framework's CUDA builds (stable, known-to-work first)."""
    if not ctx.gpus:
        return [{"variant": "cpu", "cuda": None, "status": "stable", "cudnn": None, "nccl": None, "sm": None}]
    if fw is None:
        newest = max(ctx.t["horovod"]["releases"], key=lambda r: vtuple(r["horovod"]))
        cudas = sorted(
            known_cuda(ctx.t), key=lambda v: (vcmp(v, newest["cuda_known_max"]) > 0, tuple(-x for x in vtuple(v)))
        )
        return [
            {"variant": None, "cuda": c, "status": "stable", "cudnn": None, "nccl": None, "sm": None} for c in cudas
        ]
    known_max = hv.get("cuda_known_max") if hv else None

    def rank(v: Dict[str, Any]) -> Tuple[int, int, Tuple[int, ...]]:
        beyond = 1 if known_max and vcmp(v["cuda"], known_max) > 0 else 0
        experimental = 0 if v.get("status") == "stable" else 1
        return (beyond, experimental, tuple(-x for x in vtuple(v["cuda"])))

    return sorted(fw["variants"], key=rank)


def _breakages(ctx: Context, hv: Dict[str, Any], fv: str) -> List[Dict[str, Any]]:
    return [
        b
        for b in ctx.t["horovod"]["breakages"]
        if b["framework"] == ctx.framework and vcmp(hv["horovod"], b["horovod_max"]) <= 0 and vcmp(fv, b["from"]) >= 0
    ]


def check_horovod(ctx: Context, c: Candidate, fw: Dict[str, Any], hv: Dict[str, Any]) -> None:
    """Conflicts and warnings for this framework release with this Horovod release."""
    label, fv = fw_label(ctx.framework), fw["version"]
    rules = hv["frameworks"][ctx.framework]
    broken = _breakages(ctx, hv, fv)
    for brk in broken:
        c.conflict(
            "framework_version",
            "horovod.yml breakages",
            "{} {} does not work with Horovod {}: {}; {}".format(label, fv, hv["horovod"], brk["reason"], brk["fix"]),
        )
    if vcmp(fv, rules["min"]) < 0:
        c.conflict(
            "framework_version",
            "horovod.yml",
            "Horovod {} needs {} >= {}; {} is older".format(hv["horovod"], label, rules["min"], fv),
        )


def check_known_max(ctx: Context, c: Candidate, fw: Dict[str, Any], hv: Dict[str, Any]) -> None:
    """A framework newer than Horovod is known to work with: refused unless pinned; newer than CI: a warning."""
    label, fv = fw_label(ctx.framework), fw["version"]
    rules = hv["frameworks"][ctx.framework]
    if vcmp(fv, rules["known_max"]) > 0 and not _breakages(ctx, hv, fv):
        msg = "{} {} is newer than the newest known to work with Horovod {} ({}; CI-tested {})".format(
            label, fv, hv["horovod"], rules["known_max"], rules["tested_max"]
        )
        if ctx.fv:
            c.warnings.append(msg + "; pinned, so it is attempted")
        else:
            c.conflict("framework_version", "horovod.yml", msg)
    elif vcmp(fv, rules["tested_max"]) > 0:
        c.warnings.append(
            "{} {} is newer than Horovod {}'s CI-tested {}; known to work up to {}".format(
                label, fv, hv["horovod"], rules["tested_max"], rules["known_max"]
            )
        )


def reasons(
    ctx: Context, c: Candidate, fw: Optional[Dict[str, Any]], hv: Optional[Dict[str, Any]], variant: Dict[str, Any]
) -> None:
    """Why this framework, version, wheel variant and Horovod."""
    if fw is None:
        c.reasons["framework"] = "framework none: no framework and no Horovod build."
        return
    label = fw_label(ctx.framework)
    c.reasons["framework"] = f"requested framework {ctx.framework}."
    c.reasons["framework_version"] = (
        "{} {} is the newest {} release that satisfies every constraint (pinned '{}').".format(
            label, fw["latest"], fw["version"], ctx.fv
        )
        if ctx.fv
        else "{} {} is the newest release known to work with Horovod {} and the rest of the stack.".format(
            label, fw["latest"], hv["horovod"] if hv else "-"
        )
    )
    c.reasons["framework_cuda_variant"] = (
        "CPU-only cluster: the cpu wheel."
        if not ctx.gpus
        else "the {} build of {} {} matches CUDA {}.".format(
            variant["variant"], label, fw["version"], mm(variant["cuda"])
        )
    )
    c.reasons["horovod"] = (
        "pinned horovod {}.".format(ctx.pins["horovod"])
        if ctx.pins["horovod"]
        else "Horovod {} is the newest release that works with {} {}.".format(hv["horovod"], label, fw["version"])
    )
