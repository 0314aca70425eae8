# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The horovodrun host list and command line, built on the controller.

Pure Python (no Ansible imports), used by the ``horovodrun_hosts``, ``horovodrun_hosts_arg`` and
``horovodrun_argv`` filters. Inputs are plain dicts: each node's published facts as the roles read
them (``ansible_facts``, ``gpucluster_interconnect``, ``gpucluster_gpu``, ``horovod_slots``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

# Worker counts of the scaling runs when none are given: powers of two below the total, then the total.
WORKER_LADDER = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


class HorovodrunError(ValueError):
    """Input that cannot describe a horovodrun job; the message names the value and what is valid."""


def _positive_int(value: Any, what: str) -> int:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        raise HorovodrunError(f"{what} must be a whole number >= 1, got {value!r}") from None
    if number < 1:
        raise HorovodrunError(f"{what} must be a whole number >= 1, got {value!r}")
    return number


def host_slots(name: str, hostvars: Mapping[str, Any], default_slots: Any) -> int:
    """Workers on one host: ``horovod_slots`` if set, else its GPU count (``gpucluster_gpu``), else the default."""
    explicit = hostvars.get("horovod_slots")
    if explicit not in (None, ""):
        return _positive_int(explicit, f"horovod_slots of {name}")
    gpu = hostvars.get("gpucluster_gpu") or {}
    count = gpu.get("gpu_count") if isinstance(gpu, Mapping) else None
    if count not in (None, "") and int(count) > 0:
        return int(count)
    return _positive_int(default_slots, "the default slot count")


def launch_order(nodes: Sequence[str], launcher: str) -> List[str]:
    """The launcher first when it is a node (it runs rank 0, so results land there), then the rest in order."""
    nodes = list(nodes)
    first = [launcher] if launcher in nodes else []
    return first + [n for n in nodes if n != launcher]


def cluster_hosts(
    nodes: Sequence[str], launcher: str, hostvars: Mapping[str, Mapping[str, Any]], default_slots: Any = 1
) -> List[Dict[str, Any]]:
    """One dict per node in launch order: inventory name, hostname, interconnect address, slots, size, OS."""
    hosts = []
    for name in launch_order(nodes, launcher):
        hv = hostvars.get(name)
        if hv is None:
            raise HorovodrunError(f"{name} is not a host of the inventory")
        facts = hv.get("ansible_facts") or {}
        interconnect = hv.get("gpucluster_interconnect") or {}
        default_ipv4 = facts.get("default_ipv4") or {}
        os_name = " ".join(p for p in (facts.get("distribution"), facts.get("distribution_version")) if p)
        hosts.append(
            {
                "name": name,
                "hostname": facts.get("hostname") or name,
                "address": interconnect.get("address") or default_ipv4.get("address") or name,
                "slots": host_slots(name, hv, default_slots),
                "cpus": facts.get("processor_vcpus"),
                "memory_mb": facts.get("memtotal_mb"),
                "os": os_name,
            }
        )
    return hosts


def worker_counts(hosts: Sequence[Mapping[str, Any]], requested: Optional[Sequence[Any]] = None) -> List[int]:
    """The scaling ladder (1, 2, 4 … below the total, then the total) or the requested counts, checked."""
    total = sum(int(h["slots"]) for h in hosts)
    if requested:
        counts = [_positive_int(c, "a horovod_benchmark_worker_counts entry") for c in requested]
        too_many = [c for c in counts if c > total]
        if too_many:
            raise HorovodrunError(
                f"horovod_benchmark_worker_counts {too_many} exceed the {total} slots of the cluster "
                f"({', '.join(h['name'] + ':' + str(h['slots']) for h in hosts)}); use counts from 1 to {total}"
            )
        return counts
    return [w for w in WORKER_LADDER if w < total] + [total]


def hosts_arg(hosts: Sequence[Mapping[str, Any]], workers: Any) -> str:
    """horovodrun's ``-H`` value for a job of ``workers`` processes: fill the hosts in order, each up to its slots."""
    left = _positive_int(workers, "the worker count")
    total = sum(int(h["slots"]) for h in hosts)
    if left > total:
        raise HorovodrunError(f"{left} workers do not fit the {total} slots of the hosts")
    parts = []
    for host in hosts:
        if left <= 0:
            break
        take = min(int(host["slots"]), left)
        parts.append(f"{host['address']}:{take}")
        left -= take
    return ",".join(parts)


def is_remote_run(hosts_value: str, launcher_address: str, launcher_is_node: bool = True) -> bool:
    """Whether a job leaves the launcher (then horovodrun takes --network-interface; a local job refuses it)."""
    if not launcher_is_node:
        return True
    addresses = [part.rsplit(":", 1)[0] for part in hosts_value.split(",") if part]
    return any(a != launcher_address for a in addresses)


def launch_argv(
    hosts: Sequence[Mapping[str, Any]],
    workers: Any,
    *,
    horovodrun: str,
    program: Sequence[str],
    ssh_port: Any = 22,
    controller: str = "gloo",
    start_timeout: Any = 60,
    run_timeout: Any = 900,
    network_interface: str = "",
    launcher_is_node: bool = True,
) -> List[str]:
    """The full argv: ``timeout … horovodrun -np W -H … -p PORT --gloo|--mpi … -- program``."""
    if controller not in ("gloo", "mpi"):
        raise HorovodrunError(f"controller must be gloo or mpi, got {controller!r}")
    value = hosts_arg(hosts, workers)
    argv = [
        "timeout",
        "--kill-after=15",
        str(_positive_int(run_timeout, "the run timeout")),
        horovodrun,
        "-np",
        str(_positive_int(workers, "the worker count")),
        "-H",
        value,
        "-p",
        str(_positive_int(ssh_port, "the SSH port")),
        f"--{controller}",
        "--start-timeout",
        str(_positive_int(start_timeout, "the start timeout")),
    ]
    if network_interface and is_remote_run(value, hosts[0]["address"], launcher_is_node):
        argv += ["--network-interface", network_interface]
    return argv + [str(a) for a in program]
