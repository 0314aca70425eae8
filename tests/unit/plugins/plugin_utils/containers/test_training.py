# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.containers.training import (
    exec_argv,
    known_hosts_at_port,
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
