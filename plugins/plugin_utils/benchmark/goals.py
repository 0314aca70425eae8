# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark comparison held against its goals (summary.goals of the combined result; issue 37).

Pure Python with no Ansible imports; result.combine calls :func:`goals` with its comparison rows and overhead.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

# The comparison's goals (issue 37; docs/performance.md): Horovod against the peer library at large messages and
# at small ones (4 KiB to 256 KiB), and Horovod at one worker against the plain framework.
GOAL_RATIO_LARGE = 0.95
GOAL_RATIO_SMALL = 0.8
GOAL_SMALL_BYTES = (4 * 1024, 256 * 1024)
GOAL_OVERHEAD = 0.95


def _goal(name: str, target: float, rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The row with the lowest ratio decides; met when its ratio reaches the target; within_spread when the
    target lies inside that row's p10-p90 (a paired row): the gap, or the margin, is not larger than the noise."""
    rows = [c for c in rows if c["ratio"] is not None]
    worst = min(rows, key=lambda c: c["ratio"], default=None)
    if worst is None:
        return {"name": name, "target": target, "value": None, "p10": None, "p90": None, "met": None}
    p10, p90 = worst.get("ratio_p10"), worst.get("ratio_p90")
    entry = {
        "name": name,
        "target": target,
        "value": worst["ratio"],
        "bytes": worst["bytes"],
        "p10": p10,
        "p90": p90,
        "met": worst["ratio"] >= target,
        "within_spread": p10 is not None and p90 is not None and p10 <= target <= p90,
    }
    return entry


def goals(comparison: List[Dict[str, Any]], over: Optional[Dict[str, Any]], large_bytes: int) -> List[Dict[str, Any]]:
    """The comparison held against the goals (GOAL_*): the worst size of each range, None where not measured."""
    lo, hi = GOAL_SMALL_BYTES
    large = [c for c in comparison if c["bytes"] >= large_bytes]
    small = [c for c in comparison if lo <= c["bytes"] <= hi]
    out = [
        _goal("Horovod / peer at >= 64 MiB", GOAL_RATIO_LARGE, large),
        _goal("Horovod / peer from 4 KiB to 256 KiB", GOAL_RATIO_SMALL, small),
    ]
    over = over or {}
    # The median steps' ratio with its spread where both runs recorded step times, else the two runs' mean samples/s.
    stepwise = over.get("step_ratio_median") is not None and over.get("overhead_ratio") is not None
    ratio = over.get("step_ratio_median") if stepwise else over.get("overhead_ratio")
    p10, p90 = (over.get("step_ratio_p10"), over.get("step_ratio_p90")) if stepwise else (None, None)
    out.append(
        {
            "name": "Horovod at one worker / plain framework",
            "target": GOAL_OVERHEAD,
            "value": ratio,
            "p10": p10,
            "p90": p90,
            "met": None if ratio is None else ratio >= GOAL_OVERHEAD,
            "within_spread": p10 is not None and p90 is not None and p10 <= GOAL_OVERHEAD <= p90,
            "basis": "median step" if stepwise else "samples/s",
        }
    )
    return out
