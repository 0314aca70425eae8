"""Converge benchmark of the sandbox (make bench-converge): how long site.yml takes, and where.

For each node count (1 and 3 by default), side by side in one run:

1. remove the sandbox, start a fresh one with that many nodes (playbooks/sandbox.yml), empty the
   fact cache and give the run its own, empty Horovod wheel cache (so the first converge includes
   the Horovod build, as on a new cluster);
2. first converge: ``ansible-playbook site.yml --limit <nodes> --skip-tags benchmark``;
3. re-run of the same command, which must change nothing.

Each run is timed (wall clock) and its per-role times are read from the ``profile_roles`` callback
(``profile_tasks`` gives the per-task list in the logs). The result is written as JSON and as the
"Converge speed" section of docs/performance.md (between its markers); the logs stay in the output
directory. Targets (issue 37): no-change re-run of 3 nodes <= 25 s; 3-node first converge <= 1.2 x
the 1-node one.

Not a test: nothing here passes or fails a build; it measures, and says whether the targets hold.
"""

from __future__ import annotations

import argparse
import configparser
import datetime as dt
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INVENTORY = "inventories/sandbox/hosts.yml"
START = "<!-- bench-converge:start -->"
END = "<!-- bench-converge:end -->"
RECAP_RE = re.compile(
    r"^(?P<host>\S+)\s*:\s*ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+unreachable=(?P<unreachable>\d+)\s+"
    r"failed=(?P<failed>\d+)\s+skipped=(?P<skipped>\d+)"
)
ROLE_RE = re.compile(r"^(?P<role>\S.*?) -+ (?P<secs>[0-9.]+)s$")
TARGET_RERUN_S = 25.0
TARGET_FIRST_RATIO = 1.2


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def callbacks() -> str:
    """The callbacks ansible.cfg enables (timed as users run them: gpucluster.horovod.preload among them), plus
    profile_roles for the per-role times."""
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(ROOT / "ansible.cfg")
    names = [n.strip() for n in cfg.get("defaults", "callbacks_enabled", fallback="").split(",") if n.strip()]
    for name in ("ansible.posix.profile_tasks", "ansible.posix.profile_roles"):
        if name not in names:
            names.append(name)
    return ",".join(names)


def run(cmd: list[str], log: Path, env: dict | None = None) -> tuple[float, float, int, str]:
    """Run a command, keep its output in ``log``; return (seconds, controller CPU seconds, rc, output).

    Controller CPU: what the command and its children used (ansible-playbook, its workers, its ssh
    clients), not the nodes' module runs, which belong to the containers' sshd.
    """
    cpu_before = _children_cpu()
    start = time.monotonic()
    proc = subprocess.run(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False
    )
    secs = time.monotonic() - start
    cpu = _children_cpu() - cpu_before
    log.write_text(f"$ {' '.join(cmd)}\n{proc.stdout}\n# rc={proc.returncode} wall={secs:.1f}s cpu={cpu:.1f}s\n")
    return secs, cpu, proc.returncode, proc.stdout


def parse_recap(output: str) -> dict:
    """PLAY RECAP per host (the last recap of the run) and the ROLES RECAP of profile_roles."""
    hosts: dict = {}
    roles: dict = {}
    section = None
    for line in output.splitlines():
        if line.startswith("PLAY RECAP"):
            section = "play"
            continue
        if line.startswith("ROLES RECAP"):
            section = "roles"
            continue
        if line.startswith(("TASKS RECAP", "=====")) or line.startswith("~~~"):
            if line.startswith("TASKS RECAP"):
                section = None
            continue
        if section == "play":
            m = RECAP_RE.match(line)
            if m:
                hosts[m.group("host")] = {k: int(v) for k, v in m.groupdict().items() if k != "host"}
        elif section == "roles":
            m = ROLE_RE.match(line.strip())
            if m and m.group("role") != "total":
                name = m.group("role").replace("gpucluster.horovod.", "")
                roles[name] = roles.get(name, 0.0) + float(m.group("secs"))
    return {"hosts": hosts, "roles": roles}


def converge(nodes: int, outdir: Path, env: dict) -> dict:
    limit = ",".join(f"node{i}" for i in range(1, nodes + 1))
    wheels = outdir / f"wheels-{nodes}"
    shutil.rmtree(wheels, ignore_errors=True)
    shutil.rmtree(ROOT / ".cache" / "facts", ignore_errors=True)
    rc = run(
        ["ansible-playbook", "playbooks/sandbox.yml", "-e", "sandbox_state=absent"],
        outdir / f"sandbox-absent-{nodes}.log",
        env,
    )[2]
    if rc:
        sys.exit(f"removing the sandbox failed: {outdir}/sandbox-absent-{nodes}.log")
    rc = run(
        ["ansible-playbook", "playbooks/sandbox.yml", "-e", f"sandbox_node_count={nodes}"],
        outdir / f"sandbox-{nodes}.log",
        env,
    )[2]
    if rc:
        sys.exit(f"starting the sandbox failed: {outdir}/sandbox-{nodes}.log")
    cmd = [
        "ansible-playbook", "site.yml", "-i", INVENTORY, "--limit", limit, "--skip-tags", "benchmark",
        "-e", f"horovod_wheel_cache_dir={wheels}",
    ]  # fmt: skip
    result: dict = {"nodes": nodes, "command": " ".join(cmd)}
    for phase in ("first", "rerun"):
        log = outdir / f"converge-{nodes}-{phase}.log"
        secs, cpu, rc, out = run(cmd, log, env)
        if rc:
            sys.exit(f"{phase} converge of {nodes} node(s) failed (rc {rc}): {log}")
        recap = parse_recap(out)
        result[phase] = {
            "seconds": round(secs, 1),
            "controller_cpu_seconds": round(cpu, 1),
            "log": str(log.relative_to(ROOT)) if log.is_relative_to(ROOT) else str(log),
            "changed": sum(h["changed"] for h in recap["hosts"].values()),
            "tasks_per_host": {h: v["ok"] + v["skipped"] for h, v in recap["hosts"].items()},
            "roles": {k: round(v, 1) for k, v in sorted(recap["roles"].items(), key=lambda kv: -kv[1])},
        }
        print(f"{nodes} node(s), {phase}: {secs:.1f} s, changed={result[phase]['changed']}", flush=True)
    return result


def machine() -> dict:
    mem = ""
    try:
        kb = int(
            next(
                line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
            ).split()[1]
        )
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return {"cpus": os.cpu_count(), "memory": mem, "kernel": platform.release(), "load_before": os.getloadavg()[0]}


def markdown(data: dict) -> str:
    runs = {r["nodes"]: r for r in data["runs"]}
    counts = sorted(runs)
    m = data["machine"]
    lines = [
        START,
        "## Converge speed (make bench-converge)",
        "",
        f"Measured {data['date']} on the sandbox: {m['cpus']} CPU cores, {m['memory']}, kernel {m['kernel']}, load "
        f"average {m['load_before']:.2f} before the run; the nodes are systemd containers on the same machine, reached "
        "over SSH (pipelining, ControlPersist). Written by `make bench-converge` (`tools/bench_converge.py`): for each "
        "node count a fresh sandbox, an empty fact cache and an empty Horovod wheel cache, then",
        "",
        "    "
        + re.sub(
            r"horovod_wheel_cache_dir=\S+",
            "horovod_wheel_cache_dir=<an empty directory>",
            runs[counts[0]]["command"].replace("node1", "<nodes>", 1),
        )
        if counts
        else "",
        "",
        "twice: the first converge (Horovod built once, on the builder) and the re-run, which changes nothing.",
        "",
        "| nodes | first converge | no-change re-run | changed on re-run | tasks per host (re-run) "
        "| controller CPU, first / re-run |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for n in counts:
        r = runs[n]
        tasks = max(r["rerun"]["tasks_per_host"].values()) if r["rerun"]["tasks_per_host"] else 0
        first, rerun = r["first"]["seconds"], r["rerun"]["seconds"]
        cpu_first, cpu_rerun = r["first"].get("controller_cpu_seconds", 0), r["rerun"].get("controller_cpu_seconds", 0)
        cpu = f"{cpu_first:.1f} s / {cpu_rerun:.1f} s"
        lines.append(f"| {n} | {first:.1f} s | {rerun:.1f} s | {r['rerun']['changed']} | {tasks} | {cpu} |")
    lines.append("")
    if 1 in runs and 3 in runs:
        ratio = runs[3]["first"]["seconds"] / runs[1]["first"]["seconds"]
        rerun3 = runs[3]["rerun"]["seconds"]
        lines += [
            "Targets:",
            "",
            f"- no-change re-run of 3 nodes {rerun3:.1f} s, target <= {TARGET_RERUN_S:.0f} s: "
            f"**{'met' if rerun3 <= TARGET_RERUN_S else 'NOT met'}**",
            f"- 3-node first converge / 1-node first converge = {ratio:.2f}, target <= {TARGET_FIRST_RATIO}: "
            f"**{'met' if ratio <= TARGET_FIRST_RATIO else 'NOT met'}**",
            "",
        ]
    roles = sorted({role for r in data["runs"] for p in ("first", "rerun") for role in r[p]["roles"]})
    roles.sort(key=lambda role: -max(r[p]["roles"].get(role, 0) for r in data["runs"] for p in ("first", "rerun")))
    header = (
        "| role (profile_roles, s) | "
        + " | ".join(f"{n} node{'s' if n > 1 else ''} first | {n} re-run" for n in counts)
        + " |"
    )
    lines += [header, "|---|" + "---:|" * (2 * len(counts))]
    for role in roles:
        cells = []
        for n in counts:
            cells += [f"{runs[n]['first']['roles'].get(role, 0):.1f}", f"{runs[n]['rerun']['roles'].get(role, 0):.1f}"]
        lines.append(f"| {role} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Logs (per-task times from profile_tasks): `{data['outdir']}/converge-<nodes>-<first|rerun>.log`.",
        END,
    ]
    return "\n".join(lines) + "\n"


def write_doc(doc: Path, section: str, start: str = START, end: str = END) -> None:
    """The section replaces what lies between its markers, or goes at the end of the document."""
    text = doc.read_text() if doc.exists() else ""
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + section.rstrip("\n") + after
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--nodes", default="1,3", help="node counts, comma-separated (default 1,3)")
    parser.add_argument("--outdir", default="tests/output/bench-converge")
    parser.add_argument("--doc", default="docs/performance.md", help="file to write the section into ('' for none)")
    args = parser.parse_args()
    outdir = (ROOT / args.outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["ANSIBLE_CALLBACKS_ENABLED"] = callbacks()
    env["PROFILE_TASKS_TASK_OUTPUT_LIMIT"] = "all"
    env["PROFILE_TASKS_SORT_ORDER"] = "none"
    env.setdefault("ANSIBLE_FORCE_COLOR", "0")
    data = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "outdir": str(outdir.relative_to(ROOT)) if outdir.is_relative_to(ROOT) else str(outdir),
        "runs": [converge(int(n), outdir, env) for n in args.nodes.split(",")],
    }
    (outdir / "bench-converge.json").write_text(json.dumps(data, indent=2) + "\n")
    section = markdown(data)
    print(section)
    if args.doc:
        write_doc(ROOT / args.doc, section)
        print(f"written: {args.doc} (section between {START} and {END}), {outdir}/bench-converge.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
