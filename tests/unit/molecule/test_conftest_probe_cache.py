"""The cache of NVIDIA's configuration probes in front of nvidia_driver_default's DKMS builds
(molecule/nvidia_driver_default/files/conftest_probe_cache.py): a probe's answer is replayed only for the same
compiler, arguments, source and headers, failures included, and everything else goes to the compiler."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "molecule" / "nvidia_driver_default" / "files" / "conftest_probe_cache.py"

# A stand-in compiler: counts its runs, fails when the source says so, else writes an object named like gcc's.
COMPILER = """#!/bin/sh
echo run >> "$COUNT"
for a; do case $a in *.c) src=$a;; esac; done
if grep -q FAIL "$src"; then echo "error: probe $src fails" >&2; exit 1; fi
echo "object of $(cat "$src")" > "${src%.c}.o"
echo "compiled $src"
"""


@pytest.fixture(name="probe_env")
def fixture_probe_env(tmp_path, monkeypatch):
    compiler = tmp_path / "gcc-12.real"
    compiler.write_text(COMPILER)
    compiler.chmod(0o755)
    build = tmp_path / "build"
    build.mkdir()
    monkeypatch.setenv("COUNT", str(tmp_path / "count"))
    monkeypatch.setenv("GPUCLUSTER_CONFTEST_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(build)
    return compiler, build, tmp_path / "count"


def probe(compiler: Path, build: Path, pid: int, code: str, *flags: str) -> subprocess.CompletedProcess:
    (build / f"conftest{pid}.c").write_text(code)
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(compiler), *flags, "-c", f"conftest{pid}.c"],
        capture_output=True,
        text=True,
        check=False,
    )


def runs(count: Path) -> int:
    return len(count.read_text().splitlines()) if count.exists() else 0


def test_same_probe_under_another_pid_is_replayed_with_its_object(probe_env):
    compiler, build, count = probe_env
    first = probe(compiler, build, 111, "int probe;", "-I/usr/src/linux-headers")
    assert (first.returncode, runs(count)) == (0, 1)
    assert (build / "conftest111.o").read_text() == "object of int probe;\n"
    second = probe(compiler, build, 222, "int probe;", "-I/usr/src/linux-headers")
    assert runs(count) == 1, "the second build's probe ran the compiler again"
    assert second.returncode == 0
    assert (build / "conftest222.o").read_text() == "object of int probe;\n"
    assert second.stdout == first.stdout


def test_failed_probe_is_replayed_as_a_failure_without_an_object(probe_env):
    compiler, build, count = probe_env
    first = probe(compiler, build, 111, "FAIL")
    second = probe(compiler, build, 222, "FAIL")
    assert (first.returncode, second.returncode, runs(count)) == (1, 1, 1)
    assert "fails" in second.stderr
    assert not (build / "conftest222.o").exists()


def test_another_source_flag_or_directory_is_another_probe(probe_env):
    compiler, build, count = probe_env
    probe(compiler, build, 1, "int a;", "-DX=1")
    probe(compiler, build, 2, "int b;", "-DX=1")
    probe(compiler, build, 3, "int a;", "-DX=2")
    other = build / "other"
    other.mkdir()
    os.chdir(other)
    probe(compiler, other, 4, "int a;", "-DX=1")
    assert runs(count) == 4


def test_generated_headers_are_part_of_the_key(probe_env):
    compiler, build, count = probe_env
    (build / "conftest").mkdir()
    (build / "conftest" / "headers.h").write_text("#define NV_A_H_PRESENT\n")
    probe(compiler, build, 1, "int a;")
    (build / "conftest" / "headers.h").write_text("#undef NV_A_H_PRESENT\n")
    probe(compiler, build, 2, "int a;")
    assert runs(count) == 2


def test_only_plain_probe_compiles_are_cached(load_file):
    cache = load_file(SCRIPT, "conftest_probe_cache")
    assert cache.probe_source(["-O2", "-c", "conftest12.c"]) == "conftest12.c"
    assert cache.probe_source(["-c", "foo.c"]) is None
    assert cache.probe_source(["-E", "-c", "conftest12.c"]) is None
    assert cache.probe_source(["-Wp,-MMD,x.d", "-c", "conftest12.c"]) is None
    assert cache.probe_source(["conftest12.c", "-o", "conftest12"]) is None, "a link is not a probe compile"
    assert cache.output_path(["-c", "conftest12.c"], "conftest12.c") == "conftest12.o"
    assert cache.output_path(["-c", "conftest12.c", "-o", "x/y.o"], "conftest12.c") == "x/y.o"
