# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NCCL's system settings for /etc/nccl.conf, from the first play's facts (the nccl role writes the file).

Only what the system decides belongs there: the socket interface NCCL's bootstrap and socket transport use (the
inter-node interface, gpucluster_interconnect), and on a fabric the HCA ports it may use (gpucluster_fabric's usable
ports, exact match) and the RoCE v2 GID index. Debugging variables (NCCL_DEBUG and its kin) belong in a job's
environment, where the benchmark sets them: one in the system file would log every job on the node.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional

# Job-level variables refused in the system file: logging belongs to a job's environment.
DEBUG_VARIABLES = ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE")
_NAME = re.compile(r"^NCCL_[A-Z0-9_]+$")


def settings_problems(settings: Any) -> List[str]:
    """What is wrong with a user's extra settings (nccl_conf_settings): names NCCL reads, no debugging variables,
    values on one line."""
    if not isinstance(settings, Mapping):
        return ["not a dict of NCCL variable names to values"]
    problems = []
    for name, value in settings.items():
        if not _NAME.match(str(name)):
            problems.append(f"{name!r} is not an NCCL variable (NCCL_ and capitals)")
        elif name in DEBUG_VARIABLES:
            problems.append(f"{name} is a debugging variable: set it in a job's environment, not for every job")
        if isinstance(value, (dict, list)) or "\n" in str(value):
            problems.append(f"{name}: the value must be one line")
    return problems


def nccl_conf(
    fabric: Optional[Mapping[str, Any]], interconnect: Optional[Mapping[str, Any]], settings: Any = None
) -> Dict[str, str]:
    """The settings, sorted by name: NCCL_SOCKET_IFNAME (=<interface>, an exact match), NCCL_IB_HCA (=<ports>) and
    NCCL_IB_GID_INDEX on a fabric; the user's settings last (they win)."""
    fabric, interconnect = fabric or {}, interconnect or {}
    out: Dict[str, str] = {}
    if interconnect.get("interface"):
        out["NCCL_SOCKET_IFNAME"] = f"={interconnect['interface']}"
    if fabric.get("kind") in ("infiniband", "roce", "mixed") and fabric.get("ports"):
        out["NCCL_IB_HCA"] = "=" + ",".join(fabric["ports"])
        if fabric.get("kind") == "roce" and fabric.get("gid_index") is not None:
            out["NCCL_IB_GID_INDEX"] = str(fabric["gid_index"])
    for name, value in (settings or {}).items():
        out[str(name)] = str(value)
    return dict(sorted(out.items()))
