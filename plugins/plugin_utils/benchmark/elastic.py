# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark's elastic run (hvd_benchmark.py --mode elastic): its entry in result.json and its lines in the report.

Pure Python with no Ansible imports. result.py's combine puts :func:`elastic_entry` under ``elastic``; report.py
adds :func:`elastic_line` to the summary and :func:`elastic_section` to report.md.
"""

# ruff: noqa: UP031 - printf-style widths, as in report.py

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .errors import BenchmarkError


def _num(v: Optional[float], fmt: str) -> str:
    return "-" if v is None else fmt % v


def elastic_entry(item: Mapping[str, Any]) -> Dict[str, Any]:
    """The elastic run (``--mode elastic``): its program document's ``elastic`` section with the run's tag, device,
    Horovod version and the ranks that finished it (the workers left at its end)."""
    source = str(item.get("source") or "elastic") if "doc" in item else "elastic"
    doc = item["doc"] if "doc" in item else item
    if doc.get("mode") != "elastic" or not isinstance(doc.get("elastic"), Mapping):
        raise BenchmarkError(f"benchmark output {source} is not an elastic run's document (mode {doc.get('mode')!r})")
    entry = dict(doc["elastic"])
    entry.update(
        tag=str(doc.get("tag", "elastic")),
        source=source,
        horovod=doc.get("horovod"),
        ranks_at_end=len(doc.get("ranks") or []),
        started=doc.get("started"),
        finished=doc.get("finished"),
    )
    if not entry.get("max_workers"):
        entry["max_workers"] = max([w["workers"] for w in entry.get("workers_over_time") or []] or [1])
    return entry


def elastic_line(doc: Dict[str, Any]) -> Optional[str]:
    """One line for the elastic run: its resets, the worker count over time and samples/s before and after."""
    e = doc.get("elastic")
    if not e:
        return None
    counts = " -> ".join(str(w["workers"]) for w in e.get("workers_over_time") or []) or "?"

    def rate(side):
        return "-" if not side or side.get("samples_per_s") is None else "%.1f" % side["samples_per_s"]

    text = "elastic: %d reset%s, workers %s, %d steps in %.1f s" % (
        e["resets"],
        "" if e["resets"] == 1 else "s",
        counts,
        e["steps"],
        e["elapsed_s"],
    )
    if e.get("after"):
        text += "; samples/s %s at %d workers before, %s at %d after" % (
            rate(e["before"]),
            e["before"]["workers"],
            rate(e["after"]),
            e["after"]["workers"],
        )
    elif e.get("before"):
        text += "; samples/s %s at %d workers" % (rate(e["before"]), e["before"]["workers"])
    return text


def elastic_section(doc: Dict[str, Any]) -> List[str]:
    e = doc.get("elastic")
    if not e:
        return []
    out = [
        "## Elastic training",
        "",
        "`horovodrun --min-np %d --max-np %d --host-discovery-script ...`, training under `hvd.elastic.run` for %s s, "
        "its state committed every %s steps: a node lost or added resets the job, which goes on from the last "
        "commit with the workers the discovery script lists."
        % (
            e["min_workers"],
            e["max_workers"],
            _num(e.get("seconds"), "%.0f"),
            e.get("commit_steps", "-"),
        ),
        "",
        "- " + elastic_line(doc),
        "",
        "| from s | to s | workers | samples/s |",
        "|---:|---:|---:|---:|",
    ]
    for phase in e.get("phases") or []:
        out.append(
            "| %.1f | %.1f | %d | %s |"
            % (phase["from_s"], phase["to_s"], phase["workers"], _num(phase.get("samples_per_s"), "%.1f"))
        )
    out += ["", "| s | event | workers |", "|---:|---|---:|"]
    out += ["| %.1f | %s | %d |" % (w["t"], w["event"], w["workers"]) for w in e.get("workers_over_time") or []]
    out.append("")
    return out
