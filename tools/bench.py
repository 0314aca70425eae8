"""The benchmark on the sandbox (make bench): site.yml with its benchmark, and docs/performance.md written from it.

1. the sandbox of ``playbooks/sandbox.yml`` (three systemd containers on this machine, started when absent);
2. ``ansible-playbook site.yml -i inventories/sandbox/hosts.yml`` with the benchmark's results going to the output
   directory (the converge changes nothing on a sandbox that has converged before; the benchmark always runs);
3. the run's result.json and report.md copied to ``docs/bench/`` (committed: small, the raw figures behind the doc);
4. the "Benchmark on the sandbox" section of docs/performance.md (between its markers) written from that result:
   the command, the commit, the date, the machine and its load, the paired comparison with its spreads, the goals,
   the scaling and the one-worker overhead.

Not a test: it measures and says whether the goals hold; nothing passes or fails on its figures.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench_converge import machine, write_doc

# The collection's own renderers (result.human_bytes, report.goal_lines), as the report writes them: not a copy here.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / ".cache" / "collections"))
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.report import goal_lines
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.result import human_bytes

ROOT = Path(__file__).resolve().parents[1]
INVENTORY = "inventories/sandbox/hosts.yml"
START = "<!-- bench:start -->"
END = "<!-- bench:end -->"


def _sh(cmd: list[str], log: Path) -> tuple[float, int]:
    start = time.monotonic()
    with log.open("w") as out:
        rc = subprocess.call(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    return time.monotonic() - start, rc


def _commit() -> str:
    git = {"cwd": ROOT, "capture_output": True, "text": True}
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=False, **git).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], check=False, **git).stdout.strip()
    return head + (" (with uncommitted changes)" if dirty else "")


def _g(v: float | None, fmt: str = "{:.2f}") -> str:
    return "-" if v is None else fmt.format(v)


def markdown(meta: dict, result: dict) -> str:
    s, m = result["summary"], meta["machine"]
    ar = result["allreduce"]
    lines = [
        START,
        "## Benchmark on the sandbox (make bench)",
        "",
        f"Measured {meta['date']} at commit {meta['commit']} by `make bench` (`tools/bench.py`): {m['cpus']} CPU "
        f"cores, {m['memory']}, kernel {m['kernel']}, load average {m['load_before']:.2f} before the run; the nodes "
        "are the sandbox's systemd containers on this one machine (they share its cores: scaling here is contention, "
        "not a cluster's). The command, after `playbooks/sandbox.yml`:",
        "",
        f"    {meta['command']}",
        "",
        f"It took {meta['seconds']:.0f} s. Raw result and report: `docs/bench/result.json`, `docs/bench/report.md`.",
        "",
        f"### Allreduce, {ar['workers']} workers: Horovod and {ar.get('peer_library') or 'the peer'}",
        "",
        "| size | Horovod busbw Gbit/s | peer busbw Gbit/s | Horovod / peer, median (p10-p90) |",
        "|---:|---:|---:|---:|",
    ]
    for c in result["comparison"]:
        spread = "" if c.get("ratio_p10") is None else f" ({c['ratio_p10']:.2f}-{c['ratio_p90']:.2f})"
        lines.append(
            f"| {human_bytes(c['bytes'])} | {_g(c['horovod_busbw_Bps'] * 8e-9, '{:.3f}')} "
            f"| {_g(c['peer_busbw_Bps'] * 8e-9 if c['peer_busbw_Bps'] is not None else None, '{:.3f}')} "
            f"| {_g(c['ratio'])}{spread} |"
        )
    paired = any(c.get("paired") for c in result["comparison"])
    lines += [
        "",
        "The peer ran in the same job as Horovod, their iterations interleaved: each ratio is the median of the "
        "iterations' paired ratios, p10-p90 their spread."
        if paired
        else "The peer ran as a job of its own: no spread measured.",
        "",
        "### Goals",
        "",
    ]
    if not s.get("goals"):
        lines.append("- (this result predates the goals)")
    lines += [f"- {line}" for line in goal_lines(result)]
    lines += [
        "",
        "### Training throughput (synthetic data)",
        "",
        "| workers | model | device | samples/s total | efficiency |",
        "|---:|---|---|---:|---:|",
    ]
    for sc in result.get("scaling") or []:
        lines.append(
            f"| {sc['workers']} | {sc.get('model')} | {sc.get('device')} | {sc['samples_per_s_total']:.1f} "
            f"| {_g(sc.get('efficiency'))} |"
        )
    over = result.get("overhead") or {}
    if over.get("overhead_ratio") is not None:
        lines += [
            "",
            f"Horovod at one worker: {over['horovod_1_samples_per_s']:.1f} samples/s against the plain framework's "
            f"{over['plain_samples_per_s']:.1f} in one process: {over['overhead_ratio']:.2f}"
            + (f" (the means of {over['runs'][1]} and {over['runs'][0]} runs, alternating)" if over.get("runs") else "")
            + (
                f"; by the median of their {over['steps'][1]} and {over['steps'][0]} timed steps "
                f"{over['step_ratio_median']:.2f} (p10-p90 of every pair of steps "
                f"{over['step_ratio_p10']:.2f}-{over['step_ratio_p90']:.2f}), what the goal is judged on."
                if over.get("step_ratio_median") is not None
                else "."
            ),
        ]
    link = result.get("link") or []
    if link:
        lines += [
            "",
            "Link (iperf3 from the launcher): "
            + ", ".join(f"{x['host']} {x['bits_per_second'] / 1e9:.1f} Gbit/s" for x in link)
            + ".",
        ]
    lines.append(END)
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--outdir", default="tests/output/bench")
    parser.add_argument("--doc", default="docs/performance.md", help="file to write the section into ('' for none)")
    parser.add_argument("--raw", default="docs/bench", help="where the result.json and report.md go ('' for none)")
    args = parser.parse_args()
    outdir = (ROOT / args.outdir).resolve()
    shutil.rmtree(outdir, ignore_errors=True)
    (outdir / "results").mkdir(parents=True)
    load, commit = machine(), _commit()
    seconds, rc = _sh(["ansible-playbook", "playbooks/sandbox.yml"], outdir / "sandbox.log")
    if rc:
        print(f"bench: the sandbox did not start (rc {rc}): {outdir}/sandbox.log", file=sys.stderr)
        return rc
    cmd = ["ansible-playbook", "site.yml", "-i", INVENTORY, "-e", f"horovod_benchmark_results_dir={outdir}/results"]
    seconds, rc = _sh(cmd, outdir / "site.log")
    found = sorted((outdir / "results").rglob("result.json"), key=lambda p: p.stat().st_mtime)
    if rc or not found:
        print(f"bench: site.yml failed (rc {rc}) or wrote no result: {outdir}/site.log", file=sys.stderr)
        return rc or 1
    result = json.loads(found[-1].read_text())
    shown = " ".join(cmd).replace(str(outdir), "<outdir>")
    meta = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "machine": load,
        "command": shown,
        "seconds": seconds,
    }
    section = markdown(meta, result)
    print(section)
    if args.raw:
        raw = ROOT / args.raw
        raw.mkdir(parents=True, exist_ok=True)
        shutil.copy(found[-1], raw / "result.json")
        shutil.copy(found[-1].parent / "report.md", raw / "report.md")
        (raw / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    if args.doc:
        write_doc(ROOT / args.doc, section, START, END)
        print(f"written: {args.doc} (section between {START} and {END}), {args.raw}/result.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
