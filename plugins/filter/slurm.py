# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpucluster.horovod Slurm filters: whether the play's nodes fit the site's Slurm.

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


class FilterModule:
    def filters(self):
        return {"slurm_cluster_problems": slurm_cluster_problems}
