"""gpucluster.horovod.preload: what the forked workers would load for every task is loaded once (issue 37)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from ansible_collections.gpucluster.horovod.plugins.callback import preload
from ansible_collections.gpucluster.horovod.plugins.callback.preload import CallbackModule, connection_names

ROOT = Path(__file__).resolve().parents[4]


class Host:
    def __init__(self, **hostvars):
        self.hostvars = hostvars

    def get_vars(self):
        return self.hostvars


class BrokenHost:
    def get_vars(self):
        raise RuntimeError("unreadable")


def play(hosts, connection=None):
    inventory = SimpleNamespace(hosts=hosts)
    return SimpleNamespace(connection=connection, _variable_manager=SimpleNamespace(_inventory=inventory))


def test_connection_names_are_the_inventory_s_literal_ones_under_both_spellings():
    names = connection_names(
        play(
            {
                "n1": Host(ansible_connection="community.docker.docker"),
                "n2": Host(ansible_connection="ansible.builtin.ssh"),
                "n3": Host(ansible_connection="{{ lookup('env', 'CONN') }}"),
                "n4": Host(),
                "n5": BrokenHost(),
            },
            connection="ansible.builtin.paramiko_ssh",
        )
    )
    assert {"ssh", "ansible.builtin.ssh", "local", "ansible.builtin.local", "community.docker.docker"} <= names
    assert {"paramiko_ssh", "ansible.builtin.paramiko_ssh"} <= names
    assert not any("{" in name for name in names)
    assert "smart" not in names


def test_connection_names_without_an_inventory_are_the_defaults():
    assert connection_names(SimpleNamespace()) >= {"ssh", "ansible.builtin.ssh", "local"}


# In a fresh interpreter (the test process may have loaded plugins already): before the play starts the
# configuration of the ssh connection and the Jinja plugins are not loaded, after it they are, in this process,
# which is what Ansible's forked workers inherit.
_PROBE = r"""
import json, sys
from ansible import constants as C
from ansible.plugins.loader import init_plugin_loader, filter_loader, test_loader
init_plugin_loader([sys.argv[1]])
from ansible_collections.gpucluster.horovod.plugins.callback.preload import CallbackModule
from types import SimpleNamespace

def state():
    return {
        "ssh": C.config.has_configuration_definition("connection", "ssh"),
        # what Ansible keys ansible.builtin.ssh (the inventory's spelling) under: its Python module's name
        "builtin_ssh": C.config.has_configuration_definition(
            "connection", "ansible_collections.ansible.builtin.plugins.connection.ssh"
        ),
        "builtin_filters": bool(filter_loader._cached_non_collection_wrappers),
        "builtin_tests": bool(test_loader._cached_non_collection_wrappers),
        "collection_filters": any("/gpucluster/horovod/plugins/filter/" in p for p in filter_loader._module_cache),
    }

before = state()
cb = CallbackModule()
cb.v2_playbook_on_play_start(SimpleNamespace(connection=None))
cb.v2_playbook_on_play_start(SimpleNamespace(connection=None))  # a second play loads nothing again
print(json.dumps({"before": before, "after": state(), "loaded": sorted(cb.loaded)}))
"""


def _run_probe(script, env=None):
    """Run a probe in a fresh interpreter with the checkout's collections; its last line of output, as JSON."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / ".cache" / "collections")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_the_play_start_loads_the_connection_and_jinja_plugins_in_this_process():
    result = _run_probe(_PROBE)
    assert not any(result["before"].values()), result["before"]
    assert all(result["after"].values()), result["after"]
    assert "Connection:ssh" in result["loaded"] and "Connection:ansible.builtin.ssh" in result["loaded"]


def test_a_plugin_that_cannot_be_loaded_is_left_to_the_task(monkeypatch):
    calls = []

    class Loader:
        class_name = "Connection"

        def get(self, name, class_only=False):
            calls.append(name)
            raise RuntimeError("broken plugin")

    loader = Loader()
    cb = CallbackModule()
    monkeypatch.setattr(preload, "connection_loader", loader)
    cb._load(loader, "community.docker.docker")  # no exception
    cb._load(loader, "community.docker.docker")  # tried once
    assert calls == ["community.docker.docker"]


# In a fresh interpreter: the play start turns the collector off in the processes forked after it (Ansible's workers),
# not in this one; a second play registers nothing again; worker_gc true leaves the workers' collector on.
_FORK_PROBE = r"""
import gc, json, os, sys
from ansible.plugins.loader import callback_loader, init_plugin_loader
init_plugin_loader([sys.argv[1]])
from ansible_collections.gpucluster.horovod.plugins.callback import preload
from types import SimpleNamespace

def child_gc():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(w, b"1" if gc.isenabled() else b"0")
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    return os.read(r, 1) == b"1"

# as Ansible makes an enabled callback: through the loader (its options' definitions), set_options() before the plays
cb = callback_loader.get("gpucluster.horovod.preload")
cb.set_options()
before = child_gc()
cb.v2_playbook_on_play_start(SimpleNamespace(connection=None))
child = child_gc()
again = preload.turn_worker_gc_off()
print(json.dumps({"before": before, "child": child, "parent": gc.isenabled(), "registered_again": again}))
"""


def _fork_probe(env_value):
    env = {k: v for k, v in os.environ.items() if k != "GPUCLUSTER_PRELOAD_WORKER_GC"}
    if env_value is not None:
        env["GPUCLUSTER_PRELOAD_WORKER_GC"] = env_value
    return _run_probe(_FORK_PROBE, env)


def test_the_workers_forked_after_the_play_start_run_without_the_cyclic_collector():
    result = _fork_probe(None)
    assert result["before"] is True  # Ansible's own behaviour until the play starts
    assert result["child"] is False
    assert result["parent"] is True  # the main process keeps collecting
    assert result["registered_again"] is False  # once per process


def test_worker_gc_true_leaves_the_workers_collector_on():
    result = _fork_probe("true")
    assert result == {"before": True, "child": True, "parent": True, "registered_again": True}


def test_worker_gc_false_is_the_default_spelled_out():
    assert _fork_probe("false")["child"] is False
