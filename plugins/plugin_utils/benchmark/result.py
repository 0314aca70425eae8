# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark result combining (controller side); the result format is in schema.py, rendering in
report.py.

Pure Python with no Ansible imports.  Input: the JSON documents written by
roles/horovod_benchmark/files/hvd_benchmark.py (one per horovodrun, and the
plain-framework baseline), iperf3 -J outputs, nccl-tests' all_reduce_perf output,
and the inputs/stack/host and node facts the role knows.  Output: one document
following RESULT_SCHEMA (``schema_version`` 1), a Markdown report, a summary
table and PNG plots.
"""

# ruff: noqa: UP031 - printf-style widths (%-10s, %.2f) keep the fixed-width report tables readable
from __future__ import annotations

import json
import statistics
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .elastic import elastic_entry
from .errors import BenchmarkError  # re-exported: the combiner's callers catch it from here
from .goals import goals
from .link import link_limit
from .link import links as links_of
from .nccl_tests import NcclTestsError, nccl_version_text
from .nccl_tests import parse_nccl_tests as _parse_nccl_tests
from .schema import PAIRED_MODE, PEER_MODES, PLAIN_MODE, RESULT_SCHEMA, SCHEMA_VERSION, is_overhead_run, schema_errors

LARGE_MESSAGE_BYTES = 64 * 1024 * 1024


# --------------------------------------------------------------------- formulas
def bus_factor(workers: int) -> float:
    """Ring allreduce traffic factor 2(n-1)/n (nccl-tests convention); 0 for one worker."""
    if workers < 1:
        raise BenchmarkError(f"workers must be >= 1, got {workers!r}")
    return 2.0 * (workers - 1) / workers


def algbw(nbytes: int, seconds: float) -> float:
    """Algorithm bandwidth in bytes/s: message size / time."""
    if seconds <= 0:
        raise BenchmarkError("allreduce time must be > 0, got %r s for %d bytes" % (seconds, nbytes))
    return nbytes / seconds


def busbw(nbytes: int, seconds: float, workers: int) -> float:
    """Bus bandwidth in bytes/s: algbw x 2(n-1)/n."""
    return algbw(nbytes, seconds) * bus_factor(workers)


def efficiency(throughput_n: float, workers: int, throughput_1: float) -> float:
    """Scaling efficiency throughput(N) / (N x throughput(1))."""
    if throughput_1 <= 0 or workers < 1:
        raise BenchmarkError("efficiency needs throughput(1) > 0 and workers >= 1")
    return throughput_n / (workers * throughput_1)


def human_bytes(n: float) -> str:
    for unit, div in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= div:
            v = n / div
            return ("%d %s" % (v, unit)) if v == int(v) else (f"{v:.1f} {unit}")
    return "%d B" % n


# ------------------------------------------------------------------ nccl-tests
def parse_nccl_tests(text: str, source: str = "nccl-tests") -> Dict[str, Any]:
    """nccl-tests' output parsed (nccl_tests.py), its errors as BenchmarkError."""
    try:
        return _parse_nccl_tests(text, source)
    except NcclTestsError as exc:
        raise BenchmarkError(str(exc)) from exc


# re-exported: the result format lives in schema.py
__all__ = [
    "PEER_MODES",
    "PLAIN_MODE",
    "RESULT_SCHEMA",
    "SCHEMA_VERSION",
    "BenchmarkError",
    "nccl_version_text",
    "parse_nccl_tests",
    "schema_errors",
]


# ---------------------------------------------------------------------- combine
def normalize_run(doc: Dict[str, Any], source: str = "?") -> Dict[str, Any]:
    """Check one program document and recompute its bandwidth figures from the times."""
    for key in ("mode", "tag", "size", "ranks"):
        if key not in doc:
            raise BenchmarkError(f"benchmark output {source} lacks {key!r} (is it a hvd_benchmark.py result?)")
    workers = int(doc["size"])
    rows = _sweep_rows(doc.get("allreduce"), workers)
    run = {
        "tag": str(doc["tag"]),
        "mode": doc["mode"],
        "workers": workers,
        "library": doc.get("library", doc["mode"]),
        "device": doc.get("device", "cpu"),
        "horovod": doc.get("horovod"),
        "framework": doc.get("framework", "pytorch"),
        "framework_version": doc.get("tensorflow") if doc.get("framework") == "tensorflow" else doc.get("torch"),
        "torch": doc.get("torch"),
        "ranks": doc["ranks"],
        "env": doc.get("env", {}),
        "options": doc.get("options", {}),
        "started": doc.get("started"),
        "finished": doc.get("finished"),
        "source": source,
        "allreduce": rows,
    }
    if doc.get("training"):
        run["training"] = doc["training"]
    if doc["mode"] == PAIRED_MODE:
        # Horovod's sweep is "allreduce"; the peer's, interleaved with it, and the iterations' paired ratios
        run["peer_allreduce"] = _sweep_rows(doc.get("peer_allreduce"), workers)
        run["peer_library"] = doc.get("peer_library")
        run["paired"] = [dict(r) for r in doc.get("paired") or []]
    return run


def _sweep_rows(sweep: Any, workers: int) -> List[Dict[str, Any]]:
    rows = []
    for row in sweep or []:
        med = float(row["time_median_s"])
        new = dict(row)
        new["algbw_Bps"] = algbw(int(row["bytes"]), med)
        new["busbw_Bps"] = busbw(int(row["bytes"]), med, workers)
        new["correct"] = bool(row["correct"]) and int(row["ranks_reported"]) == workers
        rows.append(new)
    return rows


def _all_rows(run: Dict[str, Any]) -> List[Dict[str, Any]]:
    return run["allreduce"] + run.get("peer_allreduce", [])


def _every_rank(run: Dict[str, Any]) -> bool:
    w = run["workers"]
    ok = len(run["ranks"]) == w and sorted(r.get("rank") for r in run["ranks"]) == list(range(w))
    ok = ok and all(int(r["ranks_reported"]) == w for r in _all_rows(run))
    tr = run.get("training")
    if tr:
        ok = ok and int(tr.get("ranks_reported", 0)) == w
    return ok


def _normalize_runs(runs: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    norm = []
    for item in runs:
        if "doc" in item and "mode" not in item:
            norm.append(normalize_run(item["doc"], str(item.get("source", "?"))))
        else:
            norm.append(normalize_run(item))
    norm.sort(key=lambda r: (r["mode"], r["workers"], r["tag"]))
    return norm


def _allreduce_pair(norm: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The worker count both Horovod and the peer library ran at (else Horovod's largest), and their rows.

    A paired run (mode both: the two interleaved in one job) is the comparison when there is one, at its largest
    worker count: its iterations saw the same machine state, two separate runs did not.
    """
    paired = [r for r in norm if r["mode"] == PAIRED_MODE and r["allreduce"] and r.get("peer_allreduce")]
    if paired:
        run = max(paired, key=lambda r: r["workers"])
        return {
            "workers": run["workers"],
            "inplace": bool(run.get("options", {}).get("inplace", False)),
            "horovod": run["allreduce"],
            "peer": run["peer_allreduce"],
            "peer_library": run.get("peer_library"),
            "paired": run.get("paired") or [],
        }
    hvd_ar = [r for r in norm if r["mode"] == "horovod" and r["allreduce"]]
    # the peer baseline: torch.distributed (mode torch) or TensorFlow's MultiWorkerMirroredStrategy (mode tensorflow)
    peer_ar = [r for r in norm if r["mode"] in PEER_MODES and r["allreduce"]]
    common = sorted({r["workers"] for r in hvd_ar} & {r["workers"] for r in peer_ar})
    if common:
        wmax = common[-1]
    elif hvd_ar:
        wmax = max(r["workers"] for r in hvd_ar)
    else:
        wmax = max(r["workers"] for r in norm)
    hvd_run = next((r for r in reversed(hvd_ar) if r["workers"] == wmax), None)
    return {
        "workers": wmax,
        # PyTorch's sweep reduces in place by default (hvd.allreduce_), TensorFlow's out of place
        "inplace": bool((hvd_run or {}).get("options", {}).get("inplace", False)),
        "horovod": hvd_run["allreduce"] if hvd_run else [],
        "peer": next((r["allreduce"] for r in reversed(peer_ar) if r["workers"] == wmax), []),
        "peer_library": next((r["library"] for r in peer_ar if r["workers"] == wmax), None),
    }


def _nccl_side(pair: Dict[str, Any], row: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The nccl-tests figures to hold Horovod against: in place when Horovod reduced in place, else out of place."""
    if pair.get("inplace") and row.get("in_place"):
        return row["in_place"]
    return row.get("out_of_place")


def _comparison(
    pair: Dict[str, Any], link_bps: Optional[float], nccl_tests: Optional[Dict[str, Any]] = None
) -> List[Dict[str, Any]]:
    peer_by = {r["bytes"]: r for r in pair["peer"]}
    paired_by = {r["bytes"]: r for r in pair.get("paired") or []}
    nccl_by = {r["bytes"]: r for r in (nccl_tests or {}).get("rows", [])}
    comparison = []
    for row in pair["horovod"]:
        peer = peer_by.get(row["bytes"])
        paired = paired_by.get(row["bytes"])
        ratio = p10 = p90 = None
        if paired:
            # the iterations' own ratios (peer time / Horovod time, the same as busbw Horovod / peer)
            ratio, p10, p90 = paired["ratio_median"], paired["ratio_p10"], paired["ratio_p90"]
        elif peer and peer["busbw_Bps"] > 0:
            ratio = row["busbw_Bps"] / peer["busbw_Bps"]
        elif peer and peer["time_median_s"] > 0 and pair["workers"] == 1:
            ratio = peer["time_median_s"] / row["time_median_s"]
        nccl = _nccl_side(pair, nccl_by[row["bytes"]]) if row["bytes"] in nccl_by else None
        nccl_bps = nccl["busbw_GBps"] * 1e9 if nccl else None
        comparison.append(
            {
                "bytes": row["bytes"],
                "horovod_busbw_Bps": row["busbw_Bps"],
                "peer_busbw_Bps": peer["busbw_Bps"] if peer else None,
                "horovod_time_s": row["time_median_s"],
                "peer_time_s": peer["time_median_s"] if peer else None,
                "ratio": ratio,
                "paired": bool(paired),
                "ratio_p10": p10,
                "ratio_p90": p90,
                "horovod_link_fraction": (row["busbw_Bps"] / link_bps) if link_bps else None,
                "peer_link_fraction": (peer["busbw_Bps"] / link_bps) if (peer and link_bps) else None,
                "nccl_tests_busbw_Bps": nccl_bps,
                "nccl_tests_ratio": (row["busbw_Bps"] / nccl_bps) if nccl_bps else None,
            }
        )
    return comparison


def _short(hostname: Any) -> str:
    return str(hostname or "").split(".", maxsplit=1)[0]


def _scaling(norm: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    train, spans = {}, {}
    for r in norm:
        if r["mode"] == "horovod" and r.get("training") and not is_overhead_run(r):
            train[r["workers"]] = r["training"]
            spans[r["workers"]] = len({_short(k.get("hostname")) for k in r["ranks"] if k.get("hostname")}) or None
    base = train.get(1)
    scaling = []
    for w in sorted(train):
        tr = train[w]
        eff = None
        if base and base["samples_per_s_total"] > 0:
            eff = efficiency(float(tr["samples_per_s_total"]), w, float(base["samples_per_s_total"]))
        scaling.append(
            {
                "workers": w,
                # how many nodes the workers spanned (scaling across GPUs of one node, then across nodes)
                "nodes": spans[w],
                "model": tr.get("model"),
                "device": tr.get("device"),
                "samples_per_s_total": float(tr["samples_per_s_total"]),
                "samples_per_s_per_worker": float(tr["samples_per_s_per_worker"]),
                "efficiency": eff,
            }
        )
    return scaling


def overhead(norm: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """Horovod's cost at one worker: its samples/s (the runs' mean) over the plain framework's (no Horovod); every
    plain run against every Horovod run of the role's rounds (``runs``: how many of each), or, in results of before
    them, the one-worker scaling run. None without a plain run; the ratio None without a one-worker Horovod run.
    ``comparable``: all of them trained the same model, batch, image size and device."""
    plain = [r for r in norm if r["mode"] == PLAIN_MODE and r.get("training")]
    if not plain:
        return None
    hvd1 = [r for r in norm if r["mode"] == "horovod" and r["workers"] == 1 and r.get("training")]
    rounds = [r for r in hvd1 if is_overhead_run(r)]
    hvd = rounds or hvd1[:1]
    p_tr = plain[-1]["training"]
    plain_sps = statistics.fmean(float(r["training"]["samples_per_s_total"]) for r in plain)
    hvd_sps = statistics.fmean(float(r["training"]["samples_per_s_total"]) for r in hvd) if hvd else None
    same = ("model", "batch_size", "image_size", "device")
    out = {
        "library": plain[-1]["library"],
        "model": p_tr.get("model"),
        "device": p_tr.get("device"),
        "plain_samples_per_s": plain_sps,
        "horovod_1_samples_per_s": hvd_sps,
        "overhead_ratio": (hvd_sps / plain_sps) if (hvd_sps is not None and plain_sps > 0) else None,
        "comparable": bool(hvd) and all(r["training"].get(k) == p_tr.get(k) for r in plain + hvd for k in same),
        "runs": [len(plain), len(hvd)],
    }
    steps = [[t for r in side for t in r["training"].get("step_s") or []] for side in (plain, hvd)]
    if all(r["training"].get("step_s") for r in plain + hvd):
        out.update(step_ratio(*steps))
    return out


def _nearest_rank(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list (the benchmark program's ``percentile``)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100.0 * len(ordered) + 0.5) - 1))]


def step_ratio(plain_steps: Optional[Sequence[float]], hvd_steps: Optional[Sequence[float]]) -> Dict[str, Any]:
    """The one-worker overhead from the two runs' step times (PyTorch records them; issue 37), as Horovod's relative
    throughput: the plain run's median step time over Horovod's (1.00 no overhead, < 1 Horovod slower).

    The runs are separate processes, one after the other, so their steps cannot be paired as the allreduce sweep's
    iterations are: the spread (p10-p90) is that of every plain step over every Horovod step, the steps of every
    round's processes together, which is how far the machine's noise (and a process's own luck: its memory, its
    threads' placement) moves the ratio of two single steps. A goal inside it is not decided by this run.
    Empty without step times in both runs (Keras' fit, results of earlier programs).
    """
    plain = [float(t) for t in plain_steps or [] if t and t > 0]
    hvd = [float(t) for t in hvd_steps or [] if t and t > 0]
    if not plain or not hvd:
        return {}
    pairs = [p / h for p in plain for h in hvd]
    return {
        "steps": [len(plain), len(hvd)],
        "step_ratio_median": statistics.median(plain) / statistics.median(hvd),
        "step_ratio_p10": _nearest_rank(pairs, 10),
        "step_ratio_p90": _nearest_rank(pairs, 90),
    }


# ------------------------------------------------------------------------ nodes
def _xid_key(xid: Mapping[str, Any]) -> tuple:
    return tuple(str(xid.get(k)) for k in ("pci", "xid", "detail"))


def node_health(before: Any, after: Any) -> Optional[Dict[str, Any]]:
    """A node's health around the runs from node_health's results before and after them (None: not judged).

    ``findings`` are the reasons of the checks that were not ok after the runs (before them when there is no after);
    ``new_xids`` the XIDs the kernel logged during the runs (in the log after, not before), each "XID n on pci
    (meaning)": a new hardware XID is a finding even when the node was healthy before.
    """
    before = before if isinstance(before, Mapping) else None
    after = after if isinstance(after, Mapping) else None
    if before is None and after is None:
        return None
    seen = {_xid_key(x) for x in (before or {}).get("xids") or [] if isinstance(x, Mapping)}
    new = [x for x in (after or {}).get("xids") or [] if isinstance(x, Mapping) and _xid_key(x) not in seen]
    return {
        "before": (before or {}).get("status"),
        "after": (after or {}).get("status"),
        "findings": [
            "%s: %s" % (c.get("name"), c.get("reason"))
            for c in (after or before).get("checks") or []
            if isinstance(c, Mapping) and c.get("status") != "ok"
        ],
        "new_xids": [
            "XID %s on %s (%s)" % (x.get("xid"), x.get("pci") or "?", x.get("meaning") or x.get("class") or "?")
            for x in new
        ],
    }


def node_entries(
    hosts: Sequence[Mapping[str, Any]],
    gpus: Optional[Mapping[str, Any]] = None,
    boot_ids: Optional[Mapping[str, Any]] = None,
    topo: Optional[Mapping[str, Any]] = None,
    *,
    health_before: Optional[Mapping[str, Any]] = None,
    health_after: Optional[Mapping[str, Any]] = None,
) -> List[Dict[str, Any]]:
    """Per benchmark host: its kernel's boot id, GPUs (gpu_facts), driver, the CUDA the driver supports, topology,
    and its health around the runs (:func:`node_health`).

    ``gpus`` maps a host to its gpu_facts result, ``boot_ids`` to the text of /proc/sys/kernel/random/boot_id,
    ``topo`` to ``{rc, stdout, stderr, msg}`` of ``nvidia-smi topo -m`` (absent where it did not run),
    ``health_before``/``health_after`` to node_health's result before and after the runs (absent where not judged).
    """
    entries = []
    for host in hosts:
        name = str(host["name"])
        gpu = dict((gpus or {}).get(name) or {})
        boot = str((boot_ids or {}).get(name) or "").strip()
        probe = (topo or {}).get(name)
        topo_text, topo_error = None, None
        if isinstance(probe, Mapping):
            out = str(probe.get("stdout") or "").rstrip()
            if probe.get("rc") == 0 and out:
                topo_text = out
            else:
                why = str(probe.get("stderr") or probe.get("msg") or "").strip().splitlines()
                topo_error = "nvidia-smi topo -m failed (rc {}): {}".format(
                    probe.get("rc", "?"), why[0] if why else "no output"
                )
        entries.append(
            {
                "name": name,
                "hostname": str(host.get("hostname") or name),
                "boot_id": boot or None,
                "gpu_count": int(gpu.get("gpu_count") or 0),
                "gpu_models": [str(m) for m in gpu.get("models") or []],
                "driver_version": gpu.get("driver_version"),
                "cuda_driver_version": gpu.get("cuda_driver_version"),
                "topo": topo_text,
                "topo_error": topo_error,
                "health": node_health((health_before or {}).get(name), (health_after or {}).get(name)),
            }
        )
    return entries


def shared_machines(nodes: Sequence[Mapping[str, Any]]) -> List[List[str]]:
    """Groups of two or more nodes with one kernel boot id: one physical machine (containers or the same host)."""
    groups: Dict[str, List[str]] = {}
    for node in nodes:
        if node.get("boot_id"):
            groups.setdefault(str(node["boot_id"]), []).append(str(node["name"]))
    return [names for names in groups.values() if len(names) > 1]


def _with_rank_facts(nodes: Sequence[Mapping[str, Any]], norm: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Add what the ranks on each node reported: the framework's CUDA and NCCL versions and the GPU names."""
    out = []
    for node in nodes:
        entry = dict(node)
        short = _short(entry.get("hostname") or entry["name"])
        ranks = [k for r in norm for k in r["ranks"] if _short(k.get("hostname")) == short]
        entry["nccl"] = next((k["nccl"] for k in ranks if k.get("nccl")), entry.get("nccl"))
        entry["framework_cuda"] = next((k["cuda"] for k in ranks if k.get("cuda")), entry.get("framework_cuda"))
        entry["rank_gpus"] = sorted({str(k["gpu"]) for k in ranks if k.get("gpu")})
        out.append(entry)
    return out


def _summary(
    norm: List[Dict[str, Any]],
    comparison: List[Dict[str, Any]],
    scaling: List[Dict[str, Any]],
    *,
    workers: int,
    link_bps: Optional[float],
    large_bytes: int,
) -> Dict[str, Any]:
    large = [c for c in comparison if c["bytes"] >= large_bytes and c["ratio"] is not None]
    large_measured = bool(large)
    if not large:
        with_ratio = [c for c in comparison if c["ratio"] is not None]
        large = with_ratio[-1:]
    nccl = [c for c in comparison if c["bytes"] >= large_bytes and c.get("nccl_tests_ratio") is not None]
    if not nccl:
        nccl = [c for c in comparison if c.get("nccl_tests_ratio") is not None][-1:]
    return {
        "every_rank_reported": all(_every_rank(r) for r in norm),
        "correct": all(row["correct"] for r in norm for row in _all_rows(r)),
        "device": ",".join(sorted({r["device"] for r in norm})),
        "framework": ",".join(sorted({r["framework"] for r in norm})),
        "workers_max": workers,
        "ratio_large": min((c["ratio"] for c in large), default=None),
        "ratio_large_measured_at_64MiB": large_measured,
        "ratio_large_bytes": [c["bytes"] for c in large],
        "ratio_nccl_tests_large": min((c["nccl_tests_ratio"] for c in nccl), default=None),
        "ratio_nccl_tests_bytes": [c["bytes"] for c in nccl],
        "efficiency_max_workers": scaling[-1]["efficiency"] if scaling else None,
        "link_Bps": link_bps,
        "runs": len(norm),
    }


def combine(  # noqa: PLR0917 - keyword-friendly public signature kept for the action plugin and tests
    runs: Sequence[Dict[str, Any]],
    link: Optional[Dict[str, Any]] = None,
    inputs: Optional[Dict[str, Any]] = None,
    tuning: Optional[Dict[str, Any]] = None,
    stack: Optional[Dict[str, Any]] = None,
    hosts: Optional[Sequence[Dict[str, Any]]] = None,
    run_id: str = "",
    generated_at: str = "",
    large_bytes: int = LARGE_MESSAGE_BYTES,
    nodes: Optional[Sequence[Dict[str, Any]]] = None,
    nccl_tests: Optional[Any] = None,
    transport: Optional[Dict[str, Any]] = None,
    failure: Optional[Dict[str, Any]] = None,
    elastic: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """Build the schema_version 1 document from program documents, iperf3 and nccl-tests results.

    ``runs`` items are program documents, or ``{"source": path, "doc": document}``.
    ``link`` maps a host name to its ``iperf3 -J`` output (str or dict).
    ``nodes`` are :func:`node_entries` (boot id, GPUs, topology per host); ``nccl_tests`` is the
    stdout of nccl-tests' all_reduce_perf across the same hosts, or ``{"source": path, "text": stdout}``.
    ``transport`` is what NCCL used between the nodes in the largest Horovod run (filter nccl_transports on its
    INFO log, with ``nodes``, ``fabric``, ``read`` and ``problem``: why the run must not count, or '').
    ``failure`` makes the document partial: a later run failed and ``runs`` holds the ones that finished before it
    (:func:`failure_entry`: the run that failed, the nodes the launcher lost, the error).
    ``elastic`` is the elastic run's program document (``--mode elastic``), or ``{"source": path, "doc": document}``:
    :func:`elastic_entry`.
    """
    if not runs:
        raise BenchmarkError("no benchmark results to combine (did every horovodrun fail?)")
    norm = _normalize_runs(runs)
    pair = _allreduce_pair(norm)
    links = links_of(link)
    limit = link_limit(min((x["bytes_per_second"] for x in links), default=None), transport)
    link_bps = limit["link_Bps"]
    nccl = None
    if nccl_tests:
        item = nccl_tests if isinstance(nccl_tests, Mapping) else {"text": nccl_tests}
        nccl = parse_nccl_tests(str(item.get("text", "")), str(item.get("source") or "nccl-tests"))
    comparison = _comparison(pair, link_bps, nccl)
    scaling = _scaling(norm)
    node_list = _with_rank_facts(nodes or [], norm)
    summary = _summary(norm, comparison, scaling, workers=pair["workers"], link_bps=link_bps, large_bytes=large_bytes)
    over = overhead(norm)
    summary.update(
        limit,
        shared_machines=shared_machines(node_list),
        overhead_ratio=over["overhead_ratio"] if over else None,
        nccl_tests_avg_busbw_GBps=nccl["avg_busbw_GBps"] if nccl else None,
        transport_problem=(transport or {}).get("problem") or None,
        partial=bool(failure),
    )
    summary["goals"] = goals(comparison, over, large_bytes)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "generated_at": generated_at,
        "inputs": dict(inputs or {}),
        "tuning": dict(tuning or {}),
        "stack": dict(stack or {}),
        "hosts": [dict(h) for h in (hosts or [])],
        "nodes": node_list,
        "runs": norm,
        "allreduce": pair,
        "scaling": scaling,
        "overhead": over,
        "link": links,
        "nccl_tests": nccl,
        "transport": dict(transport) if transport else None,
        "comparison": comparison,
        "failure": failure_entry(**failure) if failure else None,
        "elastic": elastic_entry(elastic) if elastic else None,
        "summary": summary,
    }
    # Where the ranks ran: the training containers (inputs.container, from the horovod_container role) or the hosts.
    container = (inputs or {}).get("container") or {}
    doc["summary"]["ran_in"] = "containers" if container.get("name") else "hosts"
    errs = schema_errors(doc)
    if errs:
        raise BenchmarkError(
            "combined result does not match schema_version %d: %s" % (SCHEMA_VERSION, "; ".join(errs[:5]))
        )
    return doc


def failure_entry(
    run: str = "", task: str = "", error: Any = "", lost_nodes: Optional[Sequence[str]] = None, **_ignored: Any
) -> Dict[str, Any]:
    """What ended a benchmark before its last run: the run (its tag, e.g. hvd-np2), the role's task, the nodes the
    launcher could not reach afterwards and the error's last lines (text or a list of lines; at most 2000 characters,
    the end kept)."""
    if not run and not task:
        raise BenchmarkError("a failure needs the run or the task that failed")
    if isinstance(error, (list, tuple)):
        error = "\n".join(str(x) for x in error)
    text = str(error or "").strip()
    if len(text) > 2000:
        text = "..." + text[-2000:]
    return {
        "run": str(run),
        "task": str(task),
        "lost_nodes": sorted({str(n) for n in (lost_nodes or [])}),
        "error": text,
    }


def load_result(text: str) -> Dict[str, Any]:
    """Parse a result.json, refusing other schema versions by name."""
    doc = json.loads(text)
    ver = doc.get("schema_version") if isinstance(doc, dict) else None
    if ver != SCHEMA_VERSION:
        raise BenchmarkError(
            "result schema_version %r is not supported (this collection reads %d)" % (ver, SCHEMA_VERSION)
        )
    errs = schema_errors(doc)
    if errs:
        raise BenchmarkError("result does not match schema: {}".format("; ".join(errs[:5])))
    return doc
