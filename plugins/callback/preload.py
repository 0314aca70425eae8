# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Callback gpucluster.horovod.preload: load, once, what every forked worker would load again for each task."""

from __future__ import annotations

DOCUMENTATION = r"""
name: preload
type: aggregate
short_description: Load the connection and Jinja plugins once in ansible-playbook's main process, before workers fork
description:
  - Ansible runs each task of each host in a worker process forked from C(ansible-playbook)'s main process. What the
    main process has not loaded, every worker loads again and throws away when it exits. On ansible-core 2.19 that is
    the connection plugin (its module, and its configuration parsed from its C(DOCUMENTATION) YAML) and every Jinja
    filter and test plugin, about 20 ms of controller CPU per task and host, a fifth of the controller's work in a
    no-change re-run of C(site.yml).
  - At the start of each play this callback loads, in the main process, the connection plugins the play's hosts use
    (C(ansible_connection) as the inventory sets it, the play's C(connection), Ansible's default C(ssh), and C(local)
    for delegated tasks), Ansible's builtin filters and tests, and this collection's filters, so that every worker
    inherits them from the fork.
  - Each worker also runs with Python's cyclic garbage collector off (unless O(worker_gc) is true). A worker lives for
    one task on one host, and a collection in it walks the objects it inherited from the main process, which copies
    their memory pages (copy on write) and costs about a tenth of the controller's CPU in a no-change re-run of
    C(site.yml). The main process keeps its collector; what a worker allocates is freed when it exits.
  - It changes nothing a task does and prints nothing; a plugin it cannot load is left to the task that uses it,
    which reports the error as without this callback. Measured on the sandbox (C(make bench-converge),
    docs/performance.md "Converge speed").
  - Enabled in the collection's C(ansible.cfg) (C(callbacks_enabled)); add C(gpucluster.horovod.preload) to yours
    when the collection is installed from Galaxy.
version_added: 0.3.0
author: gpucluster.horovod contributors (@gpucluster)
requirements:
  - enabled in callbacks_enabled
options:
  worker_gc:
    description:
      - Keep Python's cyclic garbage collector on in the forked workers (C(true)), as Ansible leaves it; the default
        turns it off in them.
    type: bool
    default: false
    env:
      - name: GPUCLUSTER_PRELOAD_WORKER_GC
    ini:
      - section: callback_gpucluster_preload
        key: worker_gc
    version_added: 0.3.0
"""

import gc  # noqa: E402 - after DOCUMENTATION, as Ansible's own plugins
import os  # noqa: E402
from pathlib import Path  # noqa: E402

from ansible import constants as C  # noqa: E402
from ansible.plugins.callback import CallbackBase  # noqa: E402
from ansible.plugins.loader import connection_loader, filter_loader, test_loader  # noqa: E402

COLLECTION = "gpucluster.horovod"

# os.register_at_fork cannot be undone: registered once per process, whatever number of playbooks or callbacks.
_WORKER_GC_OFF_REGISTERED = False


def turn_worker_gc_off() -> bool:
    """Every process forked from this one from now on starts with the cyclic garbage collector off; True if newly so.

    Ansible's workers are forked (multiprocessing's fork context), which runs the at-fork hooks; the subprocesses a
    connection starts are spawned without them (fork and exec in C) and are other programs anyway.
    """
    global _WORKER_GC_OFF_REGISTERED  # noqa: PLW0603 - the once-per-process switch
    if _WORKER_GC_OFF_REGISTERED:
        return False
    os.register_at_fork(after_in_child=gc.disable)
    _WORKER_GC_OFF_REGISTERED = True
    return True


def connection_names(play) -> set[str]:
    """The connection plugins the play's hosts name: literal values only (a templated one is left to the workers)."""
    names = {"ssh", "local", str(C.DEFAULT_TRANSPORT or "ssh")}
    conn = getattr(play, "connection", None)
    if isinstance(conn, str) and conn:
        names.add(conn)
    manager = getattr(play, "_variable_manager", None)
    inventory = getattr(manager, "_inventory", None)
    hosts = getattr(inventory, "hosts", None) or {}
    for host in hosts.values():
        try:
            value = host.get_vars().get("ansible_connection")
        except Exception:  # a host whose vars cannot be read is the workers' to report
            continue
        if isinstance(value, str) and value and "{" not in value:
            names.add(value)
    names -= {"smart", ""}
    # Ansible keys a plugin's configuration by the name it resolved: ssh and ansible.builtin.ssh are two entries.
    short = {name.removeprefix("ansible.builtin.") for name in names}
    return short | {f"ansible.builtin.{name}" for name in short if "." not in name} | names


def collection_filter_name() -> str | None:
    """A filter of this collection: loading one loads every file of its plugins/filter (Jinja2Loader, 2.19)."""
    docs = sorted((Path(__file__).resolve().parents[1] / "filter").glob("*.yml"))
    return f"{COLLECTION}.{docs[0].stem}" if docs else None


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpucluster.horovod.preload"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display=display)
        self.loaded: set[str] = set()

    def _load(self, loader, name: str) -> None:
        key = f"{loader.class_name}:{name}"
        if key in self.loaded:
            return
        self.loaded.add(key)
        try:
            loader.get(name, class_only=True) if loader is connection_loader else loader.get(name)
        except Exception:  # the task that uses the plugin reports its error as it would anyway
            pass

    def v2_playbook_on_play_start(self, play):
        try:
            worker_gc = bool(self.get_option("worker_gc"))
        except KeyError:  # options not set (the callback made by hand, as in the unit tests): the default
            worker_gc = False
        if not worker_gc:
            turn_worker_gc_off()
        for name in sorted(connection_names(play)):
            self._load(connection_loader, name)
        # Any builtin name loads all of Ansible's builtin filters (tests), any of this collection's all of its.
        self._load(filter_loader, "ansible.builtin.bool")
        self._load(test_loader, "ansible.builtin.truthy")
        name = collection_filter_name()
        if name:
            self._load(filter_loader, name)
