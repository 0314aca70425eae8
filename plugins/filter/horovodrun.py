# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""horovodrun filters: horovodrun_hosts, horovodrun_worker_counts, horovodrun_hosts_arg, horovodrun_argv,
nccl_tests_argv (the mpirun line of nccl-tests across the same hosts) and self_resolution_problem (whether a
node's host name resolves to an address of its own, which Horovod's Gloo binds).

Documented in the matching <name>.yml files; the logic is in plugin_utils/horovod/horovodrun.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_horovodrun = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.horovodrun")

# What the host list reads of each node's variables (and nothing else).
_HOST_KEYS = ("ansible_facts", "gpucluster_interconnect", "gpucluster_gpu", "horovod_slots")


def _plain(hostvars, names):
    out = {}
    for name in names:
        if name not in hostvars:
            continue
        node = hostvars[name]
        out[name] = {key: node.get(key) for key in _HOST_KEYS}
    return out


def _call(name, func, *args, **kwargs):
    try:
        return func(*args, **kwargs)
    except _horovodrun.HorovodrunError as exc:
        raise AnsibleFilterError(f"{name}: {exc}") from exc


def horovodrun_hosts(nodes, launcher, hostvars, default_slots=1):
    """Nodes -> [{name, hostname, address, slots, cpus, memory_mb, os}], the launcher first."""
    nodes = list(nodes or [])
    return _call("horovodrun_hosts", _horovodrun.cluster_hosts, nodes, launcher, _plain(hostvars, nodes), default_slots)


def horovodrun_worker_counts(hosts, requested=None):
    """Host list -> worker counts of the scaling runs."""
    return _call("horovodrun_worker_counts", _horovodrun.worker_counts, list(hosts), list(requested or []))


def horovodrun_hosts_arg(hosts, workers):
    """Host list and worker count -> horovodrun -H value."""
    return _call("horovodrun_hosts_arg", _horovodrun.hosts_arg, list(hosts), workers)


def horovodrun_argv(hosts, workers, horovodrun, program, **options):
    """Host list, worker count, horovodrun path and program argv -> the full command line."""
    return _call(
        "horovodrun_argv",
        _horovodrun.launch_argv,
        list(hosts),
        workers,
        horovodrun=horovodrun,
        program=list(program),
        **options,
    )


def nccl_tests_argv(hosts, workers, program, sizes, **options):
    """Host list, process count, nccl-tests program and the sweep's sizes -> the bounded mpirun command line."""
    return _call("nccl_tests_argv", _horovodrun.nccl_tests_argv, list(hosts), workers, program, sizes, **options)


def self_resolution_problem(getent, host, hostname, local_addresses=None):
    """getent ahosts output of a node's own host name -> '' or the sentence naming the problem and the fix."""
    return _horovodrun.self_resolution_problem(str(host), str(hostname), getent, list(local_addresses or []))


class FilterModule:
    """horovodrun host list and command line."""

    def filters(self):
        return {
            "horovodrun_hosts": horovodrun_hosts,
            "horovodrun_worker_counts": horovodrun_worker_counts,
            "horovodrun_hosts_arg": horovodrun_hosts_arg,
            "horovodrun_argv": horovodrun_argv,
            "nccl_tests_argv": nccl_tests_argv,
            "self_resolution_problem": self_resolution_problem,
        }
