# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nccl-tests' output (all_reduce_perf & co.) parsed into rows and its summary lines (pure Python, no Ansible
imports); result.py combines the result with Horovod's."""

# ruff: noqa: UP031 - printf-style version and count formats, as in result.py
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence


class NcclTestsError(ValueError):
    """The nccl-tests output cannot be read; the message says which and why."""


# ------------------------------------------------------------------ nccl-tests
# Open MPI's --tag-output prefix ("[1,0]<stdout>:") in front of a line.
_MPI_TAG = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:")
_NCCL_VERSION = re.compile(r"^#\s*nccl-tests version (\S+) nccl-headers=(\d+) nccl-library=(\d+)")
_NCCL_STARTING = re.compile(r"^#\s*Collective test starting:\s*(\S+)")
_NCCL_RANK = re.compile(
    r"^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s+(.*?)\s*$"
)
_NCCL_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
_NCCL_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)")
# The columns of a result row as nccl-tests 2.x prints them (src/util.cu writeResultHeader) when no header is seen.
_NCCL_COLUMNS = ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                 "time", "algbw", "busbw", "#wrong"]  # fmt: skip


def nccl_version_text(code: Any) -> Optional[str]:
    """NCCL_VERSION_CODE -> "2.28.9" (major*10000+minor*100+patch since 2.9, major*1000+minor*100+patch before)."""
    try:
        code = int(code)
    except (TypeError, ValueError):
        return None
    if code <= 0:
        return None
    if code >= 20900:
        return "%d.%d.%d" % (code // 10000, code // 100 % 100, code % 100)
    return "%d.%d.%d" % (code // 1000, code // 100 % 10, code % 100)


def _nccl_columns(line: str) -> Optional[List[str]]:
    """The column names of a result header line ("#  size  count  type  redop  root  time  algbw ..."), or None."""
    cols = line.lstrip("#").split()
    if len(cols) >= 6 and cols[:2] == ["size", "count"] and "busbw" in cols:
        return cols
    return None


def _nccl_number(token: str) -> Optional[float]:
    if token.upper() == "N/A":
        return None
    return float(token)


def _nccl_row(tokens: List[str], cols: List[str]) -> Optional[Dict[str, Any]]:
    """One result row by the header's columns (first time/algbw/busbw/#wrong: out of place, second: in place)."""
    if len(tokens) < 2 or not tokens[0].isdigit() or not tokens[1].isdigit():
        return None

    def index(names: Sequence[str]) -> List[int]:
        return [i for i, c in enumerate(cols) if c in names]

    times, algbws, busbws = index(("time", "cputime")), index(("algbw",)), index(("busbw",))
    wrongs = index(("#wrong", "error", "errors"))
    if not (times and algbws and busbws) or len(tokens) <= max(times + algbws + busbws + wrongs):
        return None
    try:
        sides = []
        for k in range(min(2, len(times), len(algbws), len(busbws))):
            wrong = _nccl_number(tokens[wrongs[k]]) if k < len(wrongs) else None
            sides.append(
                {
                    "time_us": float(tokens[times[k]]),
                    "algbw_GBps": float(tokens[algbws[k]]),
                    "busbw_GBps": float(tokens[busbws[k]]),
                    "wrong": None if wrong is None else int(wrong),
                }
            )
    except ValueError:
        return None

    def column(name: str) -> Optional[str]:
        return tokens[cols.index(name)] if name in cols and cols.index(name) < times[0] else None

    root = column("root")
    return {
        "bytes": int(tokens[0]),
        "count": int(tokens[1]),
        "type": column("type"),
        "redop": column("redop"),
        "root": int(root) if root is not None and re.match(r"^-?\d+$", root) else None,
        "out_of_place": sides[0],
        "in_place": sides[1] if len(sides) > 1 else None,
    }


def parse_nccl_tests(text: str, source: str = "nccl-tests") -> Dict[str, Any]:  # noqa: PLR0912 - one branch per line kind
    """nccl-tests' stdout (all_reduce_perf & co.): result rows, "# Avg bus bandwidth", the ranks and versions.

    Tolerates what mpirun mixes in (NCCL_DEBUG lines, Open MPI help messages, --tag-output prefixes).
    Bandwidths stay in nccl-tests' units: GB/s = 1e9 bytes per second; times in microseconds.
    """
    cols = list(_NCCL_COLUMNS)
    rows: List[Dict[str, Any]] = []
    ranks: List[Dict[str, Any]] = []
    avgs: List[float] = []
    oob: List[int] = []
    out: Dict[str, Any] = {"source": source, "program": None, "version": None, "nccl_version": None}
    for raw in str(text).splitlines():
        line = _MPI_TAG.sub("", raw).rstrip()
        if line.lstrip().startswith("#"):
            line = line.lstrip()
            header = _nccl_columns(line)
            if header:
                cols = header
            elif _NCCL_VERSION.match(line):
                m = _NCCL_VERSION.match(line)
                out["version"] = m.group(1)
                out["nccl_version"] = nccl_version_text(m.group(3))
            elif _NCCL_STARTING.match(line):
                out["program"] = _NCCL_STARTING.match(line).group(1)
            elif _NCCL_RANK.match(line):
                m = _NCCL_RANK.match(line)
                ranks.append(
                    {"rank": int(m.group(1)), "host": m.group(2), "device": int(m.group(3)), "gpu": m.group(4)}
                )
            elif _NCCL_AVG.match(line):
                try:
                    avgs.append(float(_NCCL_AVG.match(line).group(1)))
                except ValueError:
                    avgs.append(float("nan"))
            elif _NCCL_OOB.match(line):
                oob.append(int(_NCCL_OOB.match(line).group(1)))
            continue
        row = _nccl_row(line.split(), cols)
        if row is not None:
            rows.append(row)
    if not rows:
        tail = [x for x in str(text).strip().splitlines() if x.strip()][-3:]
        raise NcclTestsError(
            f"nccl-tests output {source} has no result rows (did the program fail? last lines: {tail})"
        )
    problems = []
    if len(avgs) > 1:
        problems.append(
            "%d separate results: every process ran alone (nccl-tests built without MPI=1, or started without mpirun)"
            % len(avgs)
        )
    wrong = sum(side["wrong"] or 0 for r in rows for side in (r["out_of_place"], r["in_place"]) if side)
    if wrong:
        problems.append("%d wrong elements" % wrong)
    if any(oob):
        problems.append("%d out-of-bounds values" % sum(oob))
    avg = avgs[0] if avgs and avgs[0] == avgs[0] else None  # NaN: none
    out.update(
        rows=rows,
        avg_busbw_GBps=avg,
        out_of_bounds=oob[0] if oob else None,
        ranks=len({r["rank"] for r in ranks}) or None,
        hosts=sorted({r["host"] for r in ranks}),
        gpus=sorted({r["gpu"] for r in ranks}),
        correct=not problems and bool(oob),
        problems=problems,
    )
    return out
