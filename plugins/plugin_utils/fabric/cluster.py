# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the nodes of a cluster agree on their fabric: the same kind, the same number of usable ports, the same rate.

NCCL picks its inter-node transport per job from what every rank offers; nodes that disagree make it fall back to
sockets or hang (nccl#2428: mismatched HCAs), so the first play refuses (or warns about) such a cluster, naming the
nodes on each side.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence


def _groups(per_host: Mapping[str, Mapping[str, Any]], key) -> Dict[Any, List[str]]:
    groups: Dict[Any, List[str]] = {}
    for host in sorted(per_host):
        groups.setdefault(key(per_host[host] or {}), []).append(host)
    return groups


def _describe(groups: Dict[Any, List[str]], label) -> str:
    # Largest group first (the odd nodes out come last, where the reader looks for them), then by first node.
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[1][0]))
    return "; ".join(f"{', '.join(hosts)}: {label(value)}" for value, hosts in ordered)


def cluster_problems(per_host: Mapping[str, Mapping[str, Any]]) -> List[str]:
    """One sentence per disagreement (kind, usable port count, port rate) among the nodes' fabric summaries
    (module_utils/_fabric.py summarize); [] when they agree or there is one node."""
    if len(per_host) < 2:
        return []
    problems = []
    kinds = _groups(per_host, lambda f: f.get("kind") or "none")
    if len(kinds) > 1:
        problems.append(
            "the nodes' fabrics differ ("
            + _describe(kinds, str)
            + "): NCCL uses what every node offers, so the job falls back to TCP sockets or hangs"
        )
        return problems
    if next(iter(kinds)) == "none":
        return []
    counts = _groups(per_host, lambda f: int(f.get("port_count") or 0))
    if len(counts) > 1:
        problems.append(
            "the nodes have different numbers of usable RDMA ports ("
            + _describe(counts, lambda n: f"{n} port(s)")
            + "): a port is down or missing on the smaller side"
        )
    rates = _groups(per_host, lambda f: f.get("rate_gbps"))
    if len(rates) > 1:
        problems.append(
            "the nodes' RDMA ports run at different rates ("
            + _describe(rates, lambda r: f"{r:g} Gb/s" if r is not None else "unknown")
            + "): every ring runs at the slowest link"
        )
    return problems


def link_rate_gbps(fabrics: Sequence[Optional[Mapping[str, Any]]]) -> Optional[float]:
    """The fabric's link limit for a run across these nodes (their gpucluster_fabric facts): the lowest rate of the
    usable ports in Gbit/s when every node has usable InfiniBand or RoCE ports with a known rate, else None - a node
    without them makes NCCL leave the fabric for the whole job, so no port rate limits it then."""
    rates = []
    for fact in fabrics:
        f = fact or {}
        rate = f.get("rate_gbps")
        if (f.get("kind") or "none") == "none" or not int(f.get("port_count") or 0) or not rate:
            return None
        rates.append(float(rate))
    return min(rates) if rates else None


def port_health_check(fabric: Mapping[str, Any]) -> Dict[str, Any]:
    """The node-health check of the host's RDMA ports ({name, status, value, expected, reason}, as node_health's):
    ok when every port is usable (or there is none), warn when some port is not (a cable pulled, a port down, a RoCE
    netdev without an address) - the nodes' agreement check of the first play refuses what the job cannot live with."""
    unusable = list((fabric or {}).get("unusable") or [])
    usable = list((fabric or {}).get("ports") or [])
    if not unusable:
        return {
            "name": "fabric_ports",
            "status": "ok",
            "value": f"{len(usable)} usable",
            "expected": "every RDMA port usable",
            "reason": "",
        }
    names = ", ".join(f"{p.get('port')} ({p.get('reason')})" for p in unusable)
    return {
        "name": "fabric_ports",
        "status": "warn",
        "value": f"{len(usable)} usable, {len(unusable)} not",
        "expected": "every RDMA port usable",
        "reason": f"RDMA port(s) not usable: {names}",
    }
