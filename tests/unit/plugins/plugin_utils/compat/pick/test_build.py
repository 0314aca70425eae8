"""Horovod build picker: build changes (patches) and HOROVOD_* variables.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    resolve,
)


def test_torch_2_0_needs_no_patch_and_2_1_does():
    assert resolve({"os": "debian12", "framework_version": "2.0", "python": "3.11"})["horovod_patches"] == []
    stack = resolve({"os": "debian12", "framework_version": "2.1", "python": "3.11"})
    assert stack["horovod_patches"] == ["cxx17"]
    assert "C++17" in stack["reasons"]["horovod_patches"]


# --------------------------------------------------------------------------- sandbox cases the project depends on
SANDBOX_ENV = {
    "HOROVOD_WITH_PYTORCH": "1",
    "HOROVOD_WITHOUT_TENSORFLOW": "1",
    "HOROVOD_WITHOUT_MXNET": "1",
    "HOROVOD_WITH_GLOO": "1",
    "HOROVOD_WITH_MPI": "1",
}


def test_sandbox_debian12_cpu_unpinned():
    stack = resolve({"os": "debian12", "gpus": [], "framework": "pytorch"})
    assert stack["framework_version"] == "2.13.0"
    assert stack["framework_cuda_variant"] == "cpu"
    assert stack["horovod"] == "0.28.1"
    assert stack["horovod_patches"] == ["cxx17"]
    for key in ("driver_min", "driver_branch", "cuda", "cudnn", "nccl", "kernel_module"):
        assert stack[key] is None, key
    assert stack["driver_upgrade_required"] is False


def test_sandbox_debian12_pinned_2_13():
    stack = resolve(
        {"os": "debian12", "gpus": [], "framework": "pytorch", "framework_version": "2.13", "python": "3.11"}
    )
    assert stack["framework_version"] == "2.13.0"
    assert stack["framework_cuda_variant"] == "cpu"
    assert stack["python"] == "3.11"
    assert stack["openmpi"] == "4.1.4"
    assert stack["horovod_build_env"] == SANDBOX_ENV
    assert not any(k.startswith("HOROVOD_GPU") for k in stack["horovod_build_env"])


def test_sandbox_debian13_cpu():
    stack = resolve({"os": "debian13", "gpus": [], "framework": "pytorch", "framework_version": "2.13"})
    assert stack["python"] == "3.13"
    assert stack["openmpi"].startswith("5.0.")
    assert any("Open MPI 5" in w for w in stack["warnings"])
    assert stack["horovod_build_env"] == SANDBOX_ENV
