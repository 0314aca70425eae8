"""The AnsiballZ payload cache of the molecule runs (callback gpucluster_test_ansiballz_cache in molecule/_shared):
a run's payload directory is pointed at a key that changes with every file a payload can be made from."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ansible import constants as C

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = ROOT / "molecule" / "_shared" / "callback_plugins" / "gpucluster_test_ansiballz_cache.py"


@pytest.fixture(name="run_tmp")
def fixture_run_tmp(tmp_path, monkeypatch):
    run = tmp_path / "ansible-local-1"
    run.mkdir()
    monkeypatch.setattr(C, "DEFAULT_LOCAL_TMP", str(run), raising=False)
    monkeypatch.setattr(C, "DEFAULT_MODULE_PATH", [], raising=False)
    monkeypatch.setattr(C, "DEFAULT_MODULE_UTILS_PATH", [], raising=False)
    return run


def test_run_directory_points_at_the_shared_key(run_tmp, tmp_path, monkeypatch, load_file):
    plugin = load_file(PLUGIN, "gpucluster_test_ansiballz_cache")
    monkeypatch.setenv("GPUCLUSTER_TEST_ANSIBALLZ_CACHE", str(tmp_path / "shared"))
    plugin.CallbackModule()
    link = run_tmp / "ansiballz_cache"
    assert link.is_symlink()
    assert Path(os.readlink(link)).parent == tmp_path / "shared"
    assert Path(os.readlink(link)).name == plugin.cache_key([])


def test_nothing_without_the_variable(run_tmp, monkeypatch, load_file):
    monkeypatch.delenv("GPUCLUSTER_TEST_ANSIBALLZ_CACHE", raising=False)
    load_file(PLUGIN, "gpucluster_test_ansiballz_cache").CallbackModule()
    assert not (run_tmp / "ansiballz_cache").exists()


def test_key_follows_the_content_of_module_paths(tmp_path, load_file):
    plugin = load_file(PLUGIN, "gpucluster_test_ansiballz_cache")
    library = tmp_path / "library"
    library.mkdir()
    module = library / "mod.py"
    module.write_text("x = 1\n")
    first = plugin.cache_key([str(library)])
    assert plugin.cache_key([str(library)]) == first
    module.write_text("x = 2\n")
    assert plugin.cache_key([str(library)]) != first


def test_stale_keys_are_removed(tmp_path, load_file):
    plugin = load_file(PLUGIN, "gpucluster_test_ansiballz_cache")
    for name, age in (("old", 3 * 24 * 3600), ("recent", 60), ("current", 10 * 24 * 3600)):
        (tmp_path / name).mkdir()
        stamp = os.stat(tmp_path / name).st_mtime - age
        os.utime(tmp_path / name, (stamp, stamp))
    plugin.prune(str(tmp_path), keep="current")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current", "recent"]
