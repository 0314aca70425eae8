# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cluster merge: one stack for every host (same framework, Horovod, CUDA, cuDNN, NCCL; Python, Open MPI and the
host compiler follow each host's OS), from Ansible host facts."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .lookups import gpu_arch
from .render import summarize
from .resolver import resolve
from .tables import load_tables
from .versions import CompatError, vcmp, vtuple

CLUSTER_KEYS = ("framework", "framework_version", "horovod", "cuda", "nccl", "cudnn")


def os_from_facts(facts: Dict[str, Any]) -> str:
    """Ansible facts -> the engine's OS id (``ubuntu22.04``, ``debian12``, ``rhel9`` for RHEL/Rocky/Alma)."""
    dist = str(facts.get("distribution", "")).lower()
    major = str(facts.get("distribution_major_version", ""))
    if dist == "ubuntu":
        return "ubuntu" + str(facts.get("distribution_version", major))
    if dist in ("redhat", "rocky", "almalinux", "centos", "oraclelinux"):
        return "rhel" + major
    return dist + major


def cluster_gpus(gpu_facts: Optional[Dict[str, Any]]) -> List[str]:
    """GPU names (or compute capabilities when the name is unknown) from one host's gpu_facts."""
    out = []
    for gpu in (gpu_facts or {}).get("gpus") or []:
        name = gpu.get("name")
        try:
            gpu_arch(name)
            out.append(name)
        except CompatError:
            out.append(gpu.get("compute_cap") or name)
    return out


def _answer(ok: bool, msg: str, stacks=None, conflicts=None, alternatives=None) -> Dict[str, Any]:
    return {
        "ok": ok,
        "stacks": stacks or {},
        "msg": msg,
        "conflicts": conflicts or [],
        "alternatives": alternatives or [],
    }


def _gpus_by_host(hosts: Dict[str, Dict[str, Any]]) -> Tuple[List[str], str]:
    """Every distinct GPU of the cluster (first-seen order) and a sentence saying where each is."""
    all_gpus: List[str] = []
    where: Dict[str, List[str]] = {}
    for host in sorted(hosts):
        for gpu in hosts[host].get("gpus") or []:
            where.setdefault(str(gpu), []).append(host)
            if gpu not in all_gpus:
                all_gpus.append(gpu)
    located = "; ".join("GPU {} on {}".format(g, ", ".join(hs)) for g, hs in where.items()) or "no GPUs on any host"
    return all_gpus, located


def _per_host(hosts: Dict[str, Dict[str, Any]], stacks_by_os: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    """Each host's copy of its OS's stack, with its own driver_upgrade_required."""
    stacks = {}
    for host, info in hosts.items():
        stack = dict(stacks_by_os[str(info.get("os"))])
        if stack.get("driver_min") and info.get("driver"):
            stack["driver_upgrade_required"] = vcmp(info["driver"], stack["driver_min"]) < 0
        elif stack.get("driver_min"):
            stack["driver_upgrade_required"] = False
        stacks[host] = stack
    return stacks


def resolve_cluster(
    hosts: Dict[str, Dict[str, Any]], request: Dict[str, Any], tables: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """One stack for a cluster: ``hosts`` maps host -> {"os", "gpus", "driver"}; ``request`` holds framework and pins.

    Every host gets the same framework, Horovod, CUDA, cuDNN and NCCL, chosen to satisfy every GPU of every host;
    Python, Open MPI and the host compiler follow each host's OS. Returns
    ``{"ok", "stacks", "msg", "conflicts", "alternatives"}`` and never raises for conflicts.
    """
    t = tables or load_tables()
    if not hosts:
        return _answer(False, "no hosts to resolve for")
    all_gpus, located = _gpus_by_host(hosts)
    drivers = [h.get("driver") for h in hosts.values() if h.get("driver")]
    by_os: Dict[str, List[str]] = {}
    for host in sorted(hosts):
        by_os.setdefault(str(hosts[host].get("os")), []).append(host)
    stacks_by_os: Dict[str, Dict[str, Any]] = {}
    first: Optional[Dict[str, Any]] = None
    for os_name, members in sorted(by_os.items(), key=lambda kv: -len(kv[1])):
        req = dict(request, os=os_name, gpus=all_gpus)
        if drivers:
            req["driver"] = min(drivers, key=vtuple)
        # Later OSes must take the cluster-wide versions chosen for the largest group.
        for key in CLUSTER_KEYS[1:]:
            if first is not None and first.get(key) and not request.get(key):
                req[key] = first[key]
        try:
            stacks_by_os[os_name] = resolve(req, t)
        except CompatError as exc:
            msg = "{}\nHosts affected: {} ({}). {}.".format(exc.message, ", ".join(members), os_name, located)
            return _answer(False, msg, None, [dict(c, hosts=members) for c in exc.conflicts], exc.alternatives)
        first = first or stacks_by_os[os_name]
    return _answer(True, f"resolved: {summarize(first or {})}", _per_host(hosts, stacks_by_os))
