# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the play's nodes fit the site's Slurm, from each node's slurm_facts (pure)."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping


def _names(hosts: List[str]) -> str:
    return ", ".join(sorted(hosts))


def cluster_problems(per_host: Mapping[str, Mapping[str, Any]]) -> Dict[str, List[str]]:
    """{inventory host: slurm fact} -> {problems, warnings}: sentences naming the nodes.

    Problems (the run stops unless the policy says warn): nodes in different Slurm clusters; some of the play's nodes
    are Slurm nodes and others are not (an inventory node Slurm does not know: a job over the inventory's nodes
    cannot be allocated); each node's own problems. Warnings: each node's own warnings.
    """
    present = {h: f for h, f in per_host.items() if (f or {}).get("present")}
    problems: List[str] = []
    warnings: List[str] = []
    if not present:
        return {"problems": problems, "warnings": warnings}
    clusters: Dict[str, List[str]] = {}
    for host, fact in present.items():
        clusters.setdefault(str(fact.get("cluster") or "unnamed"), []).append(host)
    if len(clusters) > 1:
        problems.append(
            "the nodes belong to different Slurm clusters: "
            + "; ".join(f"{name} ({_names(hosts)})" for name, hosts in sorted(clusters.items()))
        )
    members = sorted(h for h, f in present.items() if f.get("node"))
    outside = sorted(h for h in per_host if h not in members)
    if members and outside:
        known = sorted({n.get("name") for f in present.values() for n in f.get("nodes") or [] if n.get("name")})
        details = []
        for host in outside:
            fact = per_host.get(host) or {}
            if not fact.get("present"):
                details.append(f"{host} (no Slurm: {fact.get('reason') or 'not read'})")
            else:
                details.append(f"{host} (looked for as {' or '.join(fact.get('names') or [host])})")
        cluster = next(iter(clusters)) if len(clusters) == 1 else "its clusters"
        problems.append(
            f"Slurm ({cluster}) has {_names(members)} as nodes but not {'; '.join(details)}; "
            f"the nodes Slurm knows: {', '.join(known)}"
        )
    for host in sorted(present):
        problems.extend(f"{host}: {p}" for p in present[host].get("problems") or [])
        warnings.extend(f"{host}: {w}" for w in present[host].get("warnings") or [])
    return {"problems": problems, "warnings": warnings}
