# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpucluster.horovod Slurm filters: whether the play's nodes fit the site's Slurm (slurm_cluster_problems), the
benchmark's runs as Slurm jobs (slurm_job_argv) and the job a run's output names (slurm_job_from_output).

Documented in the matching <name>.yml files; the logic is in plugin_utils/slurm/.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_slurm = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.slurm")


def slurm_cluster_problems(per_host):
    """{host: slurm fact} -> {problems, warnings} naming the nodes."""
    if not isinstance(per_host, dict):
        raise AnsibleFilterError(f"slurm_cluster_problems: expects a dict of host -> slurm fact, got {type(per_host)}")
    return _slurm.cluster_problems(per_host)


def slurm_job_argv(hosts, workers, command, **options):
    """Host list, worker count and the command that starts the ranks -> the bounded salloc command line."""
    try:
        return _slurm.job_argv(list(hosts or []), workers, list(command or []), **options)
    except _slurm.SlurmJobError as exc:
        raise AnsibleFilterError(f"slurm_job_argv: {exc}") from exc


def slurm_job_nodes(hosts, workers):
    """Host list and worker count -> the hosts a job of that many ranks takes, each with its ranks (tasks)."""
    try:
        return _slurm.job_nodes(list(hosts or []), workers)
    except _slurm.SlurmJobError as exc:
        raise AnsibleFilterError(f"slurm_job_nodes: {exc}") from exc


def slurm_job_from_output(stdout, stderr=""):
    """A run's stdout (and stderr) -> {id, partition, nodes, tasks} of its Slurm job, {} when it had none."""
    return _slurm.job_from_output(stdout, stderr)


class FilterModule:
    def filters(self):
        return {
            "slurm_cluster_problems": slurm_cluster_problems,
            "slurm_job_argv": slurm_job_argv,
            "slurm_job_from_output": slurm_job_from_output,
            "slurm_job_nodes": slurm_job_nodes,
        }
