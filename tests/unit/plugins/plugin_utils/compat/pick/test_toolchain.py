"""Host toolchain picker: the GCC that builds Horovod, for CPU stacks and each CUDA release's host-compiler range.

Measured on a GPU host (Ubuntu 24.04, GCC 13.3): Horovod 0.28.1 needs the gcc13-headers change (upstream
ff4ca09d, horovod#3957) and then builds against CUDA 13.0. GCC ranges: NVIDIA's crt/host_config.h per release.
"""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import CompatError, load_tables, resolve
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat.pick import toolchain
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat.request import Candidate, Context

T = load_tables()


def _pick(os_name, cuda, tables=T):
    c = Candidate()
    return toolchain.pick(Context({"os": os_name}, tables), c, cuda), c


def test_debian12_cpu_uses_gcc_12_and_no_patch():
    tools, _c = _pick("debian12", None)
    assert (tools["host_gcc"], tools["packages"], tools["env"]) == ("12", [], {})
    stack = resolve({"os": "debian12", "gpus": [], "framework": "pytorch", "framework_version": "2.13"})
    assert stack["host_gcc"] == "12"
    assert stack["host_compiler_packages"] == []
    assert "gcc13-headers" not in stack["horovod_patches"]
    assert "default GCC 12" in stack["reasons"]["host_gcc"]


def test_debian13_cpu_gcc_14_gets_the_header_patch():
    stack = resolve({"os": "debian13", "gpus": [], "framework": "pytorch", "framework_version": "2.13"})
    assert stack["host_gcc"] == "14"
    assert stack["host_compiler_packages"] == []
    assert stack["horovod_patches"] == ["cxx17", "gcc13-headers", "gcc14-flatbuffers-span"]
    assert "ff4ca09d" in stack["reasons"]["horovod_patches"]
    assert not any(k in stack["horovod_build_env"] for k in ("CC", "CXX", "CUDAHOSTCXX", "NVCC_CCBIN"))


def test_ubuntu2404_cuda_13_0_keeps_gcc_13_and_patches():
    tools, c = _pick("ubuntu24.04", "13.0")
    assert (tools["host_gcc"], tools["packages"]) == ("13", [])
    assert not c.conflicts
    stack = resolve({"os": "ubuntu24.04", "gpus": ["H100"], "framework": "pytorch", "cuda": "13.0"})
    assert stack["cuda"] == "13.0"
    assert stack["host_gcc"] == "13"
    assert "gcc13-headers" in stack["horovod_patches"]
    assert "cxx17" in stack["horovod_patches"]
    # GCC 13 accepts the bundled flatbuffers; only GCC >= 14 needs its change.
    assert "gcc14-flatbuffers-span" not in stack["horovod_patches"]


def test_ubuntu2404_cuda_11_8_picks_gcc_11():
    tools, c = _pick("ubuntu24.04", "11.8")
    # Ubuntu 24.04 has no CUDA 11.8 packages: the CUDA picker refuses it, the compiler question is moot.
    assert tools["host_gcc"] == "13"
    with pytest.raises(CompatError, match=r"ubuntu24\.04 has CUDA 12\.5-current"):
        resolve({"os": "ubuntu24.04", "gpus": ["A100"], "framework": "none", "cuda": "11.8"})
    # With the OS row claiming CUDA 11.8, GCC 13 is too new for nvcc 11.8 and noble's gcc-11 is picked.
    tables = dict(T, os=dict(T["os"], releases=[dict(r, cuda_repo=["11.0", None]) for r in T["os"]["releases"]]))
    tools, c = _pick("ubuntu24.04", "11.8", tables)
    assert not c.conflicts
    assert tools["host_gcc"] == "11"
    assert tools["packages"] == ["gcc-11", "g++-11"]
    assert tools["env"] == {
        "CC": "/usr/bin/gcc-11",
        "CXX": "/usr/bin/g++-11",
        "CUDAHOSTCXX": "/usr/bin/g++-11",
        "NVCC_CCBIN": "/usr/bin/g++-11",
    }
    assert "GCC any-11" in c.reasons["host_gcc"]


def test_debian13_distro_cuda_12_4_picks_gcc_13():
    tools, c = _pick("debian13", "12.4")
    assert not c.conflicts
    assert (tools["host_gcc"], tools["packages"]) == ("13", ["gcc-13", "g++-13"])
    stack = resolve({"os": "debian13", "gpus": ["A100"], "framework": "none", "cuda": "12.4"})
    assert stack["host_gcc"] == "13"
    assert stack["host_compiler_packages"] == ["gcc-13", "g++-13"]


def test_debian12_distro_cuda_11_8_picks_gcc_11_and_exports_it():
    stack = resolve({"os": "debian12", "gpus": ["A100"], "framework": "pytorch", "framework_version": "2.0"})
    assert stack["cuda"] == "11.8"
    assert stack["host_gcc"] == "11"
    assert stack["host_compiler_packages"] == ["gcc-11", "g++-11"]
    env = stack["horovod_build_env"]
    assert env["CXX"] == env["CUDAHOSTCXX"] == env["NVCC_CCBIN"] == "/usr/bin/g++-11"
    assert env["CC"] == "/usr/bin/gcc-11"
    # GCC 11 builds Horovod: no header change.
    assert "gcc13-headers" not in stack["horovod_patches"]


def test_rhel_uses_gcc_toolset_paths():
    tables = dict(T, os=dict(T["os"], releases=[dict(r, gcc_default=14) for r in T["os"]["releases"]]))
    tools, _c = _pick("rhel9", "12.2", tables)
    assert tools["packages"] == ["gcc-toolset-12-gcc", "gcc-toolset-12-gcc-c++"]
    assert tools["env"]["CXX"] == "/opt/rh/gcc-toolset-12/root/usr/bin/g++"


def test_refusal_names_os_cuda_default_range_and_what_works():
    # Debian 12 installs GCC 11 and 12 only; nvcc 11.4 accepts GCC <= 10.
    tables = dict(T, os=dict(T["os"], releases=[dict(r, distro_cuda="11.4") for r in T["os"]["releases"]]))
    tools, c = _pick("debian12", "11.4", tables)
    assert tools["packages"] == []
    (conflict,) = c.conflicts
    assert conflict["constraint"] == "host_compiler"
    message = conflict["message"]
    for fragment in ("CUDA 11.4", "GCC any-10", "debian12's default GCC is 12", "GCC 11, 12", "none fits", "use CUDA"):
        assert fragment in message, (fragment, message)
    assert "ubuntu20.04" in message  # an OS whose GCC fits CUDA 11.4


def test_unknown_cuda_range_warns_and_keeps_default():
    tables = dict(T, host_compiler=dict(T["host_compiler"], cuda=[]))
    tools, c = _pick("debian12", "12.6", tables)
    assert tools["host_gcc"] == "12"
    assert not c.conflicts
    assert any("no host-compiler range is known for CUDA 12.6" in w for w in c.warnings)
