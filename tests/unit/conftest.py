"""Make the checkout importable as ``ansible_collections.gpucluster.horovod``.

The repository root is the collection root, so the tests link it into
``.cache/collections/ansible_collections/gpucluster/horovod`` (the same link ``make venv``
creates for ansible-playbook) and put that tree first on ``sys.path``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
COLLECTIONS = ROOT / ".cache" / "collections"
LINK = COLLECTIONS / "ansible_collections" / "gpucluster" / "horovod"

if not LINK.exists():
    LINK.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(ROOT, LINK.parent), LINK)
if str(COLLECTIONS) not in sys.path:
    sys.path.insert(0, str(COLLECTIONS))

# Ansible's collection loader also serves ansible_collections.* imports in plugins under test.
try:
    from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder

    _AnsibleCollectionFinder(paths=[str(COLLECTIONS)])._install()
except ImportError:  # pragma: no cover - ansible-core is always in the dev venv
    pass


@pytest.fixture(name="load_file")
def fixture_load_file():
    """A function that imports a Python file outside the packages (a script, a test harness plugin) as a module."""

    def load(path: Path, name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
