# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Python picker: which interpreters to try, and the framework's and Horovod's Python ranges."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..request import Candidate, Context
from ..tables import fw_label
from ..versions import in_range, vtuple


def candidates(ctx: Context) -> List[Tuple[str, str]]:
    """(python, reason) pairs in preference order: a pin, else the OS's python3, then vendor interpreters."""
    if ctx.python:
        return [(ctx.python, f"pinned python {ctx.python}")]
    out = [(ctx.os["python"], "{}'s python3 is {}".format(ctx.os["os"], ctx.os["python"]))]
    for p in sorted(ctx.os.get("python_available") or [], key=vtuple, reverse=True):
        out.append((p, "python {} is the newest {} vendor interpreter the framework supports".format(p, ctx.os["os"])))
    return out


def alternatives(ctx: Context) -> List[str]:
    """Interpreters a refusal may suggest installing next to the OS's python3 (os.yml ``suggest_python``)."""
    return [str(p) for p in ctx.t["os"]["suggest_python"] if str(p) != ctx.os["python"]]


def pick(ctx: Context, c: Candidate, python: Tuple[str, str]) -> str:
    """Record why this interpreter; warn when a pinned one is not the OS's."""
    py, why = python
    c.reasons["python"] = why + "."
    if ctx.python and ctx.python != ctx.os["python"] and ctx.python not in (ctx.os.get("python_available") or []):
        c.warnings.append(
            "python {} is not {}'s python3 ({}): the horovod role must find that interpreter".format(
                ctx.python, ctx.os["os"], ctx.os["python"]
            )
        )
    return py


def check_ranges(ctx: Context, c: Candidate, fw: Dict[str, Any], hv: Optional[Dict[str, Any]], py: str) -> None:
    """Conflicts when the framework release or Horovod does not support this Python."""
    lo, hi = fw["python"]
    if not in_range(py, lo, hi):
        src = "pin python" if ctx.python else "os {}".format(ctx.os["os"])
        eol = ""
        if ctx.framework == "tensorflow" and str(fw["version"]).split(".", maxsplit=1)[0] == "1":
            # The seed write-ups train with TF 1.12: say why no 1.x can come back on a current OS.
            eol = (
                "; TensorFlow 1.x is end of life: 1.15 (October 2019) was its last release and no 1.x wheel"
                " exists for Python 3.8 or newer"
            )
        c.conflict(
            "python",
            src,
            "{} {} supports Python {}-{}, not {} ({}; {}){}".format(
                fw_label(ctx.framework), fw["version"], lo, hi, py, fw["table"], src, eol
            ),
        )
    if hv is not None:
        hv_lo, hv_hi = hv["python"]
        if not in_range(py, hv_lo, hv_hi):
            c.conflict(
                "python",
                "horovod.yml",
                "Horovod {} builds with Python {}-{}, not {}".format(hv["horovod"], hv_lo, hv_hi, py),
            )


def check_tested(c: Candidate, hv: Dict[str, Any], py: str) -> None:
    """Warn when Horovod's CI never tested this Python."""
    if not (hv["python"][0] <= py and in_range(py, None, (hv.get("python_tested") or [None, None])[1])):
        c.warnings.append(
            "python {} is outside Horovod {}'s CI-tested Python {}".format(
                py, hv["horovod"], "-".join(hv.get("python_tested") or [])
            )
        )
