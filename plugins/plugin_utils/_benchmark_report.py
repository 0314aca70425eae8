# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark report rendering (controller side): the summary table, the Markdown report and the PNG plots.

Pure Python with no Ansible imports. Input: one result document from
``_benchmark.combine`` (``schema_version`` 1); matplotlib is imported only to draw the plots.
"""

# ruff: noqa: UP031 - printf-style widths (%-10s, %.2f) keep the fixed-width report tables readable
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence

from ansible_collections.gpucluster.horovod.plugins.plugin_utils._benchmark import BenchmarkError, human_bytes


def _gbps(bps: Optional[float]) -> str:
    return "-" if bps is None else "%.2f" % (bps * 8 / 1e9)


def _f(v: Optional[float], fmt: str = "%.2f") -> str:
    return "-" if v is None else fmt % v


def summary_table(doc: Dict[str, Any]) -> List[str]:
    """Short fixed-width table the play prints at the end."""
    s = doc["summary"]
    lines = ["%-10s %12s %12s %8s %12s" % ("size", "hvd Gbit/s", "peer Gbit/s", "ratio", "link frac")]
    for c in doc["comparison"]:
        if c["bytes"] < 1024 * 1024 and c is not doc["comparison"][0]:
            continue
        lines.append(
            "%-10s %12s %12s %8s %12s"
            % (
                human_bytes(c["bytes"]),
                _gbps(c["horovod_busbw_Bps"]),
                _gbps(c["peer_busbw_Bps"]),
                _f(c["ratio"]),
                _f(c["horovod_link_fraction"]),
            )
        )
    for sc in doc["scaling"]:
        lines.append(
            "workers %-3d %10.1f samples/s total, efficiency %s"
            % (sc["workers"], sc["samples_per_s_total"], _f(sc["efficiency"]))
        )
    lines.append(
        (
            "framework {} | device {} | ran in {} | every rank reported: {} | results correct: {}"
            " | hvd/peer busbw >=64MiB: {}"
        ).format(
            s.get("framework", "pytorch"),
            s["device"],
            s.get("ran_in", "hosts"),
            s["every_rank_reported"],
            s["correct"],
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
        "- every rank reported: **{}**".format(s["every_rank_reported"]),
        "- allreduce results correct: **{}**".format(s["correct"]),
        "- Horovod / %s bus bandwidth at >= 64 MiB (%d workers): **%s**%s"
        % (
            ar.get("peer_library") or "peer",
            ar["workers"],
            _f(s["ratio_large"]),
            "" if s["ratio_large_measured_at_64MiB"] else " (largest size measured is below 64 MiB)",
        ),
        "- scaling efficiency at {} workers: **{}**".format(
            doc["scaling"][-1]["workers"] if doc["scaling"] else "-", _f(s["efficiency_max_workers"])
        ),
        "- link limit (iperf3, slowest node): {} Gbit/s".format(_gbps(s["link_Bps"])),
        "",
    ]
    out += [
        "## Allreduce (%d workers)" % ar["workers"],
        "",
        "| size | Horovod time (median / p90) | Horovod busbw Gbit/s | peer time (median) "
        "| peer busbw Gbit/s | ratio | Horovod / link |",
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
                _f(c["ratio"]),
                _f(c["horovod_link_fraction"]),
            )
        )
    out += ["", "Bus bandwidth = size / time x 2(n-1)/n; time = median over iterations of the slowest rank.", ""]
    if doc["scaling"]:
        out += [
            "## Training throughput (synthetic data)",
            "",
            "| workers | model | device | samples/s total | samples/s per worker | efficiency |",
            "|---:|---|---|---:|---:|---:|",
        ]
        for sc in doc["scaling"]:
            out.append(
                "| %d | %s | %s | %.1f | %.1f | %s |"
                % (
                    sc["workers"],
                    sc["model"],
                    sc["device"],
                    sc["samples_per_s_total"],
                    sc["samples_per_s_per_worker"],
                    _f(sc["efficiency"]),
                )
            )
        out += ["", "Efficiency = throughput(N) / (N x throughput(1)).", ""]
    if doc["link"]:
        out += ["## Link (iperf3 from the launcher)", "", "| host | Gbit/s |", "|---|---:|"]
        out += ["| {} | {:.2f} |".format(x["host"], x["bits_per_second"] / 1e9) for x in doc["link"]]
        out.append("")
    out += ["## Tuning used", "", "| variable | value |", "|---|---|"]
    out += ["| {} | {} |".format(k, doc["tuning"][k]) for k in sorted(doc["tuning"])]
    out += ["", "## Runs", "", "| tag | library | workers | device |", "|---|---|---:|---|"]
    out += ["| %s | %s | %d | %s |" % (r["tag"], r["library"], r["workers"], r["device"]) for r in doc["runs"]]
    if doc["hosts"]:
        out += ["", "## Hosts", "", "| host | address | slots | details |", "|---|---|---:|---|"]
        for h in doc["hosts"]:
            rest = ", ".join(f"{k}={h[k]}" for k in sorted(h) if k not in ("name", "address", "slots"))
            out.append("| {} | {} | {} | {} |".format(h["name"], h.get("address", "-"), h.get("slots", "-"), rest))
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


def render_plots(doc: Dict[str, Any], outdir: str) -> List[str]:
    """Write busbw.png and scaling.png into outdir; needs matplotlib on the controller."""
    try:
        import matplotlib  # noqa: PLC0415 - optional controller dependency, only needed for plots

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415 - after matplotlib.use("Agg")
    except ImportError as exc:
        raise BenchmarkError(
            "benchmark plots need the Python package 'matplotlib' on the control node "
            "(pip install matplotlib), or set horovod_benchmark_plots: false"
        ) from exc
    paths = []
    ar = doc["allreduce"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for rows, label, style in ((ar["horovod"], "Horovod", "o-"), (ar["peer"], ar.get("peer_library") or "peer", "s--")):
        if rows:
            ax.plot([r["bytes"] for r in rows], [r["busbw_Bps"] * 8 / 1e9 for r in rows], style, label=label)
    if doc["summary"]["link_Bps"]:
        ax.axhline(doc["summary"]["link_Bps"] * 8 / 1e9, color="grey", linestyle=":", label="link (iperf3)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (Gbit/s)")
    ax.set_title("allreduce bus bandwidth, %d workers" % ar["workers"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    p = os.path.join(outdir, "busbw.png")
    fig.tight_layout()
    fig.savefig(p, dpi=100)
    plt.close(fig)
    paths.append(p)
    if doc["scaling"]:
        fig, ax1 = plt.subplots(figsize=(7, 4.5))
        w = [s["workers"] for s in doc["scaling"]]
        ax1.plot(w, [s["samples_per_s_total"] for s in doc["scaling"]], "o-", label="samples/s total")
        ax1.set_xlabel("workers")
        ax1.set_ylabel("samples/s")
        ax2 = ax1.twinx()
        ax2.plot(
            w,
            [s["efficiency"] if s["efficiency"] is not None else float("nan") for s in doc["scaling"]],
            "s--",
            color="tab:red",
            label="efficiency",
        )
        ax2.set_ylabel("scaling efficiency")
        ax2.set_ylim(0, 1.2)
        ax1.set_title("synthetic training throughput")
        fig.legend(loc="lower right")
        p = os.path.join(outdir, "scaling.png")
        fig.tight_layout()
        fig.savefig(p, dpi=100)
        plt.close(fig)
        paths.append(p)
    return paths


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
