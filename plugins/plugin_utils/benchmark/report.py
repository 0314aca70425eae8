# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark report rendering (controller side): the summary table and the Markdown report; the PNG plots are
plots.py's.

Pure Python with no Ansible imports. Input: one result document from ``result.combine`` (``schema_version`` 1).
"""

# ruff: noqa: UP031 - printf-style widths (%-10s, %.2f) keep the fixed-width report tables readable
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.elastic import elastic_line, elastic_section
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.launch import launch_line, slurm_jobs_section
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.overhead import (
    overhead_line,
    overhead_section,
)
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.plots import render_plots
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.result import human_bytes


def _gbps(bps: Optional[float]) -> str:
    return "-" if bps is None else "%.2f" % (bps * 8 / 1e9)


def _f(v: Optional[float], fmt: str = "%.2f") -> str:
    return "-" if v is None else fmt % v


def _ratio(c: Dict[str, Any]) -> str:
    """A comparison row's ratio, with the p10-p90 of its paired iterations when the peer ran interleaved."""
    if c.get("ratio_p10") is None or c.get("ratio_p90") is None:
        return _f(c["ratio"])
    return "%s (%s-%s)" % (_f(c["ratio"]), _f(c["ratio_p10"]), _f(c["ratio_p90"]))


def goal_lines(doc: Dict[str, Any]) -> List[str]:
    """One line per goal of the summary: the value, its spread, met or not, and whether the noise decides."""
    lines = []
    for g in (doc.get("summary") or {}).get("goals") or []:
        if g["value"] is None:
            lines.append("%s >= %.2f: not measured in this run" % (g["name"], g["target"]))
            continue
        notes = ["median steps"] if g.get("basis") == "median step" else []
        if g.get("p10") is not None:
            notes.append("p10-p90 %.2f-%.2f" % (g["p10"], g["p90"]))
        spread = " (%s)" % ", ".join(notes) if notes else ""
        where = " at %s" % human_bytes(g["bytes"]) if g.get("bytes") else ""
        verdict = "met" if g["met"] else "NOT met"
        if g.get("within_spread"):
            verdict += ", within the noise (the goal lies inside the spread)"
        lines.append("%s >= %.2f: %.2f%s%s, %s" % (g["name"], g["target"], g["value"], where, spread, verdict))
    return lines


def shared_warning(doc: Dict[str, Any]) -> Optional[str]:
    """The sentence that says which nodes share one kernel (one physical machine), or None."""
    groups = (doc.get("summary") or {}).get("shared_machines") or []
    if not groups:
        return None
    names = "; ".join(", ".join(g) for g in groups)
    return (
        "nodes %s share one kernel (the same boot id): they run on one physical machine, so scaling figures "
        "across them measure contention for its CPUs, memory and devices, not scaling" % names
    )


def health_warning(doc: Dict[str, Any]) -> Optional[str]:
    """The nodes that were not healthy after the runs, logged an XID during them or got worse during them (an RDMA
    port that went down: ok before, warn after), or None."""
    bad = []
    for n in doc.get("nodes") or []:
        h = n.get("health") or {}
        if h.get("new_xids"):
            bad.append("%s logged %s during the runs" % (n["name"], "; ".join(h["new_xids"])))
        elif (h.get("after") or h.get("before")) == "fail":
            bad.append("%s is unhealthy (%s)" % (n["name"], "; ".join(h.get("findings") or [])))
        elif h.get("before") == "ok" and h.get("after") == "warn":
            bad.append("%s went from ok to warn during the runs (%s)" % (n["name"], "; ".join(h.get("findings") or [])))
    return ", ".join(bad) or None


def transport_line(doc: Dict[str, Any]) -> Optional[str]:
    """What NCCL moved data between the nodes with in the largest Horovod run (its INFO log), or None when the
    role passed nothing."""
    t = doc.get("transport") or {}
    if not t:
        return None
    if not t.get("read", True):
        return "NCCL's transport not read (NCCL_DEBUG is set in horovod_benchmark_env_extra)"
    devices = ", ".join(t.get("net_devices") or []) or "-"
    inter = t.get("inter_node") or t.get("network")
    nodes = t.get("nodes") or 1
    fabric = t.get("fabric") or "none"
    if not inter and not t.get("transports"):
        return "NCCL not used: no NCCL channel in the log (the allreduce went through Gloo or MPI: a CPU run)"
    if nodes < 2:
        return "NCCL within one node: %s (no network between nodes in this run)" % ", ".join(t.get("transports") or [])
    if inter == "IB":
        gdr = "with GPUDirect RDMA" if t.get("gdrdma") else "without GPUDirect RDMA (through host memory)"
        return "NCCL between %d nodes: verbs (NET/IB) over %s, %s; fabric %s" % (nodes, devices, gdr, fabric)
    return "NCCL between %d nodes: TCP sockets (NET/Socket) over %s; fabric %s" % (nodes, devices, fabric)


def link_line(doc: Dict[str, Any]) -> str:
    """The link limit the bus bandwidths are held against, and where it comes from: the fabric's port rate when NCCL
    moved the data over it, else iperf3's IP path; with a fabric, the other figure beside it."""
    s = doc["summary"]
    fabric = (doc.get("transport") or {}).get("fabric") or "none"
    ip, port = s.get("ip_link_Bps", s["link_Bps"]), s.get("fabric_link_Bps")
    if s.get("link_source") == "fabric":
        return (
            "link limit (fabric port rate, %s, slowest usable port): %s Gbit/s - the path NCCL used; IP path "
            "(iperf3, slowest node): %s Gbit/s" % (fabric, _gbps(port), _gbps(ip))
        )
    line = "link limit (iperf3, slowest node): {} Gbit/s".format(_gbps(s["link_Bps"]))
    if port:
        line += (
            " - the IP path this run took; the fabric's ports (%s, slowest usable port: %s Gbit/s) were not "
            "its path (NCCL line below)" % (fabric, _gbps(port))
        )
    return line


def _health_section(doc: Dict[str, Any]) -> List[str]:
    judged = [n for n in doc.get("nodes") or [] if n.get("health")]
    if not judged:
        return []
    out = [
        "",
        "## Node health",
        "",
        "Before and after the runs: gpucluster.horovod.node_health on every GPU node (XIDs, ECC, row remapping, PCIe "
        "link, slowdown, NVLink, Fabric Manager) and the RDMA ports of every node with a fabric (fabric_facts: a "
        "port that is not usable).",
        "",
        "| node | before | after | XIDs during the runs | findings (not ok) |",
        "|---|---|---|---|---|",
    ]
    for n in judged:
        h = n["health"]
        out.append(
            "| %s | %s | %s | %s | %s |"
            % (
                n["name"],
                h.get("before") or "-",
                h.get("after") or "-",
                "; ".join(h.get("new_xids") or []) or "none",
                "; ".join(h.get("findings") or []) or "none",
            )
        )
    return out


def _one_worker(doc: Dict[str, Any]) -> bool:
    """One worker: bus bandwidth is zero by definition (2(n-1)/n), so the ratio compares times (peer / Horovod)."""
    return doc["allreduce"]["workers"] == 1


_ONE_WORKER_NOTE = (
    "with one worker bus bandwidth is zero by definition (2(n-1)/n = 0): the ratio is peer time / Horovod time"
)


def summary_table(doc: Dict[str, Any]) -> List[str]:
    """Short fixed-width table the play prints at the end."""
    s = doc["summary"]
    lines = ["%-10s %12s %12s %18s %10s" % ("size", "hvd Gbit/s", "peer Gbit/s", "ratio (p10-p90)", "link frac")]
    for c in doc["comparison"]:
        if c["bytes"] < 1024 * 1024 and c is not doc["comparison"][0]:
            continue
        lines.append(
            "%-10s %12s %12s %18s %10s"
            % (
                human_bytes(c["bytes"]),
                _gbps(c["horovod_busbw_Bps"]),
                _gbps(c["peer_busbw_Bps"]),
                _ratio(c),
                _f(c["horovod_link_fraction"]),
            )
        )
    for sc in doc["scaling"]:
        lines.append(
            "workers %-3d %10.1f samples/s total, efficiency %s"
            % (sc["workers"], sc["samples_per_s_total"], _f(sc["efficiency"]))
        )
    if overhead_line(doc):
        lines.append(overhead_line(doc))
    if elastic_line(doc):
        lines.append(elastic_line(doc))
    if launch_line(doc):
        lines.append(launch_line(doc).replace("**", ""))
    lines += ["goal: " + g for g in goal_lines(doc)]
    if doc.get("nccl_tests"):
        lines.append(
            "nccl-tests all_reduce_perf: avg busbw %s GB/s | Horovod / nccl-tests busbw >=64MiB: %s"
            % (_f(doc["nccl_tests"].get("avg_busbw_GBps")), _f(s.get("ratio_nccl_tests_large")))
        )
    if failure_line(doc):
        lines.append(failure_line(doc))
    if shared_warning(doc):
        lines.append("WARNING: " + shared_warning(doc))
    if health_warning(doc):
        lines.append("WARNING: node health: " + health_warning(doc))
    if transport_line(doc):
        lines.append(transport_line(doc))
    if (doc.get("transport") or {}).get("problem"):
        lines.append("WARNING: the run does not count: " + doc["transport"]["problem"])
    lines.append(
        (
            "framework {} | device {} | ran in {} | every rank reported: {} | results correct: {}"
            " | hvd/peer {} >=64MiB: {}"
        ).format(
            s.get("framework", "pytorch"),
            s["device"],
            s.get("ran_in", "hosts"),
            s["every_rank_reported"],
            s["correct"],
            "time ratio (1 worker)" if _one_worker(doc) else "busbw",
            _f(s["ratio_large"]),
        )
    )
    return lines


def _ran_in(doc: Dict[str, Any]) -> str:
    """The report line saying where the ranks ran: the hosts' venv or the training containers."""
    container = (doc.get("inputs") or {}).get("container") or {}
    if not container.get("name"):
        return "- ran in: **hosts** (the training venv on every node)"
    return "- ran in: **containers** `{}` (image `{}`) on every node, horovodrun over SSH port {}".format(
        container["name"], container.get("image", "?"), container.get("ssh_port", "?")
    )


def _runs_section(doc: Dict[str, Any]) -> List[str]:
    """The runs the document was made from, and under Slurm their jobs."""
    out = ["", "## Runs", "", "| tag | library | workers | device |", "|---|---|---:|---|"]
    out += ["| %s | %s | %d | %s |" % (r["tag"], r["library"], r["workers"], r["device"]) for r in doc["runs"]]
    jobs = slurm_jobs_section(doc)
    if jobs:
        out += ["", *jobs[:-1]]
    return out


def _framework(doc: Dict[str, Any]) -> str:
    """The framework and version the Horovod runs used (PyTorch for results of before the field existed)."""
    names = {"pytorch": "PyTorch", "tensorflow": "TensorFlow"}
    seen = []
    for run in doc.get("runs") or []:
        label = names.get(run.get("framework", "pytorch"), run.get("framework", "pytorch"))
        if run.get("framework_version"):
            label += " " + str(run["framework_version"])
        if label not in seen:
            seen.append(label)
    return ", ".join(seen) or "PyTorch"


def _nccl_tests_section(doc: Dict[str, Any]) -> List[str]:
    nccl = doc.get("nccl_tests")
    if not nccl:
        return []
    hvd_by = {c["bytes"]: c for c in doc["comparison"]}
    out = [
        "## nccl-tests all_reduce_perf (%s ranks on %s)"
        % (nccl.get("ranks") or "?", ", ".join(nccl.get("hosts") or []) or "?"),
        "",
        "NCCL %s, nccl-tests %s; average bus bandwidth **%s GB/s**; results correct: **%s**%s."
        % (
            nccl.get("nccl_version") or "?",
            nccl.get("version") or "?",
            _f(nccl.get("avg_busbw_GBps")),
            nccl.get("correct"),
            (" (" + "; ".join(nccl["problems"]) + ")") if nccl.get("problems") else "",
        ),
        "",
        "| size | time (us) out / in place | busbw GB/s out / in place | Horovod busbw GB/s | Horovod / nccl-tests |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in nccl["rows"]:
        # the sizes of Horovod's sweep and the large ones; raw/ keeps every row
        if row["bytes"] not in hvd_by and row["bytes"] < 1024 * 1024 and row is not nccl["rows"][-1]:
            continue
        oop, inp = row["out_of_place"], row.get("in_place") or {}
        c = hvd_by.get(row["bytes"])
        out.append(
            "| %s | %s / %s | %s / %s | %s | %s |"
            % (
                human_bytes(row["bytes"]),
                _f(oop.get("time_us"), "%.1f"),
                _f(inp.get("time_us"), "%.1f"),
                _f(oop.get("busbw_GBps")),
                _f(inp.get("busbw_GBps")),
                _f(c["horovod_busbw_Bps"] / 1e9) if c else "-",
                _f(c.get("nccl_tests_ratio")) if c else "-",
            )
        )
    workers = doc["allreduce"]["workers"]
    out += [
        "",
        "nccl-tests' GB/s are 1e9 bytes/s and its busbw uses the same 2(n-1)/n factor; Horovod's sweep ran at %d "
        "workers%s%s."
        % (
            workers,
            ""
            if not nccl.get("ranks") or nccl["ranks"] == workers
            else ", nccl-tests at %d ranks: the ratio compares different worker counts" % nccl["ranks"],
            "; one rank: its bus bandwidth is zero by definition, the times are the measure"
            if nccl.get("ranks") == 1
            else "",
        ),
        "",
    ]
    return out


def _nodes_section(doc: Dict[str, Any]) -> List[str]:
    nodes = doc.get("nodes") or []
    if not nodes:
        return []
    out = [
        "",
        "## Nodes",
        "",
        "| node | GPUs | driver | CUDA (driver) | CUDA (framework) | NCCL | boot id |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in nodes:
        models = n.get("gpu_models") or n.get("rank_gpus") or []
        gpus = "%s x %d" % (" / ".join(models) or "GPU", n["gpu_count"]) if n.get("gpu_count") else "none"
        out.append(
            "| %s | %s | %s | %s | %s | %s | %s |"
            % (
                n["name"],
                gpus,
                n.get("driver_version") or "-",
                n.get("cuda_driver_version") or "-",
                n.get("framework_cuda") or "-",
                n.get("nccl") or "-",
                (n.get("boot_id") or "-")[:8],
            )
        )
    if shared_warning(doc):
        out += ["", "**Shared machine**: " + shared_warning(doc) + "."]
    for n in nodes:
        if n.get("topo"):
            out += ["", "### %s: nvidia-smi topo -m" % n["name"], "", "```", n["topo"], "```"]
        elif n.get("topo_error"):
            out += ["", "### %s: nvidia-smi topo -m" % n["name"], "", n["topo_error"]]
    return out


def failure_line(doc: Dict[str, Any]) -> Optional[str]:
    """One line for a partial document: which run failed, the nodes lost, what finished before it."""
    f = doc.get("failure")
    if not f:
        return None
    lost = ", ".join(f.get("lost_nodes") or []) or "none (every node still answered)"
    kept = ", ".join(r["tag"] for r in doc.get("runs") or []) or "none"
    return "PARTIAL: {} failed ({}); nodes lost: {}; kept the finished runs: {}".format(
        f.get("run") or "a run", f.get("task") or "task unknown", lost, kept
    )


def _warning_bullets(doc: Dict[str, Any]) -> List[str]:
    out = []
    if failure_line(doc):
        f = doc["failure"]
        out.append("- **partial report**: " + failure_line(doc) + ".")
        if f.get("error"):
            out += [
                "",
                "  Its error (the end):",
                "",
                "  ```",
                *("  " + x for x in f["error"].splitlines()[-20:]),
                "  ```",
                "",
            ]
    if shared_warning(doc):
        out.append("- **shared machine**: " + shared_warning(doc) + ".")
    if health_warning(doc):
        out.append("- **node health**: " + health_warning(doc) + ".")
    if (doc.get("transport") or {}).get("problem"):
        out.append("- **the fabric was not used, the run does not count**: " + doc["transport"]["problem"] + ".")
    return out


def _allreduce_notes(doc: Dict[str, Any]) -> List[str]:
    """What the allreduce table's figures are, and the goals held against them."""
    paired = any(c.get("paired") for c in doc["comparison"])
    out = [
        "",
        "Bus bandwidth = size / time x 2(n-1)/n; time = median over iterations of the slowest rank%s."
        % ("; " + _ONE_WORKER_NOTE if _one_worker(doc) else ""),
        (
            "Ratio = Horovod / peer (> 1: Horovod faster). The peer ran in the same job, its iterations interleaved "
            "with Horovod's: the ratio is the median of the iterations' ratios, (p10-p90) their spread."
            if paired
            else "Ratio = Horovod / peer (> 1: Horovod faster), from two separate runs' medians: no spread measured."
        ),
        "",
    ]
    if goal_lines(doc):
        out += ["### Goals", ""] + ["- " + g for g in goal_lines(doc)] + [""]
    return out


def render_markdown(doc: Dict[str, Any], plots: Sequence[str] = ()) -> str:
    s = doc["summary"]
    ar = doc["allreduce"]
    out = [
        "# Horovod cluster benchmark {}".format(doc["run_id"]),
        "",
        "Generated %s, schema_version %d. Framework: **%s**. Device: **%s**%s."
        % (
            doc["generated_at"],
            doc["schema_version"],
            _framework(doc),
            s["device"],
            " (no GPU used: training ran on the CPU)" if s["device"] == "cpu" else "",
        ),
        "",
        _ran_in(doc),
        *(["- " + launch_line(doc)] if launch_line(doc) else []),
    ]
    out += _warning_bullets(doc)
    out += [
        "- every rank reported: **{}**".format(s["every_rank_reported"]),
        "- allreduce results correct: **{}**".format(s["correct"]),
        "- Horovod / %s %s at >= 64 MiB (%d workers): **%s**%s%s"
        % (
            ar.get("peer_library") or "peer",
            "allreduce speed" if _one_worker(doc) else "bus bandwidth",
            ar["workers"],
            _f(s["ratio_large"]),
            "" if s["ratio_large_measured_at_64MiB"] else " (largest size measured is below 64 MiB)",
            " (" + _ONE_WORKER_NOTE + ")" if _one_worker(doc) else "",
        ),
        "- scaling efficiency at {} workers: **{}**".format(
            doc["scaling"][-1]["workers"] if doc["scaling"] else "-", _f(s["efficiency_max_workers"])
        ),
        "- " + link_line(doc),
    ]
    if overhead_line(doc):
        out.append("- " + overhead_line(doc).replace(": ", ": **", 1).replace(" (", "** (", 1))
    if transport_line(doc):
        out.append("- " + transport_line(doc))
    if doc.get("nccl_tests"):
        out.append(
            "- nccl-tests all_reduce_perf average bus bandwidth: %s GB/s; Horovod / nccl-tests bus bandwidth at "
            ">= 64 MiB: **%s**" % (_f(doc["nccl_tests"].get("avg_busbw_GBps")), _f(s.get("ratio_nccl_tests_large")))
        )
    out.append("")
    out += [
        "## Allreduce (%d workers)" % ar["workers"],
        "",
        "| size | Horovod time (median / p90) | Horovod busbw Gbit/s | peer time (median) "
        "| peer busbw Gbit/s | ratio (p10-p90) | Horovod / link |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    hvd_by = {r["bytes"]: r for r in ar["horovod"]}
    for c in doc["comparison"]:
        h = hvd_by[c["bytes"]]
        out.append(
            "| {} | {:.3f} / {:.3f} ms | {} | {} | {} | {} | {} |".format(
                human_bytes(c["bytes"]),
                h["time_median_s"] * 1e3,
                h["time_p90_s"] * 1e3,
                _gbps(c["horovod_busbw_Bps"]),
                "-" if c["peer_time_s"] is None else "%.3f ms" % (c["peer_time_s"] * 1e3),
                _gbps(c["peer_busbw_Bps"]),
                _ratio(c),
                _f(c["horovod_link_fraction"]),
            )
        )
    out += _allreduce_notes(doc)
    if doc["scaling"]:
        out += ["## Training throughput (synthetic data)", ""]
        if shared_warning(doc):
            out += ["> **Contention, not scaling**: " + shared_warning(doc) + ".", ""]
        out += [
            "| workers | nodes | model | device | samples/s total | samples/s per worker | efficiency |",
            "|---:|---:|---|---|---:|---:|---:|",
        ]
        for sc in doc["scaling"]:
            out.append(
                "| %d | %s | %s | %s | %.1f | %.1f | %s |"
                % (
                    sc["workers"],
                    sc.get("nodes") or "-",
                    sc["model"],
                    sc["device"],
                    sc["samples_per_s_total"],
                    sc["samples_per_s_per_worker"],
                    _f(sc["efficiency"]),
                )
            )
        out += ["", "Efficiency = throughput(N) / (N x throughput(1)).", ""]
    out += overhead_section(doc)
    out += elastic_section(doc)
    out += _nccl_tests_section(doc)
    if doc["link"]:
        out += ["## Link (iperf3 from the launcher)", "", "| host | Gbit/s |", "|---|---:|"]
        out += ["| {} | {:.2f} |".format(x["host"], x["bits_per_second"] / 1e9) for x in doc["link"]]
        out.append("")
    out += ["## Tuning used", "", "| variable | value |", "|---|---|"]
    out += ["| {} | {} |".format(k, doc["tuning"][k]) for k in sorted(doc["tuning"])]
    out += _runs_section(doc)
    if doc["hosts"]:
        out += ["", "## Hosts", "", "| host | address | slots | details |", "|---|---|---:|---|"]
        for h in doc["hosts"]:
            rest = ", ".join(f"{k}={h[k]}" for k in sorted(h) if k not in ("name", "address", "slots"))
            out.append("| {} | {} | {} | {} |".format(h["name"], h.get("address", "-"), h.get("slots", "-"), rest))
    out += _nodes_section(doc)
    out += _health_section(doc)
    if doc["stack"]:
        out += ["", "## Stack", "", "| component | version |", "|---|---|"]
        out += [
            "| {} | {} |".format(k, doc["stack"][k])
            for k in sorted(doc["stack"])
            if not isinstance(doc["stack"][k], (dict, list))
        ]
    if plots:
        out += ["", "## Plots", ""] + [f"![{os.path.basename(p)}]({os.path.basename(p)})" for p in plots]
    out.append("")
    return "\n".join(out)


def write_report(doc: Dict[str, Any], outdir: str, plots: bool = True) -> Dict[str, Any]:
    """Write result.json, report.md and (optionally) the PNG plots into outdir."""
    os.makedirs(outdir, exist_ok=True)
    plot_paths = render_plots(doc, outdir) if plots else []
    result = os.path.join(outdir, "result.json")
    with open(result, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    report = os.path.join(outdir, "report.md")
    with open(report, "w") as f:
        f.write(render_markdown(doc, plot_paths))
    return {"result": result, "report": report, "plots": plot_paths}
