"""horovodrun host list and argv (plugin_utils/horovod/horovodrun.py)."""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod import horovodrun as hr


def _node(address, hostname, gpus=None, slots=None, iface_address=None):
    hv = {
        "ansible_facts": {
            "hostname": hostname,
            "default_ipv4": {"address": address, "interface": "eth0"},
            "processor_vcpus": 2,
            "memtotal_mb": 4096,
            "distribution": "Debian",
            "distribution_version": "12.8",
        }
    }
    if gpus is not None:
        # where gpu_facts puts them: a module's facts are not injected as variables (inject_facts_as_vars = false)
        hv["ansible_facts"]["gpucluster_gpu"] = {"gpu_count": gpus, "gpus": []}
    if slots is not None:
        hv["horovod_slots"] = slots
    if iface_address:
        hv["gpucluster_interconnect"] = {"interface": "ib0", "address": iface_address, "cidr": "10.9.0.0/24"}
    return hv


HOSTVARS = {
    "a": _node("10.0.0.1", "n1"),
    "b": _node("10.0.0.2", "n2", gpus=8),
    "c": _node("10.0.0.3", "n3", gpus=0, slots="3"),
}


def test_gpu_count_sets_the_slots():
    # The old Jinja read hostvars[h]['gpucluster_gpu_count'], which nothing sets: 8 GPUs gave 1 slot.
    hosts = hr.cluster_hosts(["a", "b", "c"], "a", HOSTVARS, default_slots=1)
    assert [(h["name"], h["slots"]) for h in hosts] == [("a", 1), ("b", 8), ("c", 3)]


def test_gpu_count_is_read_from_ansible_facts_not_only_a_host_variable():
    # gpu_facts returns ansible_facts.gpucluster_gpu; with inject_facts_as_vars = false there is no
    # top-level gpucluster_gpu, and reading only that gave an 8-GPU node one slot.
    hv = {"x": {"ansible_facts": {"hostname": "x", "gpucluster_gpu": {"gpu_count": 8}}}}
    host = hr.cluster_hosts(["x"], "x", hv)[0]
    assert (host["slots"], host["gpus"]) == (8, 8)
    # a gpucluster_gpu host variable (set by hand) still counts when there are no facts
    assert hr.cluster_hosts(["y"], "y", {"y": {"gpucluster_gpu": {"gpu_count": 2}}})[0]["slots"] == 2
    assert hr.cluster_hosts(["z"], "z", {"z": {}})[0]["gpus"] == 0


def test_explicit_slots_win_over_gpus():
    hv = {"x": _node("10.0.0.9", "x", gpus=8, slots=2)}
    assert hr.cluster_hosts(["x"], "x", hv)[0]["slots"] == 2


def test_launcher_first_then_inventory_order():
    hosts = hr.cluster_hosts(["a", "b", "c"], "c", HOSTVARS)
    assert [h["name"] for h in hosts] == ["c", "a", "b"]


def test_launcher_outside_the_nodes_keeps_the_order():
    assert hr.launch_order(["a", "b"], "ctl") == ["a", "b"]


def test_interconnect_address_wins_over_default_route():
    hv = {"a": _node("172.17.0.2", "n1", iface_address="10.9.0.1")}
    host = hr.cluster_hosts(["a"], "a", hv)[0]
    assert host["address"] == "10.9.0.1"
    assert host["hostname"] == "n1"
    assert host["os"] == "Debian 12.8"


def test_address_falls_back_to_the_name():
    assert hr.cluster_hosts(["bare"], "bare", {"bare": {}})[0]["address"] == "bare"


def test_unknown_host_is_named():
    with pytest.raises(hr.HorovodrunError, match="ghost is not a host of the inventory"):
        hr.cluster_hosts(["a", "ghost"], "a", HOSTVARS)


@pytest.mark.parametrize("bad", [0, -1, "two", ""])
def test_bad_default_slots(bad):
    with pytest.raises(hr.HorovodrunError, match="whole number >= 1"):
        hr.host_slots("a", {}, bad)


@pytest.mark.parametrize(
    ("slots", "expected"),
    [([1], [1]), ([1, 1, 1], [1, 2, 3]), ([2, 2, 2], [1, 2, 4, 6]), ([8, 8], [1, 2, 4, 8, 16])],
)
def test_worker_ladder(slots, expected):
    hosts = [{"name": str(i), "slots": s} for i, s in enumerate(slots)]
    assert hr.worker_counts(hosts) == expected


def test_requested_worker_counts_are_checked():
    hosts = [{"name": "a", "slots": 1}, {"name": "b", "slots": 1}]
    assert hr.worker_counts(hosts, ["2", 1]) == [2, 1]
    with pytest.raises(hr.HorovodrunError, match=r"\[3\] exceed the 2 slots of the cluster \(a:1, b:1\)"):
        hr.worker_counts(hosts, [1, 3])
    with pytest.raises(hr.HorovodrunError, match="whole number >= 1, got 0"):
        hr.worker_counts(hosts, [0])


HOSTS = [
    {"name": "a", "address": "10.0.0.1", "slots": 2},
    {"name": "b", "address": "10.0.0.2", "slots": 2},
    {"name": "c", "address": "10.0.0.3", "slots": 1},
]


@pytest.mark.parametrize(
    ("workers", "expected"),
    [(1, "10.0.0.1:1"), (2, "10.0.0.1:2"), (3, "10.0.0.1:2,10.0.0.2:1"), (5, "10.0.0.1:2,10.0.0.2:2,10.0.0.3:1")],
)
def test_hosts_arg_fills_in_order(workers, expected):
    assert hr.hosts_arg(HOSTS, workers) == expected


def test_hosts_arg_refuses_more_workers_than_slots():
    with pytest.raises(hr.HorovodrunError, match="6 workers do not fit the 5 slots"):
        hr.hosts_arg(HOSTS, 6)


def test_argv_of_a_remote_job():
    argv = hr.launch_argv(
        HOSTS,
        3,
        horovodrun="/v/bin/horovodrun",
        program=["/v/bin/python", "b.py", "--iters", 20],
        ssh_port="9435",
        start_timeout=60,
        run_timeout=900,
        network_interface="eth0",
    )
    assert argv == [
        "timeout", "--kill-after=15", "900", "/v/bin/horovodrun", "-np", "3", "-H", "10.0.0.1:2,10.0.0.2:1",
        "-p", "9435", "--gloo", "--start-timeout", "60", "--network-interface", "eth0",
        "/v/bin/python", "b.py", "--iters", "20",
    ]  # fmt: skip


def test_argv_of_a_job_on_the_launcher_alone_has_no_interface():
    # horovodrun insists on the interface with 127.0.0.1 for a local job and refuses --network-interface.
    argv = hr.launch_argv(HOSTS, 2, horovodrun="hr", program=["p"], network_interface="eth0")
    assert "--network-interface" not in argv
    assert argv[argv.index("-H") + 1] == "10.0.0.1:2"


def test_argv_when_the_launcher_is_not_a_node():
    argv = hr.launch_argv(HOSTS, 1, horovodrun="hr", program=["p"], network_interface="eth0", launcher_is_node=False)
    assert argv[-3:] == ["--network-interface", "eth0", "p"]


def test_argv_mpi_controller_and_bad_controller():
    assert "--mpi" in hr.launch_argv(HOSTS, 1, horovodrun="hr", program=["p"], controller="mpi")
    with pytest.raises(hr.HorovodrunError, match="gloo or mpi, got 'nccl'"):
        hr.launch_argv(HOSTS, 1, horovodrun="hr", program=["p"], controller="nccl")


def test_argv_of_an_elastic_job():
    argv = hr.launch_argv(
        HOSTS,
        3,
        horovodrun="/v/bin/horovodrun",
        program=["/v/bin/python", "b.py", "--mode", "elastic"],
        ssh_port=22,
        network_interface="eth0",
        elastic={"discovery_script": "/opt/gpucluster/benchmark/discover-hosts.sh", "min_workers": 1},
    )
    assert argv == [
        "timeout", "--kill-after=15", "900", "/v/bin/horovodrun", "-np", "3", "--min-np", "1", "--max-np", "3",
        "--host-discovery-script", "/opt/gpucluster/benchmark/discover-hosts.sh",
        "-p", "22", "--gloo", "--start-timeout", "60", "--network-interface", "eth0",
        "/v/bin/python", "b.py", "--mode", "elastic",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"controller": "mpi"}, "Gloo controller only"),
        ({"elastic": {"discovery_script": "/d.sh", "min_workers": 4}}, "minimum worker count 4 is above the most, 3"),
        ({"elastic": {"discovery_script": "d.sh", "min_workers": 1}}, "absolute path, got 'd.sh'"),
        ({"elastic": {"discovery_script": "/d.sh", "min_workers": 0}}, "minimum worker count must be"),
    ],
)
def test_elastic_jobs_refused(options, message):
    options = {"elastic": {"discovery_script": "/d.sh", "min_workers": 1}, **options}
    with pytest.raises(hr.HorovodrunError, match=message):
        hr.launch_argv(HOSTS, 3, horovodrun="hr", program=["p"], **options)


def test_mpirun_argv_follows_the_horovodrun_conventions():
    argv = hr.mpirun_argv(
        HOSTS,
        5,
        ["/x/all_reduce_perf", "-g", 1],
        ssh_port=2222,
        network_interface="ib0",
        env={"NCCL_SOCKET_IFNAME": "ib0", "PATH": "/ignored", "HOROVOD_CYCLE_TIME": "1"},
        run_timeout=300,
    )
    assert argv == [
        "timeout", "--kill-after=15", "300", "mpirun", "-np", "5", "-H", "10.0.0.1:2,10.0.0.2:2,10.0.0.3:1",
        "-bind-to", "none", "-map-by", "slot", "-x", "PATH",
        "-x", "HOROVOD_CYCLE_TIME=1", "-x", "NCCL_SOCKET_IFNAME=ib0",
        "-mca", "btl_tcp_if_include", "ib0", "-mca", "plm_rsh_args", "-p 2222",
        "/x/all_reduce_perf", "-g", "1",
    ]  # fmt: skip


def test_mpirun_argv_without_interface_and_too_many_processes():
    argv = hr.mpirun_argv(HOSTS, 1, ["p"])
    assert "btl_tcp_if_include" not in argv
    assert argv[argv.index("plm_rsh_args") + 1] == "-p 22"
    with pytest.raises(hr.HorovodrunError, match="6 workers do not fit the 5 slots"):
        hr.mpirun_argv(HOSTS, 6, ["p"])


@pytest.mark.parametrize(
    ("sizes", "largest"),
    [
        ("4K,16K,64K,256K,1M,4M,16M,64M,256M", 256 * 1024**2),
        ("1G, 4KiB", 1024**3),
        ("1024", 1024),
        ("64mib,2k", 64 * 1024**2),
    ],
)
def test_largest_size(sizes, largest):
    assert hr.largest_size(sizes) == largest


@pytest.mark.parametrize("bad", ["", "4K,lots", "0K", "-1M"])
def test_largest_size_refuses(bad):
    with pytest.raises(hr.HorovodrunError, match="is not a size"):
        hr.largest_size(bad)


def test_nccl_tests_argv_one_process_per_slot_up_to_the_largest_size():
    argv = hr.nccl_tests_argv(HOSTS, 5, "/b/all_reduce_perf", "4K,64M,1M", ssh_port=22, run_timeout=600)
    assert argv[:3] == ["timeout", "--kill-after=15", "600"]
    assert argv[argv.index("-np") + 1] == "5"
    assert argv[-9:] == ["/b/all_reduce_perf", "-b", "8", "-e", str(64 * 1024**2), "-f", "2", "-g", "1"]
    # smaller than nccl-tests' first size: still a valid range
    assert hr.nccl_tests_argv(HOSTS, 1, "p", "4")[-5] == "8"


# getent ahosts as glibc prints it (address, socket type, the canonical name on the first line)
GETENT_LOOP = "127.0.1.1       STREAM vm\n127.0.1.1       DGRAM  \n127.0.1.1       RAW    \n"
GETENT_STALE = "172.17.0.2      STREAM gpuhost\n172.17.0.2      DGRAM  \n172.17.0.2      RAW    \n"


@pytest.mark.parametrize(
    "getent, local, expect",
    [
        (GETENT_LOOP, [], ""),  # the Debian/Ubuntu convention: the loopback range is the node's own
        ("::1 STREAM vm\n", [], ""),
        ("10.0.0.2 STREAM n2\n", ["10.0.0.2", "172.17.0.3"], ""),
        ("fe80::1 STREAM n2\n10.0.0.2 STREAM\n", ["10.0.0.2"], ""),
        # what the rehearsal container had after its network was taken away: the name resolves elsewhere
        (GETENT_STALE, ["172.18.0.5"], "gpuhost resolves to 172.17.0.2, no address of this node"),
        ("", ["10.0.0.2"], "does not resolve"),
    ],
)
def test_self_resolution_problem(getent, local, expect):
    problem = hr.self_resolution_problem("node1", "gpuhost", getent, local)
    if not expect:
        assert problem == ""
    else:
        assert problem.startswith("node1: its host name gpuhost") and expect in problem
        assert "127.0.1.1 gpuhost" in problem  # names the fix
