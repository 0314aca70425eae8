# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark's runs as Slurm jobs (horovod_benchmark_launch_method: slurm), pure.

Each run is one allocation, ``salloc``, on the launcher as the training user: the nodes the run needs, in the host
list's order and filled as horovodrun fills them (the same ranks on the same nodes as the horovodrun launcher), one
task per slot, the GPUs as the ``gpu`` gres where the site defines it, bounded by ``--time``. salloc runs the command
on the launcher; the command starts the ranks - ``srun`` (Horovod's MPI controller through PMIx, no SSH between the
nodes) or horovodrun on the allocated nodes (Gloo, the elastic run). A first line, printed inside the allocation,
names the job; :func:`job_from_output` reads it back for the report.
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..horovod import horovodrun as _horovodrun

# Printed inside the allocation before the command runs (salloc sets these for the command it starts).
JOB_LINE_PREFIX = "gpucluster-benchmark-job:"
_JOB_LINE = (
    'echo "' + JOB_LINE_PREFIX + " id=${SLURM_JOB_ID:-} partition=${SLURM_JOB_PARTITION:-} "
    'nodes=${SLURM_JOB_NODELIST:-} tasks=${SLURM_NTASKS:-}"; exec "$@"'
)
_JOB_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_GRANTED = re.compile(r"Granted job allocation (\d+)")
_FIELD = re.compile(r"(\w+)=(\S*)")


class SlurmJobError(ValueError):
    """A job that cannot be asked for as given (the message says what would be valid)."""


def _positive_int(value: Any, what: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise SlurmJobError(f"{what} must be a whole number, got {value!r}") from None
    if number < 1:
        raise SlurmJobError(f"{what} must be at least 1, got {number}")
    return number


def job_nodes(hosts: Sequence[Mapping[str, Any]], workers: Any) -> List[Dict[str, Any]]:
    """The hosts a job of ``workers`` ranks takes, in order, each with the ranks it gets (``tasks``): the host list
    filled in order, each up to its slots, as horovodrun's ``-H`` fills it."""
    try:
        return [dict(host, tasks=take) for host, take in _horovodrun.fill_hosts(hosts, workers)]
    except _horovodrun.HorovodrunError as exc:
        raise SlurmJobError(str(exc)) from None


def job_argv(
    hosts: Sequence[Mapping[str, Any]],
    workers: Any,
    command: Sequence[Any],
    *,
    slurm_nodes: Mapping[str, Any],
    job_name: str,
    time_limit_s: Any,
    partition: str = "",
    gres_gpu: bool = False,
    extra_args: Sequence[Any] = (),
    run_timeout: Optional[Any] = None,
    no_kill: bool = False,
) -> List[str]:
    """``[timeout …] salloc --job-name … --nodes K --ntasks W [--ntasks-per-node S] --nodelist … --time M … bash -c
    '<job line>; exec "$@"' … COMMAND``.

    ``hosts``: the benchmark's host list (name, slots, gpus), the launcher first. ``slurm_nodes``: inventory name ->
    the node name Slurm has it under (the first play's gpucluster_slurm.node.name); every host the job takes needs
    one. ``--ntasks-per-node`` only where every node of the job gets the same number of ranks (otherwise Slurm
    places ``--ntasks`` over the listed nodes). ``gres_gpu``: ask for each node's GPUs as ``gpu:N`` (the site
    defines the gpu gres). ``time_limit_s``: the job's limit, whole minutes rounded up (Slurm's unit), at least 1.
    ``run_timeout``: a ``timeout`` around salloc as well (its TERM makes salloc give the allocation back).
    ``no_kill``: ``--no-kill``, the allocation outlives a node that fails (the elastic run goes on without it; by
    default Slurm ends the whole job once it marks one of its nodes down).
    """
    name = str(job_name or "")
    if not _JOB_NAME.match(name):
        raise SlurmJobError(f"the job name must be letters, digits, '.', '_' or '-', got {job_name!r}")
    if not command:
        raise SlurmJobError("the job needs a command")
    used = job_nodes(hosts, workers)
    names = []
    for host in used:
        node = slurm_nodes.get(host["name"]) if slurm_nodes else None
        if not node:
            raise SlurmJobError(
                f"{host['name']} is not a node of the site's Slurm (the first play found no Slurm node for it): a job "
                "cannot be placed there; add it to slurm.conf or remove it from the benchmark's nodes"
            )
        names.append(str(node))
    minutes = max(1, math.ceil(_positive_int(time_limit_s, "the job's time limit") / 60))
    argv: List[str] = []
    if run_timeout is not None:
        argv += ["timeout", "--kill-after=15", str(_positive_int(run_timeout, "the run timeout"))]
    argv += [
        "salloc",
        f"--job-name={name}",
        f"--nodes={len(used)}",
        f"--ntasks={_positive_int(workers, 'the worker count')}",
    ]
    tasks = {h["tasks"] for h in used}
    if len(tasks) == 1:
        argv.append(f"--ntasks-per-node={tasks.pop()}")
    argv += [f"--nodelist={','.join(names)}", f"--time={minutes}"]
    if no_kill:
        argv.append("--no-kill")
    if partition:
        argv.append(f"--partition={partition}")
    if gres_gpu:
        gpus = max(int(h.get("gpus") or 0) for h in used)
        if gpus > 0:
            argv.append(f"--gres=gpu:{gpus}")
    argv += [str(a) for a in extra_args or ()]
    argv += ["bash", "-c", _JOB_LINE, "gpucluster-benchmark-job"]
    return argv + [str(a) for a in command]


def job_from_output(stdout: Any, stderr: Any = "") -> Dict[str, Any]:
    """The job line printed inside the allocation (and salloc's own "Granted job allocation N") -> ``{id, partition,
    nodes, tasks}``; ``{}`` when neither is there (salloc failed before it had a job)."""
    for line in str(stdout or "").splitlines():
        if line.startswith(JOB_LINE_PREFIX):
            fields = dict(_FIELD.findall(line[len(JOB_LINE_PREFIX) :]))
            if fields.get("id"):
                tasks = fields.get("tasks") or ""
                return {
                    "id": fields["id"],
                    "partition": fields.get("partition") or "",
                    "nodes": fields.get("nodes") or "",
                    "tasks": int(tasks) if tasks.isdigit() else None,
                }
    granted = _GRANTED.search(str(stderr or "")) or _GRANTED.search(str(stdout or ""))
    if granted:
        return {"id": granted.group(1), "partition": "", "nodes": "", "tasks": None}
    return {}
