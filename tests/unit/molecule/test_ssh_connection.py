"""The test nodes are reached over SSH with their host keys checked (molecule/_shared/create.yml, nodes.yml and
.config/molecule/config.yml): the client config create.yml writes is read back by OpenSSH itself (`ssh -G`)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import jinja2
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT / "molecule" / "_shared"
ADDRESSES = {"zz-n1": "172.30.0.2", "zz-n2": "172.30.0.3"}
SSH_DIR = "/tmp/molecule.x.zz/ssh"


def _write_task() -> dict:
    create = yaml.safe_load((SHARED / "create.yml").read_text())
    tasks = [t for t in create[0]["tasks"] if t["name"].startswith("Write the nodes' host keys")]
    assert len(tasks) == 1
    return tasks[0]


def _render(item_file: str, keyscan_lines: list[str]) -> str:
    task = _write_task()
    (item,) = [i for i in task["loop"] if i["file"] == item_file]
    env = jinja2.Environment(trim_blocks=True, undefined=jinja2.StrictUndefined)  # Ansible's settings for templates
    env.tests["match"] = lambda value, pattern: re.match(pattern, value) is not None  # Ansible's test of that name
    names = dict(zip(ADDRESSES.values(), ADDRESSES.keys()))
    return env.from_string(item["content"]).render(
        __create_addresses=ADDRESSES,
        __create_names=names,
        __create_keyscan={"stdout_lines": keyscan_lines},
        molecule_ssh_dir=SSH_DIR,
        molecule_ssh_control_path=yaml.safe_load((SHARED / "nodes.yml").read_text())["molecule_ssh_control_path"],
        molecule_node_network="molecule-zz",
    )


def test_the_scenarios_connect_over_ssh_with_the_written_config():
    config = yaml.safe_load((ROOT / ".config" / "molecule" / "config.yml").read_text())
    options = config["provisioner"]["connection_options"]
    assert options["ansible_connection"] == "ssh" and options["ansible_user"] == "root"
    # ansible_ssh_args replaces Ansible's defaults (compression, its own ControlPath) with the scenario's config
    assert options["ansible_ssh_args"] == "-F ${MOLECULE_EPHEMERAL_DIRECTORY}/ssh/config"


def test_every_node_authorizes_the_scenario_key_read_only():
    nodes = yaml.safe_load((SHARED / "nodes.yml").read_text())
    assert nodes["molecule_ssh_dir"].endswith("MOLECULE_EPHEMERAL_DIRECTORY') }}/ssh")
    assert (
        "{{ molecule_ssh_dir }}/id_ed25519.pub:/root/.ssh/authorized_keys:ro"
        in nodes["molecule_node_defaults"]["volumes"]
    )


def test_known_hosts_names_each_node_and_skips_what_is_not_a_key():
    lines = [
        "# 172.30.0.3:22 SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u7",
        "172.30.0.3 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB2",
        "172.30.0.2 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA1",
    ]
    assert _render("known_hosts", lines).splitlines() == [
        "zz-n2 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB2",
        "zz-n1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA1",
    ]


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client")
def test_openssh_reads_the_config_as_meant(tmp_path):
    path = tmp_path / "config"
    path.write_text(_render("config", []))
    effective = {}
    for line in subprocess.run(
        ["ssh", "-G", "-F", str(path), "zz-n2"], check=True, capture_output=True, text=True
    ).stdout.splitlines():
        key, _sep, value = line.partition(" ")
        effective.setdefault(key, value)
    assert effective["hostname"] == "172.30.0.3" and effective["hostkeyalias"] == "zz-n2"
    assert effective["user"] == "root" and effective["stricthostkeychecking"] in ("true", "yes")
    assert effective["userknownhostsfile"] == f"{SSH_DIR}/known_hosts"
    assert effective["identityfile"] == f"{SSH_DIR}/id_ed25519"
    assert effective["controlmaster"] in ("auto", "true") and effective["controlpersist"] == "900"
    assert effective["controlpath"].endswith("/.ansible/cp/molecule-zz-n2")


def test_create_makes_the_control_path_directory():
    # ssh does not create it; a fresh machine has no ~/.ansible/cp (every connection failed with rc 255 there)
    create = yaml.safe_load((SHARED / "create.yml").read_text())
    paths = [t["ansible.builtin.file"]["path"] for t in create[0]["tasks"] if "ansible.builtin.file" in t]
    assert "{{ molecule_ssh_control_path | dirname | expanduser }}" in paths
    tasks = [t["name"] for t in create[0]["tasks"]]
    assert tasks.index("Ensure the directory of the shared SSH connections exists") < tasks.index("Start the nodes")


def test_no_harness_file_turns_host_key_checking_off():
    for path in [ROOT / ".config" / "molecule" / "config.yml", *(ROOT / "molecule").rglob("*.yml")]:
        text = path.read_text().lower().replace("=", " ")
        assert "stricthostkeychecking no" not in text and "userknownhostsfile /dev/null" not in text, path
