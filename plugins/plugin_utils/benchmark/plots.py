# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark report's plots (busbw.png, scaling.png) from one combined result document.

Pure Python with no Ansible imports; matplotlib is imported only to draw. report.write_report calls
:func:`render_plots`.
"""

# ruff: noqa: UP031 - printf-style formatting, as in report.py

from __future__ import annotations

import os
from typing import Any, Dict, List

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.result import BenchmarkError, human_bytes


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
    fig = busbw_figure(doc, plt)
    p = os.path.join(outdir, "busbw.png")
    fig.savefig(p, dpi=100)
    plt.close(fig)
    paths.append(p)
    if doc["scaling"]:
        fig = scaling_figure(doc, plt)
        p = os.path.join(outdir, "scaling.png")
        fig.savefig(p, dpi=100)
        plt.close(fig)
        paths.append(p)
    return paths


def busbw_figure(doc: Dict[str, Any], plt: Any) -> Any:
    """Bus bandwidth by message size: both axes logarithmic (the small sizes are 1000 times below the large ones and
    were invisible on a linear axis), a tick at every measured size, named as the report names it (4 KiB, 64 MiB)."""
    ar = doc["allreduce"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    sizes = set()
    values = []
    for rows, label, style in ((ar["horovod"], "Horovod", "o-"), (ar["peer"], ar.get("peer_library") or "peer", "s--")):
        if rows:
            ys = [r["busbw_Bps"] * 8 / 1e9 for r in rows]
            ax.plot([r["bytes"] for r in rows], ys, style, label=label)
            sizes.update(r["bytes"] for r in rows)
            values += ys
    if doc["summary"]["link_Bps"]:
        source = "fabric port rate" if doc["summary"].get("link_source") == "fabric" else "iperf3"
        ax.axhline(doc["summary"]["link_Bps"] * 8 / 1e9, color="grey", linestyle=":", label="link (%s)" % source)
        values.append(doc["summary"]["link_Bps"] * 8 / 1e9)
    ax.set_xscale("log", base=2)
    if sizes:
        ticks = sorted(sizes)
        ax.set_xticks(ticks)
        ax.set_xticklabels([human_bytes(b) for b in ticks], rotation=45, ha="right")
        ax.minorticks_off()
    # bus bandwidth is 0 at one worker (nothing crosses a bus): a log axis only when every value can be drawn on it
    if values and min(values) > 0:
        ax.set_yscale("log")
    ax.set_xlabel("message size")
    ax.set_ylabel("bus bandwidth (Gbit/s)")
    ax.set_title("allreduce bus bandwidth, %d workers" % ar["workers"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    return fig


def scaling_figure(doc: Dict[str, Any], plt: Any) -> Any:
    """Throughput and efficiency by worker count: ticks at the measured worker counts only (no 1.25, 1.5 ...) and one
    legend for both lines inside the plot, clear of the axis labels."""
    fig, ax1 = plt.subplots(figsize=(7, 4.5))
    w = [s["workers"] for s in doc["scaling"]]
    (total,) = ax1.plot(w, [s["samples_per_s_total"] for s in doc["scaling"]], "o-", label="samples/s total")
    ax1.set_xlabel("workers")
    ax1.set_ylabel("samples/s")
    ax1.set_xticks(sorted(set(w)))
    ax1.set_xticklabels([str(x) for x in sorted(set(w))])
    ax1.set_ylim(bottom=0)
    ax2 = ax1.twinx()
    (eff,) = ax2.plot(
        w,
        [s["efficiency"] if s["efficiency"] is not None else float("nan") for s in doc["scaling"]],
        "s--",
        color="tab:red",
        label="efficiency",
    )
    ax2.set_ylabel("scaling efficiency")
    ax2.set_ylim(0, 1.2)
    ax1.set_title("synthetic training throughput")
    ax1.legend(handles=[total, eff], loc="lower left", framealpha=0.9)
    fig.tight_layout()
    return fig
