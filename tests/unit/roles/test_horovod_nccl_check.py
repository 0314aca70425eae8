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


def test_the_search_follows_horovods_find_nccl():
    mod = _module()
    path = "/usr/local/cuda/bin:/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    found = mod.candidates("", "/opt/nccl", "/usr/local/cuda", path, arch="x86_64-linux-gnu")
    assert found[:6] == [
        "/opt/nccl/include/nccl.h",
        "/usr/local/cuda/include/nccl.h",
        "/usr/local/cuda/include/x86_64-linux-gnu/nccl.h",  # the CUDA home again, as a PATH prefix
        "/opt/venv/include/x86_64-linux-gnu/nccl.h",
        "/opt/venv/include/nccl.h",  # a conda environment's NCCL
        "/usr/local/include/x86_64-linux-gnu/nccl.h",
    ]
    assert found[-2:] == ["/include/x86_64-linux-gnu/nccl.h", "/include/nccl.h"]
    assert found.index("/usr/include/x86_64-linux-gnu/nccl.h") + 1 == found.index("/usr/include/nccl.h")
    # HOROVOD_NCCL_INCLUDE comes first; no entry twice
    first = mod.candidates("/opt/inc", "", "/usr/local/cuda", "/usr/bin:/usr/bin")
    assert first[0] == "/opt/inc/nccl.h" and len(first) == len(set(first))


def test_the_script_as_the_role_runs_it(tmp_path):
    """`python -c <file's text> <include> <nccl home> <cuda home> <PATH>`, as the task passes it."""
    wheel = _home(tmp_path, "wheel-layout", 29, 7)
    cuda = _home(tmp_path, "cuda", 28, 9)
    conda = _home(tmp_path, "conda", 27, 5)
    code = SCRIPT.read_text()

    def run(*args):
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True).stdout

    assert run("", str(wheel), str(cuda), "/usr/bin") == f"2.29.7 {wheel}/include/nccl.h\n"
    # no home: the CUDA home's header before the PATH prefixes'
    assert run("", "", str(cuda), f"{conda}/bin:/usr/bin") == f"2.28.9 {cuda}/include/nccl.h\n"
    # a home without a header: CMake goes on searching, and so does the script
    assert (
        run("", str(tmp_path / "empty"), str(tmp_path / "none"), f"{conda}/bin") == f"2.27.5 {conda}/include/nccl.h\n"
    )
    assert run("", "", str(tmp_path / "none"), str(tmp_path / "nowhere")) == ""


def _check(found: str, stack: str, from_wheel: bool = False) -> dict:
    """The outcome of build.yml's check and notice for a header of version ``found`` (from the framework's wheel or
    not) and the stack's NCCL ``stack``: "ok", "said" (the notice) or the check's failure message."""
    tasks = yaml.safe_load((ROLE / "tasks" / "build.yml").read_text())
    role_vars = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())
    check = next(t for t in tasks if t.get("name") == "Check that the build compiles against the stack's NCCL")
    notice = next(t for t in tasks if t.get("name", "").startswith("Say when the framework's NCCL is not the stack's"))
    v = {
        "inventory_hostname": "n1",
        "horovod_nccl_version": stack,
        "horovod_venv": "/opt/torch/.venv",
        "__horovod_effective_build_env": {"HOROVOD_GPU_OPERATIONS": "NCCL"},
        "__horovod_wheel_nccl": {"stdout": "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl\n"}
        if from_wheel
        else {"skipped": True},
        "__horovod_nccl_header": {"stdout": f"{found} {WHEEL_HEADER}" if found else ""},
        "horovod_nccl_home": "",
        "_horovod_build_key_dir": "/var/lib/gpucluster/horovod-build/0123",
    }
    v["_horovod_wheel_nccl_dir"] = Templar(loader=DataLoader(), variables=v).template(
        trust_as_template(role_vars["_horovod_wheel_nccl_dir"])
    )
    decide = next(t for t in tasks if t.get("name") == "Decide which NCCL the build compiles against")
    v["__horovod_nccl"] = Templar(loader=DataLoader(), variables=v).template(
        trust_as_template(decide["ansible.builtin.set_fact"]["__horovod_nccl"])
    )
    for name in ("_horovod_nccl_from_wheel", "_horovod_nccl_found", "_horovod_nccl_same"):
        v[name] = Templar(loader=DataLoader(), variables=v).template(trust_as_template(role_vars[name]))
    templar = Templar(loader=DataLoader(), variables=v)
    spec = check["ansible.builtin.assert"]
    if not templar.evaluate_conditional(trust_as_template(spec["that"])):
        return templar.template(trust_as_template(spec["fail_msg"]))
    said = all(templar.evaluate_conditional(trust_as_template(c)) for c in notice["when"])
    return "said" if said else "ok"


@pytest.mark.parametrize(
    ("found", "stack", "from_wheel", "outcome"),
    [
        ("2.28.9", "2.28.9", False, "ok"),
        ("2.28.9", "2.28", False, "ok"),  # a stack that names the minor release only
        ("2.28.9", "", False, "ok"),  # a CPU stack names none
        ("", "2.28.9", False, "ok"),  # no header: the build itself fails and the role diagnoses it
        ("2.28.9", "2.28.9", True, "ok"),
        ("2.29.7", "2.28.9", False, "refused"),
        ("2.28.3", "2.28.9", False, "refused"),
        ("2.2.8", "2.28", False, "refused"),
        # the framework wheel's NCCL, which training loads anyway: built against, and said
        ("2.27.3", "2.23.4", True, "said"),
    ],
)
def test_the_build_check_compares_the_release_the_stack_names(found, stack, from_wheel, outcome):
    result = _check(found, stack, from_wheel)
    assert (result if result in ("ok", "said") else "refused") == outcome


def test_the_build_check_message_names_both_and_the_fix():
    msg = _check("2.29.7", "2.28.9")
    assert "the build key of n1 names NCCL 2.28.9 (the resolved stack)" in msg
    assert f"compile against NCCL 2.29.7 ({WHEEL_HEADER}; the system's NCCL (Horovod's CMake search))" in msg
    assert "point horovod_nccl_home at an NCCL 2.28.9" in msg
    assert "gpucluster_pins: {nccl: '2.29.7'}; horovod_nccl_version when the role runs alone" in msg
    assert "Horovod was not built." in msg


def _from_env(framework: str, fw: dict, distributions: dict | None = None) -> dict:
    tasks = yaml.safe_load((ROLE.parent / "preflight" / "tasks" / "resolve.yml").read_text())
    task = next(t for t in tasks if t.get("name") == "Resolve the stack from the facts of every host")
    env = {"python_series": "3.12", "frameworks": {framework: fw}, "distributions": distributions or {}}
    v = {"preflight_framework": framework, "__preflight_python_env": {"python_env": env}}
    for name in ("__preflight_env", "__preflight_env_fw", "__preflight_env_nccl", "__preflight_from_env"):
        v[name] = Templar(loader=DataLoader(), variables=v).template(trust_as_template(task["vars"][name]))
    return v["__preflight_from_env"]


def test_the_preflight_resolves_the_stack_around_the_nccl_an_existing_torch_runs_with():
    torch = {"version": "2.11.0+cu130", "cuda": "13.0", "nccl": "2.28.9"}
    expected = {"framework_version": "2.11.0", "python": "3.12", "cuda": "13.0", "nccl": "2.28.9"}
    assert _from_env("pytorch", torch) == expected
    # NVIDIA's NCCL wheel, upgraded after torch: the library loaded at run time, not the one torch was compiled with
    assert _from_env("pytorch", torch, {"torch": "2.11.0+cu130", "nvidia-nccl-cu13": "2.29.7"}) == dict(
        expected, nccl="2.29.7"
    )
    assert _from_env("pytorch", torch, {"nvidia-nccl-cu13": "2.28.9.post1"})["nccl"] == "2.28.9"
    # a CPU torch (no CUDA, no NCCL) pins neither
    assert _from_env("pytorch", {"version": "2.13.0+cpu", "cuda": None, "nccl": None}) == {
        "framework_version": "2.13.0",
        "python": "3.12",
    }
    # TensorFlow brings its own CUDA libraries: only its version and the Python
    tf = {"version": "2.15.0", "cuda": "12.2"}
    assert _from_env("tensorflow", tf, {"nvidia-nccl-cu12": "2.19.3"}) == {
        "framework_version": "2.15.0",
        "python": "3.12",
    }
