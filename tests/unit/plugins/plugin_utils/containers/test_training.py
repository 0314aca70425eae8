# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.containers.training import (
    exec_argv,
    known_hosts_at_port,
    rdma_options,
)

# The shape passwordless_ssh writes (names of one node joined by commas, one line per key type).
KNOWN_HOSTS = [
    "# Managed by gpucluster.horovod.passwordless_ssh: ssh-keyscan from n1.",
    "n1,n1.example,hvd-n1,10.0.0.1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA1",
    "n1,n1.example,hvd-n1,10.0.0.1 ecdsa-sha2-nistp256 AAAAE2VjZHNh",
    "",
    "n2,10.0.0.2 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA2",
]


def test_every_name_moves_to_the_port_and_comments_go():
    moved = known_hosts_at_port(KNOWN_HOSTS, 12345)
    assert moved == sorted(
        [
            "[n1]:12345,[n1.example]:12345,[hvd-n1]:12345,[10.0.0.1]:12345 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA1",
            "[n1]:12345,[n1.example]:12345,[hvd-n1]:12345,[10.0.0.1]:12345 ecdsa-sha2-nistp256 AAAAE2VjZHNh",
            "[n2]:12345,[10.0.0.2]:12345 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA2",
        ]
    )


def test_names_already_at_a_port_move_and_port_22_is_bare():
    assert known_hosts_at_port(["[n1]:2222,n2 ssh-ed25519 K"], "22") == ["n1,n2 ssh-ed25519 K"]
    assert known_hosts_at_port(["[n1]:2222 ssh-ed25519 K"], 9435) == ["[n1]:9435 ssh-ed25519 K"]


@pytest.mark.parametrize(
    "lines, port, message",
    [
        (["|1|abc=|def= ssh-ed25519 K"], 12345, "hashed"),
        (["@cert-authority *.example ssh-ed25519 K"], 12345, "marker"),
        (["n1 ssh-ed25519"], 12345, "no key"),
        (["n1 ssh-ed25519 K"], 0, "outside"),
        (["n1 ssh-ed25519 K"], "ssh", "not a number"),
    ],
)
def test_what_cannot_be_moved_is_refused(lines, port, message):
    with pytest.raises(ValueError, match=message):
        known_hosts_at_port(lines, port)


def test_exec_argv_wraps_with_user_dir_and_sorted_env():
    argv = exec_argv(["horovodrun", "-np", 3], "train", "hvd", "/opt/b", {"PATH": "/v/bin", "A_B": 1})
    assert argv == [
        "docker", "exec", "-u", "hvd", "-w", "/opt/b", "-e", "A_B=1", "-e", "PATH=/v/bin", "train",
        "horovodrun", "-np", "3",
    ]  # fmt: skip


def test_exec_argv_without_container_is_the_command():
    assert exec_argv(["ssh", "n2", "true"], "", "hvd", "/x", {"A": "1"}) == ["ssh", "n2", "true"]


def test_exec_argv_refuses_a_bad_variable_name():
    with pytest.raises(ValueError, match="not valid"):
        exec_argv(["true"], "c", env={"A-B": "1"})


# --- NCCL's InfiniBand/RoCE transport in the training containers (horovod_container_rdma) -------------------------

IB = {"kind": "infiniband", "port_count": 2, "ports": ["mlx5_0:1", "mlx5_1:1"]}


def test_rdma_where_the_fabric_has_usable_ports():
    got = rdma_options(IB, "auto", True, "n1")
    assert got == {
        "enabled": True,
        "devices": ["/dev/infiniband:/dev/infiniband"],
        "capabilities": ["IPC_LOCK"],
        "ulimits": ["memlock:-1:-1"],
        "problem": "",
    }


def test_the_memlock_limit_is_unlimited_or_the_bytes_given():
    assert rdma_options(IB, "auto", True, "n1", 8388608)["ulimits"] == ["memlock:8388608:8388608"]
    assert rdma_options(IB, "auto", True, "n1", "8388608")["ulimits"] == ["memlock:8388608:8388608"]
    assert rdma_options(IB, "auto", True, "n1", "unlimited")["ulimits"] == ["memlock:-1:-1"]
    for bad in ("8M", 0, "-1", "", None):
        with pytest.raises(ValueError, match="neither 'unlimited' nor a positive number of bytes"):
            rdma_options(IB, "auto", True, "n1", bad)


def test_no_rdma_without_ports_or_when_never():
    off = {"enabled": False, "devices": [], "capabilities": [], "ulimits": [], "problem": ""}
    assert rdma_options({"kind": "none", "port_count": 0}, "auto", False) == off
    assert rdma_options({}, "auto", False) == off  # the first play read no fabric
    assert rdma_options(IB, "never", True) == off
    assert rdma_options({}, "always", True)["enabled"] is True


def test_ports_without_the_verbs_devices_are_refused_with_the_fix():
    got = rdma_options(IB, "auto", False, "n1")
    assert got["problem"].startswith("n1: 2 usable InfiniBand/RoCE port(s) were found, but /dev/infiniband does not")
    assert "modprobe ib_uverbs" in got["problem"] and "horovod_container_rdma: never" in got["problem"]
    with pytest.raises(ValueError, match="RDMA mode 'yes' unknown; valid: auto, always, never"):
        rdma_options(IB, "yes", True)
