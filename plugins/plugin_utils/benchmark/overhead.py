# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report's one-worker comparison (Horovod at one worker against the plain framework, result.json's ``overhead``):
its summary line and its section of report.md.

Pure Python with no Ansible imports. result.py's ``overhead`` makes the entry; report.py adds :func:`overhead_line` to
the summary and :func:`overhead_section` to report.md.
"""

# ruff: noqa: UP031 - printf-style widths, as in report.py

from __future__ import annotations

from typing import Any, Dict, List, Optional


def _num(v: Optional[float], fmt: str = "%.2f") -> str:
    return "-" if v is None else fmt % v


def overhead_line(doc: Dict[str, Any]) -> Optional[str]:
    """The line "Horovod overhead at one worker: ...", or None without a plain-framework run."""
    over = doc.get("overhead")
    if not over:
        return None
    if over.get("overhead_ratio") is None:
        return "Horovod overhead at one worker: - (plain %s %.1f samples/s; no one-worker Horovod run)" % (
            over.get("library", "framework"),
            over["plain_samples_per_s"],
        )
    return "Horovod overhead at one worker: %.2f (Horovod %.1f / plain %s %.1f samples/s%s)" % (
        over["overhead_ratio"],
        over["horovod_1_samples_per_s"],
        over.get("library", "framework"),
        over["plain_samples_per_s"],
        "" if over.get("comparable", True) else "; NOT the same model/batch/device",
    )


def overhead_section(doc: Dict[str, Any]) -> List[str]:
    over = doc.get("overhead")
    if not over:
        return []
    stepwise = over.get("step_ratio_median") is not None
    lines = [
        "## Horovod overhead at one worker",
        "",
        "| run | samples/s |",
        "|---|---:|",
        "| plain %s, one process, no Horovod (%s on %s) | %.1f |"
        % (over.get("library", "framework"), over.get("model"), over.get("device"), over["plain_samples_per_s"]),
        "| Horovod, 1 worker | %s |" % _num(over.get("horovod_1_samples_per_s"), "%.1f"),
        "| **overhead ratio** (Horovod / plain) | **%s** |" % _num(over.get("overhead_ratio")),
    ]
    if stepwise:
        lines.append(
            "| **median step ratio** (plain / Horovod step time; p10-p90 of every pair of steps) | **%s** (%s-%s) |"
            % (_num(over["step_ratio_median"]), _num(over.get("step_ratio_p10")), _num(over.get("step_ratio_p90")))
        )
    return [*lines, "", _overhead_text(over, stepwise), ""]


# (one run each, of before the rounds: the text its report was written with; the rounds' runs: the other)
_OVERHEAD_TEXT = {
    False: (
        "The same training loop (model, batch, image size, steps, device) once through Horovod's DistributedOptimizer "
        "at one worker and once with the framework alone; 1.00 means no overhead.",
        " The two runs are separate processes one after the other: the goal is judged on their median steps, and the "
        "spread says how far single steps move the ratio.",
        " **The two runs did not train the same model/batch/device.**",
    ),
    True: (
        "The same training loop (model, batch, image size, steps, device) through Horovod's DistributedOptimizer at "
        "one worker and with the framework alone (%d and %d runs, each a process; samples/s: their mean); 1.00 means "
        "no overhead.",
        " The runs are separate processes one after the other (the rounds alternate which goes first): the goal is "
        "judged on the median of all their steps, and the spread says how far single steps move the ratio.",
        " **The runs did not all train the same model/batch/device.**",
    ),
}


def _overhead_text(over: Dict[str, Any], stepwise: bool) -> str:
    rounds = bool(over.get("runs"))
    intro, steps, differ = _OVERHEAD_TEXT[rounds]
    text = intro % (over["runs"][1], over["runs"][0]) if rounds else intro
    return text + (steps if stepwise else "") + ("" if over.get("comparable", True) else differ)
