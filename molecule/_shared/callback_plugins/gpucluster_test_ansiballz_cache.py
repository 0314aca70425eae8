"""Test machines only: the modules Ansible assembles for the nodes (AnsiballZ payloads), kept between playbook runs.

Before a module runs on a node, the control node assembles its payload: it parses the module and every module_utils
file it imports (recursively) and zips them. Ansible keeps the result in a directory of the playbook run's own temporary
directory, so each `ansible-playbook` starts empty, and a molecule scenario runs it seven to ten times (create,
prepare, converge, idempotence, verify, the check-mode and prepare plays' nested runs, destroy). Measured on the test
machine (py-spy over the control node's processes, a no-change pass of preflight_openmpi_default): 16% of the samples
assembled payloads the run before had assembled; with this callback the pass took 17.3-18.0 CPU-s instead of 22.4
(docs/testing.md, "eleventh session").

This callback runs in the main process before any worker is forked and points that directory (`ansiballz_cache` in
the run's temporary directory) at `$GPUCLUSTER_TEST_ANSIBALLZ_CACHE/<key>`, which later runs find again. The key is
everything a payload is made from: the Python and ansible-core versions, the environment they run from (its prefix:
the other collections installed there), and the path and content of every file of this collection's plugins and of
the module paths configured for the run. Any change there gives a new key, so a payload is reused only when every
file that could be in it is as it was; key directories unused for two days are removed. Ansible itself
writes and reads the entries as it does in its own directory (write to a temporary name, rename; a lock per module).
Without the variable it does nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time

from ansible import constants as C
from ansible.plugins.callback import CallbackBase
from ansible.release import __version__ as ansible_version

DOCUMENTATION = """
name: gpucluster_test_ansiballz_cache
type: aggregate
short_description: Test machines only - keep the AnsiballZ payloads between playbook runs
description:
  - Points the run's AnsiballZ payload directory at a directory under E(GPUCLUSTER_TEST_ANSIBALLZ_CACHE) keyed by
    every file the payloads are made from. The molecule scenarios of this collection enable it; nothing else does.
requirements:
  - enable in configuration
"""

STALE_SECONDS = 2 * 24 * 3600
COLLECTION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins")


def tree_signature(roots: list[str]) -> list[str]:
    """Path and content digest of every file under the roots (sorted): what a payload can be built from."""
    lines = []
    for root in roots:
        for directory, subdirs, files in os.walk(os.path.realpath(root)):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(directory, name)
                try:
                    with open(path, "rb") as handle:
                        lines.append(f"{path}\0{hashlib.sha256(handle.read()).hexdigest()}")
                except OSError:
                    continue
    return lines


def cache_key(module_paths: list[str]) -> str:
    digest = hashlib.sha256()
    for part in [
        "ansiballz-cache 1",
        sys.version,
        ansible_version,
        sys.prefix,
        *tree_signature([COLLECTION, *module_paths]),
    ]:
        digest.update(part.encode() + b"\n")
    return digest.hexdigest()[:24]


def prune(root: str, keep: str) -> None:
    now = time.time()
    for name in os.listdir(root):
        path = os.path.join(root, name)
        if name != keep and os.path.isdir(path) and now - os.stat(path).st_mtime > STALE_SECONDS:
            shutil.rmtree(path, ignore_errors=True)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpucluster_test_ansiballz_cache"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display=display)
        root = os.environ.get("GPUCLUSTER_TEST_ANSIBALLZ_CACHE", "")
        local_tmp = getattr(C, "DEFAULT_LOCAL_TMP", "")
        if not root or not local_tmp:
            return
        run_dir = os.path.join(local_tmp, "ansiballz_cache")
        if os.path.lexists(run_dir):  # payloads already assembled in this run: leave them
            return
        configured = (C.DEFAULT_MODULE_PATH or []) + (C.DEFAULT_MODULE_UTILS_PATH or [])
        module_paths = [p for p in configured if os.path.isdir(p)]
        key = cache_key(module_paths)
        os.makedirs(root, mode=0o700, exist_ok=True)
        shared = os.path.join(root, key)
        os.makedirs(shared, mode=0o700, exist_ok=True)
        os.utime(shared)
        prune(root, key)
        os.symlink(shared, run_dir)
