"""The test nodes' cache of code compiled from zip imports (molecule/_shared/files/zipimport_cache).

Each case runs a fresh Python that loads the hook as the nodes' .pth file does and imports a module from a zip, as
an Ansible module's AnsiballZ payload is imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

HOOK_DIR = Path(__file__).resolve().parents[3] / "molecule" / "_shared" / "files" / "zipimport_cache"
SOURCE = """
import sys
class Thing:
    def where(self):
        return (lambda: sys._getframe().f_code.co_filename)()
def answer():
    return 6 * 7
"""
RUN = (
    "import sys; sys.path.insert(0, sys.argv[1]); import gpucluster_test_zipimport_cache as h, zipimport;"
    "sys.path.insert(0, sys.argv[2]); import payload;"
    "print(zipimport._compile_source is h._compile_source, payload.answer(), payload.Thing().where())"
)


def _zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("payload.py", SOURCE)
    return path


def _run(cache: Path, zip_path: Path) -> list[str]:
    env = {**os.environ, "GPUCLUSTER_TEST_ZIPIMPORT_CACHE": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(HOOK_DIR), str(zip_path)], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    path = tmp_path / "cache"
    path.mkdir(mode=0o700)
    return path


def test_the_second_import_uses_the_kept_code_under_its_own_file_name(tmp_path: Path, cache: Path):
    first = _run(cache, _zip(tmp_path / "a.zip"))
    assert first == ["True", "42", f"{tmp_path}/a.zip/payload.py"]
    assert len(list(cache.iterdir())) == 1
    entry = next(cache.iterdir())
    stamp = entry.stat().st_mtime_ns
    # another run's zip (AnsiballZ's temporary directory differs every time): same code, this run's file name,
    # nested functions included; the entry is read, not written again
    second = _run(cache, _zip(tmp_path / "b.zip"))
    assert second == ["True", "42", f"{tmp_path}/b.zip/payload.py"]
    assert list(cache.iterdir()) == [entry] and entry.stat().st_mtime_ns == stamp


def test_a_changed_source_is_compiled_again(tmp_path: Path, cache: Path):
    _run(cache, _zip(tmp_path / "a.zip"))
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as z:
        z.writestr("payload.py", SOURCE.replace("6 * 7", "6 * 8"))
    assert _run(cache, tmp_path / "c.zip")[1] == "48"
    assert len(list(cache.iterdir())) == 2


def test_a_broken_entry_is_compiled_instead(tmp_path: Path, cache: Path):
    _run(cache, _zip(tmp_path / "a.zip"))
    next(cache.iterdir()).write_bytes(b"not marshal data")
    assert _run(cache, _zip(tmp_path / "b.zip"))[:2] == ["True", "42"]


def test_a_directory_others_can_write_is_not_used(tmp_path: Path, cache: Path):
    cache.chmod(0o770)
    assert _run(cache, _zip(tmp_path / "a.zip"))[:2] == ["False", "42"]
    assert not list(cache.iterdir())


def test_the_nodes_mount_it_where_python_reads_pth_files():
    nodes = (HOOK_DIR.parents[1] / "nodes.yml").read_text()
    for name in ("gpucluster_test_zipimport_cache.py", "zz_gpucluster_test_zipimport_cache.pth"):
        assert f"/{name}:/usr/lib/python3/dist-packages/{name}:ro" in nodes
    assert (
        HOOK_DIR / "zz_gpucluster_test_zipimport_cache.pth"
    ).read_text() == "import gpucluster_test_zipimport_cache\n"
