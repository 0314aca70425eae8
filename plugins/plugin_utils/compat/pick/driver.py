# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Driver and kernel-module picker: the driver floor of the CUDA, the branch, and open vs proprietary modules."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from ..lookups import min_driver_for_cuda
from ..request import Candidate, Context
from ..tables import branch_max_cuda, branch_row
from ..versions import vcmp, vtuple


def pick_branch(required: int, ceiling: Optional[int], t: Dict[str, Any]) -> Tuple[Optional[int], str]:
    """The newest LTSB, else supported, else any branch in [required, ceiling]."""
    rows = [
        r
        for r in t["cuda_driver"]["branches"]
        if r["branch"] >= required and (ceiling is None or r["branch"] <= ceiling)
    ]
    if not rows:
        return None, "no known branch fits."
    for group, why in (
        ([r for r in rows if r.get("status") == "supported" and r.get("type") == "LTSB"], "long-term support"),
        ([r for r in rows if r.get("status") == "supported"], "supported"),
        (rows, "end-of-life but the newest the GPUs allow"),
    ):
        if group:
            best = max(group, key=lambda r: r["branch"])
            limit = f" (the GPUs' last branch is R{ceiling})" if ceiling else ""
            return best["branch"], (
                f"R{best['branch']} is the newest {why} branch that runs the chosen CUDA{limit} (cuda_driver.yml)."
            )
    return None, "no known branch fits."  # pragma: no cover


def _ceiling_conflicts(ctx: Context, c: Candidate, cuda: str, driver_min: str, required: int) -> Optional[int]:
    ceilings = [g for g in ctx.gpus if g.get("last_driver_branch")]
    ceiling = min((g["last_driver_branch"] for g in ceilings), default=None)
    if ceiling is not None and required > ceiling:
        for g in ceilings:
            if g["last_driver_branch"] < required:
                c.conflict(
                    "driver_branch",
                    "GPU {} ({})".format(g["input"], g["arch"]),
                    "GPU {} ({}) cannot use a driver newer than R{}, but CUDA {} needs >= {} (R{}); "
                    "use a CUDA <= {} stack".format(
                        g["input"],
                        g["arch"],
                        g["last_driver_branch"],
                        cuda,
                        driver_min,
                        required,
                        branch_max_cuda(g["last_driver_branch"], ctx.t),
                    ),
                )
    return ceiling


def pick(ctx: Context, c: Candidate, cuda: str) -> Tuple[str, int, bool]:
    """(driver_min, driver_branch, driver_upgrade_required) for this CUDA, the GPUs, the pin and the installed
    driver."""
    t = ctx.t
    driver_min = min_driver_for_cuda(cuda, tables=t)
    required = vtuple(driver_min)[0]
    c.reasons["driver_min"] = (
        f"CUDA {cuda} needs driver >= {driver_min} (cuda_driver.yml, NVIDIA toolkit release notes)."
    )
    ceiling = _ceiling_conflicts(ctx, c, cuda, driver_min, required)
    branch = None
    upgrade = False
    bpin = ctx.pins["driver_branch"]
    if bpin is not None:
        if bpin < required:
            c.conflict(
                "driver_branch",
                "pin driver_branch",
                f"pinned driver_branch {bpin} is older than CUDA {cuda} needs (>= {driver_min}, R{required})",
            )
        branch = bpin
        c.reasons["driver_branch"] = f"pinned driver_branch {bpin}."
    if ctx.driver:
        if vcmp(ctx.driver, driver_min) >= 0:
            if branch is None:
                branch = vtuple(ctx.driver)[0]
                c.reasons["driver_branch"] = (
                    f"the installed driver {ctx.driver} already satisfies CUDA {cuda} (>= {driver_min})."
                )
        else:
            upgrade = True
            c.reasons["driver_upgrade_required"] = (
                f"the installed driver {ctx.driver} is older than CUDA {cuda} needs ({driver_min})."
            )
    if branch is None:
        branch, why = pick_branch(required, ceiling, t)
        c.reasons["driver_branch"] = why
        if branch is None:
            branch = required
    row = branch_row(branch, t)
    if row and row.get("status") == "eol":
        c.warnings.append(f"driver branch R{branch} is end of life at NVIDIA")
    if "driver_upgrade_required" not in c.reasons:
        c.reasons["driver_upgrade_required"] = (
            "no installed driver reported." if not ctx.driver else f"the installed driver {ctx.driver} is new enough."
        )
    return driver_min, branch, upgrade


def kernel_module(ctx: Context, c: Candidate, branch: int) -> str:
    """'open' or 'proprietary': what every GPU can use, else NVIDIA's default for the branch."""
    needs_prop = [g for g in ctx.gpus if g.get("kernel_module") == "proprietary"]
    needs_open = [g for g in ctx.gpus if g.get("open_module_required")]
    default_from = ctx.t["cuda_driver"]["open_kernel_module_default_branch"]
    if needs_prop and needs_open:
        c.conflict(
            "kernel_module",
            "GPU {} and GPU {}".format(needs_prop[0]["input"], needs_open[0]["input"]),
            "GPU {} ({}) needs the proprietary kernel module and GPU {} ({}) the open one; split the cluster".format(
                needs_prop[0]["input"], needs_prop[0]["arch"], needs_open[0]["input"], needs_open[0]["arch"]
            ),
        )
    if needs_prop:
        c.reasons["kernel_module"] = "{} ({}) is older than Turing: the open kernel modules do not support it.".format(
            needs_prop[0]["input"], needs_prop[0]["arch"]
        )
        return "proprietary"
    if needs_open:
        c.reasons["kernel_module"] = "{} ({}) must use the open kernel modules.".format(
            needs_open[0]["input"], needs_open[0]["arch"]
        )
        return "open"
    if branch >= default_from:
        c.reasons["kernel_module"] = (
            f"every GPU is Turing or newer and R{branch} >= R{default_from}, "
            "where the open modules are NVIDIA's default."
        )
        return "open"
    c.reasons["kernel_module"] = f"R{branch} predates the open modules being the default (R{default_from})."
    return "proprietary"
