"""The NCCL a GPU build compiles against is the one its build key names: the header reader the horovod role runs on
the builder (roles/horovod/files/nccl_header_version.py) and the check in build.yml, rendered with Ansible's templar."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROLE = Path(__file__).resolve().parents[3] / "roles" / "horovod"
SCRIPT = ROLE / "files" / "nccl_header_version.py"
WHEEL_HEADER = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/include/nccl.h"
HEADER = """/*************************************************************************
 * Copyright (c) 2015-2025, NVIDIA CORPORATION. All rights reserved.
 ************************************************************************/
#ifndef NCCL_H_
#define NCCL_H_
#define NCCL_MAJOR 2
#define NCCL_MINOR {minor}
#define NCCL_PATCH {patch}
#define NCCL_SUFFIX ""
#define NCCL_VERSION_CODE {code}
"""


def _module():
    spec = importlib.util.spec_from_file_location("nccl_header_version", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _home(tmp_path: Path, name: str, minor: int, patch: int) -> Path:
    (tmp_path / name / "include").mkdir(parents=True)
    (tmp_path / name / "include" / "nccl.h").write_text(
        HEADER.format(minor=minor, patch=patch, code=20000 + minor * 100 + patch)
    )
    return tmp_path / name


def test_header_version_reads_the_three_defines():
    mod = _module()
    assert mod.header_version(HEADER.format(minor=28, patch=9, code=22809)) == "2.28.9"
    assert mod.header_version("#  define NCCL_MAJOR 2\n#define NCCL_MINOR 22\n#define NCCL_PATCH 3\n") == "2.22.3"
    # NCCL_VERSION_CODE alone, or a half header, is no version
    assert mod.header_version("#define NCCL_VERSION_CODE 22809\n") is None
    assert mod.header_version("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n") is None


def test_a_given_home_is_the_only_place_looked_at(tmp_path):
    mod = _module()
    home = tmp_path / "nccl"
    assert mod.candidates(str(home), "/usr/local/cuda") == [str(home / "include" / "nccl.h")]
    without = mod.candidates("", "/usr/local/cuda-13.0")
    assert without[:3] == ["/usr/local/cuda-13.0/include/nccl.h", "/usr/local/include/nccl.h", "/usr/include/nccl.h"]


def test_the_script_as_the_role_runs_it(tmp_path):
    """`python -c <file's text> <nccl home> <cuda home>`, as the task passes it."""
    wheel = _home(tmp_path, "wheel-layout", 29, 7)
    cuda = _home(tmp_path, "cuda", 28, 9)
    code = SCRIPT.read_text()

    def run(*args):
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True).stdout

    assert run(str(wheel), str(cuda)) == f"2.29.7 {wheel}/include/nccl.h\n"
    # no home: the CUDA home's header first
    assert run("", str(cuda)) == f"2.28.9 {cuda}/include/nccl.h\n"
    # a home without a header: nothing (Horovod's CMake then fails with its own message, which the role diagnoses)
    assert run(str(tmp_path / "empty"), str(cuda)) == ""


def _check(found: str, stack: str) -> tuple:
    tasks = yaml.safe_load((ROLE / "tasks" / "build.yml").read_text())
    task = next(t for t in tasks if t.get("name") == "Check that the build compiles against the stack's NCCL")
    v = {
        "inventory_hostname": "n1",
        "horovod_nccl_version": stack,
        "__horovod_nccl_header": {"stdout": f"{found} {WHEEL_HEADER}" if found else ""},
    }
    templar = Templar(loader=DataLoader(), variables=v)
    v["__horovod_nccl_found"] = templar.template(trust_as_template(task["vars"]["__horovod_nccl_found"]))
    templar = Templar(loader=DataLoader(), variables=v)
    spec = task["ansible.builtin.assert"]
    return (
        templar.evaluate_conditional(trust_as_template(spec["that"])),
        templar.template(trust_as_template(spec["fail_msg"])),
    )


@pytest.mark.parametrize(
    ("found", "stack", "ok"),
    [
        ("2.28.9", "2.28.9", True),
        ("2.28.9", "2.28", True),  # a stack that names the minor release only
        ("2.28.9", "", True),  # a CPU stack names none
        ("", "2.28.9", True),  # no header: the build itself fails and the role diagnoses it
        ("2.29.7", "2.28.9", False),
        ("2.28.3", "2.28.9", False),
        ("2.2.8", "2.28", False),
    ],
)
def test_the_build_check_compares_the_release_the_stack_names(found, stack, ok):
    assert _check(found, stack)[0] is ok


def test_the_build_check_message_names_both_and_the_fix():
    msg = _check("2.29.7", "2.28.9")[1]
    assert "the build key of n1 names NCCL 2.28.9 (the resolved stack)" in msg
    assert f"compile against NCCL 2.29.7 ({WHEEL_HEADER})" in msg
    assert "gpucluster_pins: {nccl: '2.29.7'}" in msg
    assert "Horovod was not built." in msg


def _from_env(framework: str, fw: dict) -> dict:
    tasks = yaml.safe_load((ROLE.parent / "preflight" / "tasks" / "resolve.yml").read_text())
    task = next(t for t in tasks if t.get("name") == "Resolve the stack from the facts of every host")
    v = {
        "preflight_framework": framework,
        "__preflight_python_env": {"python_env": {"python_series": "3.12", "frameworks": {framework: fw}}},
    }
    for name in ("__preflight_env", "__preflight_env_fw", "__preflight_from_env"):
        v[name] = Templar(loader=DataLoader(), variables=v).template(trust_as_template(task["vars"][name]))
    return v["__preflight_from_env"]


def test_the_preflight_resolves_the_stack_around_the_nccl_an_existing_torch_loads():
    torch = {"version": "2.11.0+cu130", "cuda": "13.0", "nccl": "2.28.9"}
    assert _from_env("pytorch", torch) == {
        "framework_version": "2.11.0",
        "python": "3.12",
        "cuda": "13.0",
        "nccl": "2.28.9",
    }
    # a CPU torch (no CUDA, no NCCL) pins neither
    assert _from_env("pytorch", {"version": "2.13.0+cpu", "cuda": None, "nccl": None}) == {
        "framework_version": "2.13.0",
        "python": "3.12",
    }
    # TensorFlow brings its own CUDA libraries: only its version and the Python
    assert _from_env("tensorflow", {"version": "2.15.0", "cuda": "12.2"}) == {
        "framework_version": "2.15.0",
        "python": "3.12",
    }
