# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The site's Slurm as its own tools describe it, for the module gpucluster.horovod.slurm_facts.

Parsers for the text of ``scontrol show config``, ``scontrol -o show node``, ``scontrol -o show partition``,
``scontrol ping``, ``srun --mpi=list`` and ``srun --mpi=pmix --test-only`` (Slurm 22.05; fixtures captured from
Debian 12's Slurm in tests/unit/fixtures/slurm), Slurm's host list expressions, and the PAM stack's
``pam_slurm_adopt``. Reading is separated from judging: ``summarize`` and ``host_problems`` take plain data.
No Ansible imports.
"""

from __future__ import annotations

import re

# `scontrol -o` prints Key=Value pairs separated by spaces; values may hold spaces (OS=Linux 6.1 #1 SMP ...,
# Reason=NO NETWORK ADDRESS FOUND [slurm@...]), keys never do. A key starts a word and is followed by '='.
_PAIR_KEY = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_:/.]*)=")
_CONFIG_LINE = re.compile(r"^(\S+)\s*=\s?(.*)$")
_PING = re.compile(r"^Slurmctld\((\w+)\) at (\S+) is (UP|DOWN)", re.M)
_NULL = {"(null)", "(null type)", "N/A", "n/a", "None", ""}
# The MPI plugins that start Open MPI's and MPICH's ranks under srun without mpirun
PMIX_TYPES = ("pmix",)


def _value(text):
    text = text.strip()
    return None if text in _NULL else text


def parse_config(text):
    """``scontrol show config`` -> {key: value or None}; SlurmctldHost[0], SlurmctldHost[1] ... collected as
    ``SlurmctldHosts`` (the controllers in order). The "MPI Plugins Configuration" section's keys are included."""
    config = {}
    hosts = []
    for line in text.splitlines():
        match = _CONFIG_LINE.match(line.strip())
        if not match or (" = " not in line and not line.rstrip().endswith("=")):
            continue
        key, value = match.group(1), _value(match.group(2))
        host = re.match(r"^SlurmctldHost\[(\d+)\]$", key)
        if host:
            hosts.append((int(host.group(1)), value))
            continue
        config[key] = value
    config["SlurmctldHosts"] = [host for _index, host in sorted(hosts) if host]
    return config


def parse_pairs(line):
    """One line of ``scontrol -o show ...`` -> {key: value or None}."""
    keys = list(_PAIR_KEY.finditer(line))
    pairs = {}
    for i, match in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
        pairs[match.group(1)] = _value(line[match.end() : end])
    return pairs


def _int(value):
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def split_state(state):
    """``IDLE+DRAIN`` -> ('IDLE', ['DRAIN']); ``DOWN*`` (not responding) -> ('DOWN', ['NOT_RESPONDING'])."""
    state = (state or "UNKNOWN").strip()
    flags = []
    if state.endswith("*"):
        state = state.rstrip("*")
        flags.append("NOT_RESPONDING")
    base, *rest = state.split("+")
    return base, [*rest, *flags]


def _records(text, key):
    """The pairs of each ``scontrol -o show ...`` line that starts with ``key=`` (other lines are banners)."""
    return [parse_pairs(line) for line in (text or "").splitlines() if line.startswith(key + "=")]


def parse_nodes(text):
    """``scontrol -o show node`` -> one dict per node."""
    nodes = []
    for pairs in _records(text, "NodeName"):
        base, flags = split_state(pairs.get("State"))
        nodes.append(
            {
                "name": pairs.get("NodeName"),
                "address": pairs.get("NodeAddr"),
                "hostname": pairs.get("NodeHostName"),
                "state": base,
                "flags": flags,
                "usable": base in ("IDLE", "MIXED", "ALLOCATED", "COMPLETING")
                and not {"DRAIN", "DRAINED", "DRAINING", "FAIL", "MAINTENANCE", "NOT_RESPONDING", "REBOOT_ISSUED"}
                & set(flags),
                "reason": pairs.get("Reason"),
                "cpus": _int(pairs.get("CPUTot")),
                "gres": pairs.get("Gres"),
                "gpus": gres_gpus(pairs.get("Gres")),
                "partitions": (pairs.get("Partitions") or "").split(",") if pairs.get("Partitions") else [],
                "version": pairs.get("Version"),
            }
        )
    return nodes


def gres_gpus(gres):
    """The GPU count of a node's Gres (``gpu:8``, ``gpu:h100:8(S:0-1)``, ``gpu:a100:4,nic:1``); 0 without GPUs."""
    total = 0
    for item in (gres or "").split(","):
        parts = re.sub(r"\(.*?\)", "", item).split(":")
        if parts and parts[0] == "gpu":
            count = _int(parts[-1]) if len(parts) > 1 else 1
            total += count or 0
    return total


def parse_partitions(text):
    """``scontrol -o show partition`` -> one dict per partition (nodes expanded)."""
    partitions = []
    for pairs in _records(text, "PartitionName"):
        partitions.append(
            {
                "name": pairs.get("PartitionName"),
                "nodes": expand_hostlist(pairs.get("Nodes") or ""),
                "default": (pairs.get("Default") or "").upper() == "YES",
                "state": pairs.get("State"),
            }
        )
    return partitions


def expand_hostlist(expression):
    """Slurm's host list syntax: ``gpu[01-03,07],n2`` -> ['gpu01', 'gpu02', 'gpu03', 'gpu07', 'n2'] (zero padding
    kept; several bracket groups in one name multiply, as ``scontrol show hostnames`` does)."""
    names = []
    for item in _split_top(expression or ""):
        names.extend(_expand_one(item))
    return names


def _split_top(expression):
    items, depth, current = [], 0, ""
    for char in expression:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    items.append(current)
    return [i.strip() for i in items if i.strip()]


def _expand_one(item):
    match = re.match(r"^(.*?)\[([^\]]+)\](.*)$", item)
    if not match:
        return [item]
    prefix, ranges, rest = match.groups()
    out = []
    for part in ranges.split(","):
        if "-" in part:
            lo, hi = part.split("-", 1)
            width = len(lo)
            out.extend(f"{prefix}{n:0{width}d}" for n in range(int(lo), int(hi) + 1))
        else:
            out.append(f"{prefix}{part}")
    return [name + tail for name in out for tail in _expand_one(rest)] if rest else out


def parse_ping(text):
    """``scontrol ping`` -> [{role, host, up}] (one line per controller)."""
    return [{"role": r, "host": h, "up": s == "UP"} for r, h, s in _PING.findall(text or "")]


def parse_mpi_list(text):
    """``srun --mpi=list`` -> {types: [...], pmix_versions: [...]} (22.05 and later print both)."""
    types, versions = [], []
    for line in (text or "").splitlines():
        stripped = line.strip()
        if stripped.startswith("specific pmix plugin versions available:"):
            versions = [v.strip() for v in stripped.split(":", 1)[1].split(",") if v.strip()]
        elif line.startswith(("\t", " ")) and stripped and " " not in stripped:
            types.append(stripped.replace("mpi/", ""))
        elif stripped.startswith("srun: mpi/"):
            # Slurm 20.x and older: "srun: mpi/pmix" lines
            types.append(stripped.split("mpi/", 1)[1].strip())
    return {"types": types, "pmix_versions": versions}


# What srun prints when it cannot load an MPI plugin (22.05: "mpi/pmix_v4: init: ... can not load PMIx library",
# "Couldn't load specified plugin name for mpi/pmix", "Invalid MPI type 'pmix'")
_PLUGIN_FAILURE = re.compile(
    r"mpi/pmix|Couldn't load specified plugin|Invalid MPI type|Unable to load any plugin", re.I
)


def pmix_probe(rc, text):
    """What ``srun --mpi=pmix --test-only -N1 true`` says about the pmix plugin: (usable, detail).

    (True, None) when it exited 0; (False, srun's first line about the plugin) when it could not load it; (None,
    what srun said) when it failed for another reason before it could tell (no node available, the controller
    restarting), which says nothing about the plugin.
    """
    if rc == 0:
        return True, None
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    plugin = [line for line in lines if _PLUGIN_FAILURE.search(line)]
    if plugin:
        return False, plugin[0].replace("srun: error: ", "").strip()
    return None, "srun --mpi=pmix --test-only failed: " + (lines[0] if lines else f"exit code {rc}")


def pam_slurm_adopt(text):
    """Whether a PAM file uses pam_slurm_adopt (a line that is not a comment, any control, the module by name or
    path)."""
    for line in (text or "").splitlines():
        stripped = line.split("#", 1)[0].strip()
        if re.search(r"(^|[\s/])pam_slurm_adopt\.so(\s|$)", stripped):
            return True
    return False


def find_node(nodes, names):
    """The node whose NodeName, NodeHostName or NodeAddr is one of ``names`` (this host's names), or None."""
    wanted = {n for n in names if n}
    for key in ("name", "hostname", "address"):
        for node in nodes:
            if node.get(key) in wanted:
                return node
    return None


def host_problems(summary):
    """What on this host would break launches under Slurm: (problems, warnings), plain sentences.

    Problems break any launch there: slurmd runs on a host Slurm knows under none of its names. Warnings break
    launches through srun or SSH into the node, which the site may not use: the controller does not answer, a pmix
    plugin srun lists but cannot load, pam_slurm_adopt without what it needs (or with it: SSH between the nodes as
    the training user works only inside an allocation), the node drained or down.
    """
    problems, warnings = [], []
    if not summary.get("present"):
        return problems, warnings
    if summary.get("controller_up") is False:
        warnings.append(
            "the Slurm controller ({}) does not answer (scontrol ping)".format(
                ", ".join(summary.get("controllers") or []) or "unknown"
            )
        )
    if summary.get("pmix_listed") and summary.get("pmix_usable") is False:
        warnings.append(
            "srun lists the pmix MPI plugin but cannot load it: {} (Debian and Ubuntu: install libpmix-dev, whose "
            "libpmix.so the plugin opens)".format(summary.get("pmix_error") or "unknown error")
        )
    if summary.get("pam_slurm_adopt"):
        warnings.append(
            "pam_slurm_adopt is in the PAM stack: SSH into this node as a user without a job here is refused, so "
            "horovodrun and mpirun across the nodes work only inside a Slurm allocation"
        )
        if summary.get("proctrack") not in ("proctrack/cgroup", "proctrack/cray_aries"):
            warnings.append(
                "pam_slurm_adopt is in the PAM stack but ProctrackType is {}: it adopts SSH sessions into jobs only "
                "with proctrack/cgroup".format(summary.get("proctrack"))
            )
        if "contain" not in [f.lower() for f in summary.get("prolog_flags") or []]:
            warnings.append("pam_slurm_adopt is in the PAM stack but PrologFlags has no Contain")
    node = summary.get("node")
    if summary.get("slurmd_running") and node is None:
        problems.append(
            "slurmd runs here but Slurm knows no node named {} (its nodes: {})".format(
                " or ".join(summary.get("names") or []), ", ".join(n["name"] for n in summary.get("nodes") or [])
            )
        )
    if node is not None and not node.get("usable"):
        warnings.append(
            "Slurm has this host as node {} in state {}{}".format(
                node["name"],
                "+".join([node["state"], *node["flags"]]),
                " ({})".format(node["reason"]) if node.get("reason") else "",
            )
        )
    return problems, warnings


def summarize(config, ping, nodes, partitions, mpi, *, names, pam, slurmd_running, pmix=(None, None)):
    """The host's Slurm as one dict (the fact gpucluster_slurm's per-host part)."""
    node = find_node(nodes, names)
    default = next((p["name"] for p in partitions if p["default"]), None)
    summary = {
        "present": True,
        "cluster": config.get("ClusterName"),
        "version": config.get("SLURM_VERSION"),
        "controllers": config.get("SlurmctldHosts") or [],
        "controller_up": any(p["up"] for p in ping) if ping else None,
        "mpi_default": config.get("MpiDefault"),
        "mpi_types": mpi.get("types", []),
        "pmix_versions": mpi.get("pmix_versions", []),
        "pmix_listed": any(t in PMIX_TYPES for t in mpi.get("types", [])),
        "pmix_usable": pmix[0],
        "pmix_error": pmix[1],
        "proctrack": config.get("ProctrackType"),
        "prolog_flags": [f for f in (config.get("PrologFlags") or "").split(",") if f],
        "gres_types": [g for g in (config.get("GresTypes") or "").split(",") if g],
        "select_type": config.get("SelectType"),
        "pam_slurm_adopt": bool(pam),
        "slurmd_running": bool(slurmd_running),
        "names": list(names),
        "node": node,
        "nodes": nodes,
        "partitions": partitions,
        "default_partition": default,
    }
    summary["problems"], summary["warnings"] = host_problems(summary)
    return summary


def absent(reason):
    """The fact on a host without Slurm."""
    return {
        "present": False,
        "reason": reason,
        "node": None,
        "nodes": [],
        "partitions": [],
        "problems": [],
        "warnings": [],
    }
