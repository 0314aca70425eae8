# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The horovodrun host list and command line, and the mpirun line of nccl-tests, built on the controller.

Pure Python (no Ansible imports), used by the ``horovodrun_hosts``, ``horovodrun_hosts_arg``,
``horovodrun_argv`` and ``nccl_tests_argv`` filters. Inputs are plain dicts: each node's published
facts as the roles read them (``ansible_facts`` with gpu_facts' ``gpucluster_gpu``,
``gpucluster_interconnect``, ``horovod_slots``).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

# Worker counts of the scaling runs when none are given: powers of two below the total, then the total.
WORKER_LADDER = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


# One message size of horovod_benchmark_sizes ("4K", "64MiB", "1024"); the input checks refuse anything else.
_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]?)i?B?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


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


def gpu_facts(hostvars: Mapping[str, Any]) -> Dict[str, Any]:
    """The host's gpu_facts result: ``ansible_facts['gpucluster_gpu']`` (a module's facts live there when
    ``inject_facts_as_vars`` is off, as in this collection), else a ``gpucluster_gpu`` host variable, else {}."""
    facts = hostvars.get("ansible_facts") or {}
    gpu = facts.get("gpucluster_gpu") if isinstance(facts, Mapping) else None
    if not isinstance(gpu, Mapping):
        gpu = hostvars.get("gpucluster_gpu")
    return dict(gpu) if isinstance(gpu, Mapping) else {}


def host_slots(name: str, hostvars: Mapping[str, Any], default_slots: Any) -> int:
    """Workers on one host: ``horovod_slots`` if set, else its GPU count (gpu_facts), else the default."""
    explicit = hostvars.get("horovod_slots")
    if explicit not in (None, ""):
        return _positive_int(explicit, f"horovod_slots of {name}")
    count = gpu_facts(hostvars).get("gpu_count")
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
    """One dict per node in launch order: inventory name, hostname, interconnect address, slots, GPUs, size, OS."""
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
                "gpus": int(gpu_facts(hv).get("gpu_count") or 0),
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


def fill_hosts(hosts: Sequence[Mapping[str, Any]], workers: Any) -> List[Tuple[Mapping[str, Any], int]]:
    """The hosts a job of ``workers`` processes takes, each with its count: the hosts filled in order, each up to
    its slots (horovodrun's ``-H``, and the nodes of the same job as a Slurm allocation)."""
    left = _positive_int(workers, "the worker count")
    total = sum(int(h["slots"]) for h in hosts)
    if left > total:
        raise HorovodrunError(f"{left} workers do not fit the {total} slots of the hosts")
    used = []
    for host in hosts:
        if left <= 0:
            break
        take = min(int(host["slots"]), left)
        used.append((host, take))
        left -= take
    return used


def hosts_arg(hosts: Sequence[Mapping[str, Any]], workers: Any) -> str:
    """horovodrun's ``-H`` value for a job of ``workers`` processes: fill the hosts in order, each up to its slots."""
    return ",".join(f"{host['address']}:{take}" for host, take in fill_hosts(hosts, workers))


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
    elastic: Optional[Mapping[str, Any]] = None,
) -> List[str]:
    """The full argv: ``timeout … horovodrun -np W -H … -p PORT --gloo|--mpi … -- program``.

    ``elastic`` (``{"discovery_script": path, "min_workers": n}``) makes it an elastic job: instead of ``-H``, W is
    the most workers (``--max-np``, also the start), ``--min-np`` the fewest it goes on with, and the hosts come from
    the discovery script; Horovod's elastic mode runs on Gloo only.
    """
    if controller not in ("gloo", "mpi"):
        raise HorovodrunError(f"controller must be gloo or mpi, got {controller!r}")
    value = hosts_arg(hosts, workers)
    count = str(_positive_int(workers, "the worker count"))
    if elastic:
        if controller != "gloo":
            raise HorovodrunError("elastic Horovod runs on the Gloo controller only, got controller mpi")
        fewest = _positive_int(elastic.get("min_workers", 1), "the elastic minimum worker count")
        if fewest > int(count):
            raise HorovodrunError(f"the elastic minimum worker count {fewest} is above the most, {count}")
        script = str(elastic.get("discovery_script") or "")
        if not script.startswith("/"):
            raise HorovodrunError(f"the host discovery script must be an absolute path, got {script!r}")
        hosts_args = ["--min-np", str(fewest), "--max-np", count, "--host-discovery-script", script]
    else:
        hosts_args = ["-H", value]
    argv = [
        "timeout",
        "--kill-after=15",
        str(_positive_int(run_timeout, "the run timeout")),
        horovodrun,
        "-np",
        count,
        *hosts_args,
        "-p",
        str(_positive_int(ssh_port, "the SSH port")),
        f"--{controller}",
        "--start-timeout",
        str(_positive_int(start_timeout, "the start timeout")),
    ]
    if network_interface and is_remote_run(value, hosts[0]["address"], launcher_is_node):
        argv += ["--network-interface", network_interface]
    return argv + [str(a) for a in program]


def mpirun_argv(
    hosts: Sequence[Mapping[str, Any]],
    workers: Any,
    program: Sequence[Any],
    *,
    mpirun: str = "mpirun",
    ssh_port: Any = 22,
    network_interface: str = "",
    env: Optional[Mapping[str, Any]] = None,
    forward: Sequence[str] = ("PATH",),
    run_timeout: Any = 900,
) -> List[str]:
    """``timeout … mpirun -np W -H a:n,… -bind-to none -map-by slot -x … -mca … program``: one process per slot.

    The conventions of the benchmark's horovodrun jobs: the same hosts filled in the same order, the job
    environment passed along (``-x K=V``), the inter-node interface and the nodes' SSH port. ``forward``
    names variables passed with their launcher value (``-x NAME``): only ones the launcher sets (the task's
    PATH), as Open MPI warns about an unset one.
    """
    value = hosts_arg(hosts, workers)
    argv = ["timeout", "--kill-after=15", str(_positive_int(run_timeout, "the run timeout")), mpirun]
    argv += ["-np", str(_positive_int(workers, "the worker count")), "-H", value, "-bind-to", "none", "-map-by", "slot"]
    for name in forward:
        argv += ["-x", str(name)]
    for key, val in sorted((env or {}).items()):
        if key in forward:
            continue
        argv += ["-x", f"{key}={val}"]
    if network_interface:
        argv += ["-mca", "btl_tcp_if_include", network_interface]
    argv += ["-mca", "plm_rsh_args", f"-p {_positive_int(ssh_port, 'the SSH port')}"]
    return argv + [str(a) for a in program]


def largest_size(sizes: Any) -> int:
    """The largest of a comma list of message sizes ("4K,64M,1G" -> 1073741824), in bytes."""
    values = []
    for part in str(sizes).split(","):
        match = _SIZE.match(part)
        if not match or int(match.group(1)) <= 0:
            raise HorovodrunError(f"{part.strip()!r} of the sizes {sizes!r} is not a size (e.g. 4K, 64M, 1G)")
        values.append(int(match.group(1)) * _SIZE_UNITS[match.group(2).upper()])
    return max(values)


def nccl_tests_argv(
    hosts: Sequence[Mapping[str, Any]],
    workers: Any,
    program: str,
    sizes: Any,
    **options: Any,
) -> List[str]:
    """nccl-tests' ``<program> -b 8 -e MAX -f 2 -g 1`` under :func:`mpirun_argv`: one process per GPU, sizes
    doubling from 8 B to the largest of ``sizes`` (so every power-of-two size of the Horovod sweep is among them)."""
    top = max(8, largest_size(sizes))
    return mpirun_argv(hosts, workers, [program, "-b", "8", "-e", str(top), "-f", "2", "-g", "1"], **options)


def self_resolution_problem(host: str, hostname: str, getent: Any, local_addresses: Sequence[Any] = ()) -> str:
    """Empty when ``hostname`` resolves to an address of the node itself; else the sentence saying what is wrong.

    Horovod's Gloo (rank 0's rendezvous, a job on one node) binds the address the node's own host name resolves
    to: a name that does not resolve crashes the worker (SIGSEGV), one that resolves elsewhere aborts it ("bind(2)
    ... Cannot assign requested address"), both after the launch. ``getent`` is ``getent ahosts <hostname>``'s
    output (first column: the addresses); ``local_addresses`` the node's own (the loopback range always is).
    """
    resolved = []
    for line in str(getent or "").splitlines():
        fields = line.split()
        if fields and fields[0] not in resolved:
            resolved.append(fields[0])
    local = {str(a) for a in local_addresses or ()}
    if any(a in local or a.startswith("127.") or a == "::1" for a in resolved):
        return ""
    fix = (
        "Horovod's Gloo binds the address of the node's own host name. Give the name an address of this node "
        f"(DNS, or /etc/hosts, for example '127.0.1.1 {hostname}' on a single node, its cluster address on several)"
    )
    if not resolved:
        return f"{host}: its host name {hostname} does not resolve (a Horovod worker crashes). {fix}."
    return (
        f"{host}: its host name {hostname} resolves to {', '.join(resolved)}, no address of this node "
        f"(a Horovod worker aborts). {fix}."
    )
