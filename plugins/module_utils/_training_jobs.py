# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The distributed training jobs running on a host, from /proc, for the module gpucluster.horovod.training_jobs.

A process belongs to a training job when it is
- a launcher: ``horovodrun``, ``mpirun``/``mpiexec``/``orterun``/``prterun``, ``torchrun`` (run directly or as a
  Python script);
- an MPI daemon that launchers start on every node: ``orted`` (Open MPI 4), ``prted`` (Open MPI 5's PRRTE);
- a rank: its environment names its rank in a job of several (``HOROVOD_RANK`` with ``HOROVOD_SIZE`` from Horovod's
  Gloo launcher, ``OMPI_COMM_WORLD_RANK`` with ``OMPI_COMM_WORLD_SIZE`` from Open MPI, ``PMIX_RANK`` from PMIx,
  ``RANK`` with ``WORLD_SIZE`` and ``MASTER_ADDR`` from torch.distributed's launchers);
- or, when the caller names paths (the Horovod venv), a process whose executable or a mapped file lies under one of
  them: it runs what a change there would replace.

Processes are grouped into jobs by their session (``/proc/<pid>/stat``'s session id): a launcher started with
``setsid``/``nohup`` and its children, or the ranks sshd started for one remote launch. Reading is separated from
judging: ``read_proc`` turns a tree (the real /proc or a fixture under another root) into plain data, ``classify`` and
``group_jobs`` say which processes are training and which jobs they make. No Ansible imports; unit-tested on fixture
trees.
"""

from __future__ import annotations

import os
import re

LAUNCHERS = ("horovodrun", "mpirun", "mpiexec", "orterun", "prterun", "torchrun")
DAEMONS = ("orted", "prted")
_RANK_VARIABLES = (
    ("HOROVOD_RANK", "HOROVOD_SIZE", "Horovod (Gloo)"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"),
    ("PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "PMIx"),
    ("RANK", "WORLD_SIZE", "torch.distributed"),
)
_PYTHON = re.compile(r"^python[0-9.]*$")
COMMAND_CHARS = 160


def _read(path, mode="r"):
    try:
        if mode == "rb":
            with open(path, "rb") as handle:
                return handle.read()
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return b"" if mode == "rb" else ""


def _split_nul(data):
    return [part.decode("utf-8", "replace") for part in data.split(b"\0") if part]


def parse_stat(text):
    """``/proc/<pid>/stat`` -> (ppid, session id, start time in clock ticks after boot); None when unreadable.

    The command name (field 2) is in parentheses and may itself hold spaces and parentheses: the fields after it are
    read from the last ``)``.
    """
    end = text.rfind(")")
    if end < 0:
        return None
    fields = text[end + 1 :].split()
    # after the name: state(3) ppid(4) pgrp(5) session(6) ... starttime(22)
    try:
        return int(fields[1]), int(fields[3]), int(fields[19])
    except (IndexError, ValueError):
        return None


def parse_uid(status_text):
    """The real uid from ``/proc/<pid>/status`` (``Uid:`` line), or None."""
    match = re.search(r"^Uid:\s+(\d+)", status_text, re.MULTILINE)
    return int(match.group(1)) if match else None


def read_proc(root="/", with_maps=False, within=""):
    """Every process under ``<root>/proc``: pid, ppid, sid, uid, start (ticks), argv, environment and, with
    ``with_maps``, its executable and the files it maps. With ``within`` (a container's id) only the processes whose
    control groups name it (``/proc/<pid>/cgroup``: ``/docker/<id>`` or ``docker-<id>.scope``). Processes that end
    while being read are left out; the environment and maps of another user's process need root (the module runs as
    root)."""
    proc = os.path.join(root, "proc")
    found = []
    try:
        names = os.listdir(proc)
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        base = os.path.join(proc, name)
        if within and within not in _read(os.path.join(base, "cgroup")):
            continue
        stat = parse_stat(_read(os.path.join(base, "stat")))
        if stat is None:
            continue
        argv = _split_nul(_read(os.path.join(base, "cmdline"), "rb"))
        if not argv:  # a kernel thread, or a process that has just ended
            continue
        environ = {}
        for item in _split_nul(_read(os.path.join(base, "environ"), "rb")):
            key, sep, value = item.partition("=")
            if sep:
                environ[key] = value
        entry = {
            "pid": int(name),
            "ppid": stat[0],
            "sid": stat[1],
            "start_ticks": stat[2],
            "uid": parse_uid(_read(os.path.join(base, "status"))),
            "argv": argv,
            "environ": environ,
        }
        if with_maps:
            try:
                entry["exe"] = os.readlink(os.path.join(base, "exe"))
            except OSError:
                entry["exe"] = ""
            mapped = set()
            for line in _read(os.path.join(base, "maps")).splitlines():
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    mapped.add(parts[5].replace(" (deleted)", ""))
            entry["maps"] = sorted(mapped)
        found.append(entry)
    return sorted(found, key=lambda entry: entry["pid"])


def _program(argv):
    """The program a command line runs: ``python3 /usr/local/bin/horovodrun ...`` -> ``horovodrun``."""
    first = os.path.basename(argv[0]) if argv else ""
    if _PYTHON.match(first) and len(argv) > 1:
        rest = [arg for arg in argv[1:] if not arg.startswith("-") or arg == "-m"]
        if rest[:1] == ["-m"] and len(rest) > 1:
            return rest[1].split(".")[0]
        if rest:
            return os.path.basename(rest[0])
    return first


def _under(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def classify(entry, paths=()):
    """Why a process is part of a training job (a dict: ``role``, ``framework``, ``rank``, ``size``), or None."""
    program = _program(entry["argv"])
    if program in LAUNCHERS:
        return {"role": "launcher", "framework": program, "rank": None, "size": None}
    if os.path.basename(entry["argv"][0]) in DAEMONS:
        return {"role": "MPI daemon", "framework": os.path.basename(entry["argv"][0]), "rank": None, "size": None}
    environ = entry.get("environ") or {}
    for rank_var, size_var, framework in _RANK_VARIABLES:
        rank, size = environ.get(rank_var, ""), environ.get(size_var, "")
        if not rank.isdigit():
            continue
        if framework == "torch.distributed" and "MASTER_ADDR" not in environ:
            continue
        return {
            "role": "rank",
            "framework": framework,
            "rank": int(rank),
            "size": int(size) if size.isdigit() else None,
        }
    if paths:
        users = [entry.get("exe") or "", *(entry.get("maps") or [])]
        hits = [path for path in users if path and _under(path, paths)]
        if hits:
            return {"role": "uses " + hits[0], "framework": None, "rank": None, "size": None}
    return None


def _ancestors(entries, pid):
    by_pid = {entry["pid"]: entry for entry in entries}
    seen = set()
    while pid in by_pid and pid not in seen:
        seen.add(pid)
        pid = by_pid[pid]["ppid"]
    return seen


def _command(argv):
    text = " ".join(argv)
    return text if len(text) <= COMMAND_CHARS else text[: COMMAND_CHARS - 3] + "..."


def group_jobs(entries, paths=(), *, own_pid=None, uptime_s=None, ticks_per_s=100, users=None):
    """The training jobs among ``entries`` (``read_proc``'s): one per session, oldest first.

    ``own_pid`` and its ancestors (the module and the Ansible processes that started it) are never a job. ``uptime_s``
    (from ``/proc/uptime``) turns start times into ages. ``users`` maps uid -> name. Each job: ``session``, ``user``,
    ``leader`` (the session's launcher, else its oldest training process: pid and command), ``age_s``, ``processes``
    (pid, role, framework, rank, size, command) and ``summary`` (one line).
    """
    users = users or {}
    own = _ancestors(entries, own_pid) if own_pid is not None else set()
    sessions = {}
    for entry in entries:
        if entry["pid"] in own:
            continue
        why = classify(entry, paths)
        if why is None:
            continue
        process = dict(
            why, pid=entry["pid"], uid=entry["uid"], start_ticks=entry["start_ticks"], command=_command(entry["argv"])
        )
        sessions.setdefault(entry["sid"], []).append(process)
    jobs = []
    for sid, processes in sessions.items():
        processes.sort(key=lambda process: (process["start_ticks"], process["pid"]))
        launchers = [process for process in processes if process["role"] == "launcher"]
        leader = (launchers or processes)[0]
        uid = leader["uid"]
        user = users.get(uid, str(uid) if uid is not None else "?")
        age = None
        if uptime_s is not None and ticks_per_s:
            age = max(0, int(uptime_s - leader["start_ticks"] / ticks_per_s))
        ranks = [process for process in processes if process["role"] == "rank"]
        parts = [f"pid {leader['pid']} of {user}"]
        if age is not None:
            parts.append(f"running {_duration(age)}")
        if ranks:
            sizes = sorted({process["size"] for process in ranks if process["size"] is not None})
            of = f" of {sizes[0]}" if len(sizes) == 1 else ""
            numbers = ",".join(str(process["rank"]) for process in ranks)
            parts.append(f"{ranks[0]['framework']} rank{'s' if len(ranks) > 1 else ''} {numbers}{of} here")
        summary = f"{leader['command']} ({', '.join(parts)})"
        start = (leader["start_ticks"], leader["pid"])
        for process in processes:
            del process["start_ticks"]
        jobs.append(
            {
                "session": sid,
                "user": user,
                "leader": {"pid": leader["pid"], "command": leader["command"]},
                "age_s": age,
                "processes": processes,
                "summary": summary,
                "_start": start,
            }
        )
    jobs.sort(key=lambda job: job["_start"])
    for job in jobs:
        del job["_start"]
    return jobs


def _duration(seconds):
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
