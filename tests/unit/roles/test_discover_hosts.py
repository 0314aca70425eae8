"""horovod_benchmark's elastic host discovery script (templates/discover-hosts.sh.j2), rendered and run.

The script is rendered as the role renders it (Jinja2 with Ansible's filters) and run with a stand-in `ssh` first on
the PATH that answers for some hosts and not for others, as a lost node does.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

import jinja2
import pytest

TEMPLATE = Path(__file__).resolve().parents[3] / "roles" / "horovod_benchmark" / "templates" / "discover-hosts.sh.j2"
HOSTS = [
    {"name": "node1", "address": "10.0.0.1", "slots": 4},
    {"name": "node2", "address": "10.0.0.2", "slots": 4},
    {"name": "node3", "address": "10.0.0.3", "slots": 2},
]
# the stand-in ssh: records its arguments; 10.0.0.2 is down (ssh exits 255 after its timeout), the others answer
FAKE_SSH = """#!/bin/sh
echo "$*" >> "$SSH_LOG"
for a in "$@"; do case $a in true) ;; *) last=$a ;; esac; done
case "$last" in
  10.0.0.2) sleep "${DOWN_SLEEP:-0}"; exit 255 ;;
  *) exit 0 ;;
esac
"""


def _render(hosts, port=22) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["quote"] = lambda s: shlex.quote(str(s))
    env.filters["int"] = int
    env.filters["string"] = str
    return env.from_string(TEMPLATE.read_text()).render(
        _horovod_benchmark_hosts=hosts,
        horovod_benchmark_ssh_port=port,
        _horovod_benchmark_discovery_script="/opt/gpucluster/benchmark/discover-hosts.sh",
    )


def _run(tmp_path: Path, script: str, **env) -> subprocess.CompletedProcess:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "ssh").write_text(FAKE_SSH)
    (bindir / "ssh").chmod(0o755)
    path = tmp_path / "discover-hosts.sh"
    path.write_text(script)
    path.chmod(0o755)
    full = {"PATH": f"{bindir}:/usr/bin:/bin", "SSH_LOG": str(tmp_path / "ssh.log"), **env}
    return subprocess.run([str(path)], env=full, capture_output=True, text=True, check=False, timeout=30)


def test_it_prints_the_nodes_that_answer_in_inventory_order(tmp_path):
    out = _run(tmp_path, _render(HOSTS, port=12345))
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.splitlines() == ["10.0.0.1:4", "10.0.0.3:2"]
    calls = (tmp_path / "ssh.log").read_text().splitlines()
    assert len(calls) == 3
    # never asks for a password or a host key answer, bounded by the timeout, on the jobs' port
    assert all(c.startswith("-o BatchMode=yes -o ConnectTimeout=3 -p 12345 ") and c.endswith(" true") for c in calls)


def test_the_port_can_be_given_at_run_time(tmp_path):
    # the cluster trains in containers (port 12345); a job on the hosts' sshd asks for port 22
    _run(tmp_path, _render(HOSTS, port=12345), GPUCLUSTER_DISCOVERY_SSH_PORT="22")
    assert all(" -p 22 " in c for c in (tmp_path / "ssh.log").read_text().splitlines())


def test_the_probes_run_side_by_side(tmp_path):
    hosts = [{"name": f"n{i}", "address": "10.0.0.2", "slots": 1} for i in range(4)]
    started = time.monotonic()
    out = _run(tmp_path, _render(hosts), DOWN_SLEEP="1", GPUCLUSTER_DISCOVERY_TIMEOUT="1")
    # four nodes down cost one timeout, not four
    assert time.monotonic() - started < 3.5
    assert out.returncode == 0 and out.stdout == ""
    assert "ConnectTimeout=1 " in (tmp_path / "ssh.log").read_text()


def test_an_address_is_quoted_for_the_shell(tmp_path):
    out = _run(tmp_path, _render([{"name": "odd", "address": "a b;touch x", "slots": 1}]))
    assert out.stdout.splitlines() == ["a b;touch x:1"] and not (tmp_path / "x").exists()


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (the lint tier has it)")
def test_the_rendered_script_passes_shellcheck(tmp_path):
    path = tmp_path / "discover-hosts.sh"
    path.write_text(_render(HOSTS))
    out = subprocess.run(["shellcheck", "-s", "sh", str(path)], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout
