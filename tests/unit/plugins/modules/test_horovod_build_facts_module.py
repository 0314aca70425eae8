"""horovod_build_facts: the --check-build cache is reused only while nothing it depends on changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpucluster.horovod.plugins.module_utils._horovod_build import (
    check_build_fingerprint,
    read_check_build_cache,
    write_check_build_cache,
)
from ansible_collections.gpucluster.horovod.plugins.modules import horovod_build_facts

CHECK_BUILD = Path(__file__).resolve().parents[2] / "fixtures" / "horovod_check_build"


def _venv(tmp_path: Path) -> Path:
    """A venv layout with Horovod (RECORD + one extension), torch and numpy installed."""
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    (site / "horovod" / "torch").mkdir(parents=True)
    (site / "horovod" / "torch" / "mpi_lib_v2.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF-1")
    (site / "horovod-0.28.1.dist-info").mkdir()
    (site / "horovod-0.28.1.dist-info" / "RECORD").write_text(
        "horovod/__init__.py,sha256=abc,10\nhorovod/torch/mpi_lib_v2.cpython-311-x86_64-linux-gnu.so,sha256=def,6\n"
    )
    (site / "torch-2.13.0+cpu.dist-info").mkdir()
    (site / "torch-2.13.0+cpu.dist-info" / "RECORD").write_text("torch/__init__.py,sha256=t1,10\n")
    (site / "numpy-2.3.0.dist-info").mkdir()
    (site / "numpy-2.3.0.dist-info" / "RECORD").write_text("numpy/__init__.py,sha256=n1,10\n")
    (venv / "bin").mkdir()
    (venv / "bin" / "horovodrun").write_text("#!/bin/sh\n")
    (venv / "bin" / "horovodrun").chmod(0o755)
    return venv


def test_fingerprint_none_without_horovod(tmp_path):
    venv = tmp_path / "empty"
    (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    assert check_build_fingerprint(str(venv), "key") is None


def test_fingerprint_changes_with_what_check_build_depends_on(tmp_path):
    venv = _venv(tmp_path)
    site = venv / "lib" / "python3.11" / "site-packages"
    base = check_build_fingerprint(str(venv), "key1")
    assert base == check_build_fingerprint(str(venv), "key1")
    # another build key (MPI / CUDA / NCCL changed outside the venv)
    assert check_build_fingerprint(str(venv), "key2") != base
    # numpy is not something check-build depends on
    (site / "numpy-2.3.0.dist-info" / "RECORD").write_text("numpy/__init__.py,sha256=n2,10\n")
    assert check_build_fingerprint(str(venv), "key1") == base
    # another torch
    (site / "torch-2.13.0+cpu.dist-info" / "RECORD").write_text("torch/__init__.py,sha256=t2,10\n")
    torch_changed = check_build_fingerprint(str(venv), "key1")
    assert torch_changed != base
    # the extension rebuilt and copied over the installed one (RECORD unchanged)
    so = site / "horovod" / "torch" / "mpi_lib_v2.cpython-311-x86_64-linux-gnu.so"
    so.write_bytes(b"\x7fELF-22")
    assert check_build_fingerprint(str(venv), "key1") != torch_changed
    # an NVIDIA library wheel added (NCCL from the index)
    before = check_build_fingerprint(str(venv), "key1")
    (site / "nvidia_nccl_cu13-2.28.9.dist-info").mkdir()
    (site / "nvidia_nccl_cu13-2.28.9.dist-info" / "RECORD").write_text("nvidia/nccl/lib/libnccl.so.2,sha256=x,1\n")
    assert check_build_fingerprint(str(venv), "key1") != before
    # the extension removed
    before = check_build_fingerprint(str(venv), "key1")
    os.remove(so)
    assert check_build_fingerprint(str(venv), "key1") != before


def test_cache_file_round_trip_and_mismatch(tmp_path):
    path = tmp_path / "c" / "check-build.json"
    assert read_check_build_cache(str(path), "f1") is None
    write_check_build_cache(str(path), "f1", "Available Frameworks:\n    [X] PyTorch\n")
    assert read_check_build_cache(str(path), "f1").startswith("Available")
    assert read_check_build_cache(str(path), "f2") is None
    assert read_check_build_cache(str(path), None) is None
    path.write_text("not json")
    assert read_check_build_cache(str(path), "f1") is None


def _run(monkeypatch, capsys, args, calls):
    output = (CHECK_BUILD / "v0.28.1-pytorch-cpu-gloo-mpi.txt").read_text()

    def run_command(self, argv, **kwargs):
        calls.append(argv)
        return 0, output, ""

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    with patch_module_args(args), pytest.raises(SystemExit):
        horovod_build_facts.main()
    return json.loads(capsys.readouterr().out)


def test_module_runs_once_then_reuses_until_the_install_changes(monkeypatch, capsys, tmp_path):
    venv = _venv(tmp_path)
    cache = venv / ".gpucluster" / "check-build.json"
    calls: list = []
    args = {"venv": str(venv), "cache_file": str(cache), "cache_key": "k1", "expect_build_env": {}}
    first = _run(monkeypatch, capsys, args, calls)
    assert first["cached"] is False and len(calls) == 1 and cache.exists()
    assert first["ansible_facts"]["horovod_build"]["frameworks"]["pytorch"] is True
    second = _run(monkeypatch, capsys, args, calls)
    assert second["cached"] is True and len(calls) == 1
    assert second["ansible_facts"] == first["ansible_facts"]
    # a new Horovod wheel installed: its RECORD differs -> runs again
    record = venv / "lib" / "python3.11" / "site-packages" / "horovod-0.28.1.dist-info" / "RECORD"
    record.write_text(record.read_text() + "horovod/extra.py,sha256=zz,1\n")
    third = _run(monkeypatch, capsys, args, calls)
    assert third["cached"] is False and len(calls) == 2
    # another build key -> runs again
    fourth = _run(monkeypatch, capsys, dict(args, cache_key="k2"), calls)
    assert fourth["cached"] is False and len(calls) == 3


def test_module_check_mode_never_writes_the_cache(monkeypatch, capsys, tmp_path):
    venv = _venv(tmp_path)
    cache = venv / ".gpucluster" / "check-build.json"
    calls: list = []
    args = {"venv": str(venv), "cache_file": str(cache), "_ansible_check_mode": True}
    out = _run(monkeypatch, capsys, args, calls)
    assert out["cached"] is False and not cache.exists() and len(calls) == 1


def test_module_without_cache_runs_every_time(monkeypatch, capsys, tmp_path):
    venv = _venv(tmp_path)
    calls: list = []
    for _round in range(2):
        out = _run(monkeypatch, capsys, {"venv": str(venv)}, calls)
        assert out["cached"] is False
    assert len(calls) == 2
