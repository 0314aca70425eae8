# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What started the benchmark's runs, for the report: the site's Slurm (each run's job) or horovodrun (pure)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


def launch_line(doc: Dict[str, Any]) -> Optional[str]:
    """The report line naming what started the runs: the site's Slurm (each run's job id) or horovodrun."""
    launch = (doc.get("inputs") or {}).get("launch") or {}
    if launch.get("method") != "slurm":
        return None
    jobs = launch.get("jobs") or []
    partitions = sorted({j.get("partition") for j in jobs if j.get("partition")})
    where = "partition " + ", ".join(partitions) if partitions else "the default partition"
    listed = (
        ", ".join(
            "{} job {}{}".format(j.get("run") or "?", j.get("id") or "?", " (failed)" if j.get("failed") else "")
            for j in jobs
        )
        or "none started"
    )
    return "launched by: **Slurm** ({}{}), every run a job: {}".format(
        "cluster " + launch["cluster"] + ", " if launch.get("cluster") else "", where, listed
    )


def slurm_jobs_section(doc: Dict[str, Any]) -> List[str]:
    launch = (doc.get("inputs") or {}).get("launch") or {}
    jobs = launch.get("jobs") or []
    if launch.get("method") != "slurm" or not jobs:
        return []
    out = ["## Slurm jobs", "", "| run | job id | partition | nodes | tasks |", "|---|---:|---|---|---:|"]
    for j in jobs:
        out.append(
            "| {} | {} | {} | {} | {} |".format(
                (j.get("run") or "?") + (" (failed)" if j.get("failed") else ""),
                j.get("id") or "?",
                j.get("partition") or "-",
                j.get("nodes") or "-",
                "-" if j.get("tasks") is None else j["tasks"],
            )
        )
    return [*out, ""]
