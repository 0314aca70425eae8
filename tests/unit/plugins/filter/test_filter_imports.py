"""The filter files import the logic they call lazily (plugin_utils/lazy.py): Ansible imports every filter file of the
collection in each worker that looks up one of its filters, so a top-level import of the logic would be paid there."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

ROOT = Path(__file__).resolve().parents[4]
FILTERS = sorted((ROOT / "plugins" / "filter").glob("*.py"))
COLLECTION = "ansible_collections.gpucluster.horovod"
ALLOWED = {f"{COLLECTION}.plugins.plugin_utils.lazy"}


@pytest.mark.parametrize("path", FILTERS, ids=[p.name for p in FILTERS])
def test_filter_file_imports_no_logic_at_load(path):
    tree = ast.parse(path.read_text())
    eager = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith(COLLECTION)
        and node.module not in ALLOWED
    ]
    eager += [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.startswith(COLLECTION)
    ]
    assert not eager, f"{path.name} imports {eager} when loaded; name it with LazyModule instead"


def test_lazy_module_imports_on_first_use():
    name = f"{COLLECTION}.plugins.plugin_utils.fabric.nccl_log"
    sys.modules.pop(name, None)
    lazy = LazyModule(name)
    assert name not in sys.modules
    used = lazy.nccl_transports
    assert name in sys.modules
    assert used is importlib.import_module(name).nccl_transports


def test_lazy_module_reports_a_missing_module_on_use():
    lazy = LazyModule(f"{COLLECTION}.plugins.plugin_utils.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        assert lazy.anything is None


@pytest.mark.parametrize("path", FILTERS, ids=[p.name for p in FILTERS])
def test_every_filter_has_documentation_of_its_own(path):
    """ansible-doc shows a filter file's DOCUMENTATION for every filter of that file and reads a sidecar <name>.yml
    only where the file has none: a file of several filters documents each in its sidecar (the horovod_frameworks
    file once showed its first filter's page for the other four)."""
    module = importlib.import_module(f"{COLLECTION}.plugins.filter.{path.stem}")
    names = sorted(module.FilterModule().filters())
    in_file = "DOCUMENTATION" in vars(module)
    if in_file:
        assert names == [path.stem], f"{path.name} has DOCUMENTATION and filters {names}: use one sidecar per filter"
    undocumented = [n for n in names if not (in_file or (path.parent / f"{n}.yml").is_file())]
    assert not undocumented, f"{path.name}: no {', '.join(n + '.yml' for n in undocumented)}"
