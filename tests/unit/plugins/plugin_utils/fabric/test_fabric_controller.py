"""The cluster's fabric on the controller (plugin_utils/fabric): agreement between nodes, the GPUDirect RDMA path,
and the transport NCCL used, read from its INFO log (the H200 run's real log and constructed multi-node logs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter import fabric as filters
from ansible_collections.gpucluster.horovod.plugins.module_utils import _fabric as host
from ansible_collections.gpucluster.horovod.plugins.plugin_utils import fabric

FIX = Path(__file__).resolve().parents[3] / "fixtures"


def tree(name):
    return host.summarize(host.read_tree(str(FIX / "fabric" / name)))


def test_nodes_that_agree_have_no_problem():
    assert fabric.cluster_problems({"n1": tree("ib_hdr_2"), "n2": tree("ib_hdr_2"), "n3": tree("ib_hdr_2")}) == []
    assert fabric.cluster_problems({"n1": tree("none"), "n2": tree("none")}) == []
    assert fabric.cluster_problems({"n1": tree("roce_v2")}) == []  # one node


def test_a_node_without_the_fabric_is_named():
    problems = fabric.cluster_problems({"n1": tree("ib_hdr_2"), "n2": tree("ib_hdr_2"), "n3": tree("roce_no_ip")})
    assert problems == [
        "the nodes' fabrics differ (n1, n2: infiniband; n3: none): NCCL uses what every node offers, so the job falls "
        "back to TCP sockets or hangs"
    ]


def test_a_port_down_and_a_slower_rate_are_named():
    problems = fabric.cluster_problems({"n1": tree("ib_hdr_2"), "n2": tree("ib_hdr_1_down")})
    assert problems == [
        "the nodes have different numbers of usable RDMA ports (n1: 2 port(s); n2: 1 port(s)): a port is down or "
        "missing on the smaller side"
    ]
    slow = dict(tree("ib_hdr_2"), rate_gbps=100.0)
    assert fabric.cluster_problems({"n1": tree("ib_hdr_2"), "n2": slow, "n3": tree("ib_hdr_2")}) == [
        "the nodes' RDMA ports run at different rates (n1, n3: 200 Gb/s; n2: 100 Gb/s): every ring runs at the "
        "slowest link"
    ]


def test_the_link_rate_is_the_slowest_port_when_every_node_has_the_fabric():
    hdr = tree("ib_hdr_2")
    assert hdr["rate_gbps"] == 200.0
    assert filters.fabric_link_rate([hdr, hdr]) == 200.0
    assert filters.fabric_link_rate([hdr, dict(hdr, rate_gbps=100.0)]) == 100.0
    assert filters.fabric_link_rate([tree("roce_v2")]) == tree("roce_v2")["rate_gbps"]
    # a node without usable ports (no fabric, its only port down, not read by the first play): NCCL leaves the fabric
    for other in (tree("none"), tree("roce_no_ip"), {}, None):
        assert filters.fabric_link_rate([hdr, other]) is None, other
    assert filters.fabric_link_rate([]) is None
    with pytest.raises(AnsibleFilterError, match="expects a list"):
        filters.fabric_link_rate({"n1": hdr})


H100_OPEN = {"gpu_count": 8, "kernel_module": "open"}


@pytest.mark.parametrize(
    "case",
    [
        ({"kind": "infiniband"}, H100_OPEN, "6.8.0-45-generic", "2.21.5", "dmabuf", "DMA-BUF"),
        ({"kind": "roce"}, H100_OPEN, "6.1.0-50-amd64", None, "dmabuf", "DMA-BUF"),
        ({"kind": "infiniband"}, H100_OPEN, "5.4.0-190-generic", "2.21.5", "none", "Linux 5.12 or later"),
        (
            {"kind": "infiniband", "ofed": True, "peermem_module": True},
            {"gpu_count": 8, "kernel_module": "proprietary"},
            "5.15.0-1-generic",
            "2.21.5",
            "peermem",
            "nvidia-peermem with the installed OFED stack",
        ),
        (
            {"kind": "infiniband", "peermem_module": True},
            {"gpu_count": 8, "kernel_module": "proprietary"},
            "6.1.0",
            "2.21.5",
            "none",
            "MLNX_OFED or DOCA-OFED",
        ),
        ({"kind": "infiniband"}, H100_OPEN, "6.1.0", "2.12.12", "none", "NCCL 2.13 or later"),
        ({"kind": "none"}, H100_OPEN, "6.1.0", "2.21.5", "none", "over TCP"),
        ({"kind": "infiniband"}, {"gpu_count": 0}, "6.1.0", "2.21.5", "none", "no NVIDIA GPU"),
    ],
)
def test_gpudirect_rdma_decision(case):
    fabric_facts, gpu, kernel, nccl, method, phrase = case
    decision = filters.gpudirect_rdma(fabric_facts, gpu, kernel, nccl)
    assert decision["method"] == method, decision
    assert phrase in decision["reason"]


def test_the_h200_runs_real_log_is_one_node_over_p2p_with_the_socket_network():
    # tools/gpu-host-check.sh on the lent H200 (tests/unit/fixtures/benchmark/h200): no HCA, one GPU.
    used = fabric.nccl_transports((FIX / "benchmark" / "h200" / "nccl-info-all_reduce_perf.log").read_text())
    assert used["network"] == "Socket"
    assert used["net_devices"] == ["lo:127.0.0.1<0>"]
    assert used["inter_node"] is None and used["gdrdma"] is False
    assert fabric.fabric_use_problem("none", used) == ""
    assert fabric.fabric_use_problem("infiniband", used, nodes=1) == ""  # one node never uses the network


IB_LOG = """\
n1:1201:1201 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ibp12s0:10.0.0.11<0>
n1:1201:1201 [0] NCCL INFO Using network IB
n1:1201:1290 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA
n1:1201:1290 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/1/GDRDMA
n1:1201:1290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
"""
SOCKET_LOG = """\
n1:1201:1201 [0] NCCL INFO NET/IB : No device found.
n1:1201:1201 [0] NCCL INFO NET/Socket : Using [0]ens1f0np0:10.0.0.11<0>
n1:1201:1201 [0] NCCL INFO Using network Socket
n1:1201:1290 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0
n1:1201:1290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct
"""


def test_infiniband_with_gpudirect_rdma():
    used = fabric.nccl_transports(IB_LOG)
    assert used == {
        "network": "IB",
        "net_devices": ["mlx5_0:1/IB", "mlx5_1:1/IB"],
        "transports": ["NET/IB", "P2P"],
        "gdrdma": True,
        "inter_node": "IB",
    }
    assert fabric.fabric_use_problem("infiniband", used, nodes=2) == ""


def test_the_silent_fallback_to_sockets_is_refused_on_a_fabric():
    used = filters.nccl_transports(SOCKET_LOG)
    assert used["inter_node"] == "Socket" and used["transports"] == ["NET/Socket", "SHM"]
    problem = filters.fabric_use_problem(used, "roce", 2)
    assert "NCCL moved data between the nodes over TCP sockets" in problem
    assert filters.fabric_use_problem(used, "none", 2) == ""  # no fabric: sockets are what there is


def test_filters_are_registered_and_documented():
    names = set(filters.FilterModule().filters())
    assert names == {
        "fabric_cluster_problems",
        "gpudirect_rdma",
        "nccl_transports",
        "fabric_use_problem",
        "nccl_conf",
        "fabric_port_check",
        "fabric_link_rate",
    }
    for name in names:
        assert (Path(filters.__file__).parent / f"{name}.yml").is_file(), name


def test_nccl_conf_on_infiniband_roce_and_without_a_fabric():
    interconnect = {"interface": "eth0", "address": "10.0.0.11", "cidr": "10.0.0.0/24"}
    assert fabric.nccl_conf(tree("ib_hdr_2"), interconnect) == {
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1",
        "NCCL_SOCKET_IFNAME": "=eth0",
    }
    assert fabric.nccl_conf(tree("roce_v2"), interconnect) == {
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_IB_HCA": "=mlx5_0:1",
        "NCCL_SOCKET_IFNAME": "=eth0",
    }
    assert fabric.nccl_conf(tree("none"), interconnect) == {"NCCL_SOCKET_IFNAME": "=eth0"}
    assert fabric.nccl_conf(None, None) == {}
    # The user's system settings last: they win.
    assert filters.nccl_conf(
        tree("ib_hdr_1_down"), interconnect, {"NCCL_IB_TIMEOUT": 22, "NCCL_IB_HCA": "=mlx5_0"}
    ) == {
        "NCCL_IB_HCA": "=mlx5_0",
        "NCCL_IB_TIMEOUT": "22",
        "NCCL_SOCKET_IFNAME": "=eth0",
    }


def test_nccl_conf_refuses_debugging_and_strange_settings():
    assert fabric.settings_problems({"NCCL_IB_TIMEOUT": 22}) == []
    problems = fabric.settings_problems({"NCCL_DEBUG": "INFO", "nccl_ib_hca": "x", "NCCL_X": "a\nb"})
    assert problems == [
        "NCCL_DEBUG is a debugging variable: set it in a job's environment, not for every job",
        "'nccl_ib_hca' is not an NCCL variable (NCCL_ and capitals)",
        "NCCL_X: the value must be one line",
    ]
    assert fabric.settings_problems("NCCL_DEBUG=INFO") == ["not a dict of NCCL variable names to values"]
    with pytest.raises(Exception, match="nccl_conf: NCCL_DEBUG is a debugging variable"):
        filters.nccl_conf({}, {}, {"NCCL_DEBUG": "INFO"})


def test_the_port_check_of_node_health():
    assert fabric.port_health_check(tree("ib_hdr_2"))["status"] == "ok"
    assert fabric.port_health_check(tree("none"))["status"] == "ok"
    down = filters.fabric_port_check(tree("ib_hdr_1_down"))
    assert down == {
        "name": "fabric_ports",
        "status": "warn",
        "value": "1 usable, 1 not",
        "expected": "every RDMA port usable",
        "reason": "RDMA port(s) not usable: mlx5_1:1 (state DOWN)",
    }


def test_the_filter_takes_a_commands_lines():
    lines = SOCKET_LOG.splitlines()
    assert filters.nccl_transports(lines) == filters.nccl_transports(SOCKET_LOG)
