# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Open MPI picker: the pin, else the distribution's Open MPI, else the version Horovod's CI used."""

from __future__ import annotations

from typing import Dict, List

from ..lookups import openmpi_problem, openmpi_version_ok
from ..request import Candidate, Context
from ..versions import vcmp, vtuple


def pin_conflicts(ctx: Context) -> List[Dict[str, str]]:
    """A pinned Open MPI that Horovod must not use refuses the request before any search."""
    if ctx.pins["openmpi"]:
        problem = openmpi_problem(ctx.pins["openmpi"], ctx.t)
        if problem:
            return [{"constraint": "openmpi", "source": "pin openmpi (openmpi.yml)", "message": problem}]
    return []


def pick(ctx: Context, c: Candidate) -> str:
    """The Open MPI of this candidate, with the table's warnings (Open MPI 5, older than recommended)."""
    t = ctx.t
    openmpi = ctx.pins["openmpi"]
    if openmpi:
        c.reasons["openmpi"] = f"pinned openmpi {openmpi}."
    else:
        openmpi = ctx.os["openmpi"]
        c.reasons["openmpi"] = "{} packages Open MPI {} (os.yml).".format(ctx.os["os"], openmpi)
        if not openmpi_version_ok(openmpi, t):
            openmpi = t["openmpi"]["recommended"]
            c.reasons["openmpi"] = f"the distribution's Open MPI is unusable; {openmpi} is what Horovod's CI used."
    if vtuple(openmpi)[0] >= t["openmpi"]["warn_from_major"]:
        c.warnings.append(" ".join(t["openmpi"]["v5_warning"].split()))
    elif vcmp(openmpi, t["openmpi"]["recommended_min"]) < 0:
        c.warnings.append(
            "Open MPI {} is older than the recommended >= {}".format(openmpi, t["openmpi"]["recommended_min"])
        )
    return openmpi
