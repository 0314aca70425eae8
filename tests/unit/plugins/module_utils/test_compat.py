"""Compatibility engine: resolve(), helpers and refusals.

Expected values are transcribed here independently from the upstream sources (TensorFlow's tested build
configurations, PyTorch RELEASE.md, NVIDIA's CUDA driver table, CMake's CUDA architecture list), not read back
from data/compat, so a wrong table row fails a test.
"""

from __future__ import annotations

import time

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import compat as _compat
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    CompatError,
    gpu_arch,
    min_driver_for_cuda,
    openmpi_version_ok,
    resolve,
    resolve_or_conflicts,
    vcmp,
)

# --------------------------------------------------------------------------- TensorFlow tested build configurations
# (tf, python max, cuda, cudnn) from https://www.tensorflow.org/install/source#gpu
TF_TESTED = [
    ("2.21", "3.13", "12.5", "9.3"),
    ("2.20", "3.13", "12.5", "9.3"),
    ("2.19", "3.12", "12.5", "9.3"),
    ("2.18", "3.12", "12.5", "9.3"),
    ("2.17", "3.12", "12.3", "8.9"),
    ("2.16", "3.12", "12.3", "8.9"),
    ("2.15", "3.11", "12.2", "8.9"),
    ("2.14", "3.11", "11.8", "8.7"),
    ("2.13", "3.11", "11.8", "8.6"),
    ("2.12", "3.11", "11.8", "8.6"),
    ("2.11", "3.10", "11.2", "8.1"),
    ("2.10", "3.10", "11.2", "8.1"),
    ("2.9", "3.10", "11.2", "8.1"),
    ("2.8", "3.10", "11.2", "8.1"),
    ("2.7", "3.9", "11.2", "8.1"),
    ("2.6", "3.9", "11.2", "8.1"),
    ("2.5", "3.9", "11.2", "8.1"),
    ("2.4", "3.8", "11.0", "8.0"),
    ("2.3", "3.8", "10.1", "7.6"),
    ("2.2", "3.8", "10.1", "7.6"),
    ("2.1", "3.7", "10.1", "7.6"),
    ("2.0", "3.7", "10.0", "7.4"),
    ("1.15", "3.7", "10.0", "7.4"),
    ("1.14", "3.7", "10.0", "7.4"),
    ("1.13", "3.7", "10.0", "7.4"),
    ("1.12", "3.6", "9.0", "7"),
]


def _os_for_cuda(cuda: str) -> str:
    """An OS whose NVIDIA repository carries this CUDA (Ubuntu 20.04: 11.0-12.9; RHEL 8: 10.1+)."""
    if vcmp(cuda, "11.0") >= 0 and vcmp(cuda, "12.9") <= 0:
        return "ubuntu20.04"
    return "rhel8"


@pytest.mark.parametrize(("tf", "python", "cuda", "cudnn"), TF_TESTED)
def test_tensorflow_tested_configuration(tf, python, cuda, cudnn):
    request = {
        "os": _os_for_cuda(cuda),
        "gpus": ["V100"],
        "framework": "tensorflow",
        "framework_version": tf,
        "python": python,
    }
    if vcmp(tf, "2.16") >= 0:
        with pytest.raises(CompatError, match="Keras 3") as err:
            resolve(request)
        assert "TensorFlow <= 2.15" in err.value.message
    elif vcmp(tf, "1.15") < 0:
        with pytest.raises(CompatError, match=r"needs TensorFlow >= 1\.15"):
            resolve(request)
    elif vcmp(cuda, "10.1") < 0:
        with pytest.raises(CompatError, match=r"rhel8 has CUDA 10\.1-current"):
            resolve(request)
    else:
        stack = resolve(request)
        assert (stack["cuda"], stack["cudnn"]) == (cuda, cudnn)
        assert stack["framework_version"].startswith(tf + ".")
        assert stack["framework_cuda_variant"] == "cu" + cuda.replace(".", "")
        assert stack["horovod_patches"] == []


def test_tf_2_12_is_cuda_11_8_cudnn_8_6():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework": "tensorflow", "framework_version": "2.12"})
    assert stack["cuda"] == "11.8"
    assert stack["cudnn"] == "8.6"
    assert stack["driver_min"] == "520.61.05"
    assert stack["horovod"] == "0.28.1"


def test_tf_unpinned_is_newest_known_to_work_not_newest_number():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework": "tensorflow"})
    assert stack["framework_version"] == "2.15.0"
    assert stack["cuda"] == "12.2"


# --------------------------------------------------------------------------- PyTorch release matrix
# (torch series, latest, variant, cuda, bundled cuDNN or None) from pytorch/pytorch RELEASE.md / previous-versions
TORCH_MATRIX = [
    ("2.14", "2.14.0", "cu126", "12.6", "9.10.2.21"),
    ("2.14", "2.14.0", "cu130", "13.0", "9.24.0.43"),
    ("2.14", "2.14.0", "cu132", "13.2", "9.24.0.43"),
    ("2.13", "2.13.0", "cu126", "12.6", "9.10.2.21"),
    ("2.13", "2.13.0", "cu130", "13.0", "9.20.0.48"),
    ("2.13", "2.13.0", "cu132", "13.2", "9.20.0.48"),
    ("2.12", "2.12.0", "cu126", "12.6", "9.10.2.21"),
    ("2.12", "2.12.0", "cu130", "13.0", "9.20.0.48"),
    ("2.12", "2.12.0", "cu132", "13.2", "9.20.0.48"),
    ("2.11", "2.11.0", "cu126", "12.6", "9.10.2.21"),
    ("2.11", "2.11.0", "cu128", "12.8", "9.17.1.4"),
    ("2.11", "2.11.0", "cu130", "13.0", "9.17.1.4"),
    ("2.10", "2.10.0", "cu126", "12.6", "9.10.2.21"),
    ("2.10", "2.10.0", "cu128", "12.8", "9.10.2.21"),
    ("2.10", "2.10.0", "cu130", "13.0", "9.15.1.9"),
    ("2.9", "2.9.1", "cu126", "12.6", "9.10.2.21"),
    ("2.9", "2.9.1", "cu128", "12.8", "9.10.2.21"),
    ("2.9", "2.9.1", "cu130", "13.0", "9.13.0.50"),
    ("2.8", "2.8.0", "cu126", "12.6", "9.10.2.21"),
    ("2.8", "2.8.0", "cu128", "12.8", "9.10.2.21"),
    ("2.8", "2.8.0", "cu129", "12.9", "9.10.2.21"),
    ("2.7", "2.7.1", "cu118", "11.8", "9.1.0.70"),
    ("2.7", "2.7.1", "cu126", "12.6", "9.5.1.17"),
    ("2.7", "2.7.1", "cu128", "12.8", "9.7.1.26"),
    ("2.6", "2.6.0", "cu118", "11.8", None),
    ("2.6", "2.6.0", "cu124", "12.4", "9.1.0.70"),
    ("2.6", "2.6.0", "cu126", "12.6", "9.5.1.17"),
    ("2.5", "2.5.1", "cu118", "11.8", None),
    ("2.5", "2.5.1", "cu121", "12.1", None),
    ("2.5", "2.5.1", "cu124", "12.4", "9.1.0.70"),
    ("2.4", "2.4.1", "cu118", "11.8", None),
    ("2.4", "2.4.1", "cu121", "12.1", "9.1.0.70"),
    ("2.4", "2.4.1", "cu124", "12.4", "9.1.0.70"),
    ("2.3", "2.3.1", "cu118", "11.8", "8.7.0.84"),
    ("2.3", "2.3.1", "cu121", "12.1", "8.9.2.26"),
    ("2.2", "2.2.2", "cu118", "11.8", "8.7.0.84"),
    ("2.2", "2.2.2", "cu121", "12.1", "8.9.2.26"),
    ("2.1", "2.1.2", "cu118", "11.8", "8.7.0.84"),
    ("2.1", "2.1.2", "cu121", "12.1", "8.9.2.26"),
    ("2.0", "2.0.1", "cu117", "11.7", "8.5.0.96"),
    ("2.0", "2.0.1", "cu118", "11.8", "8.7.0.84"),
    ("1.13", "1.13.1", "cu116", "11.6", "8.3.2.44"),
    ("1.13", "1.13.1", "cu117", "11.7", "8.5.0.96"),
    ("1.12", "1.12.1", "cu102", "10.2", None),
    ("1.12", "1.12.1", "cu113", "11.3", "8.3.2.44"),
    ("1.12", "1.12.1", "cu116", "11.6", "8.3.2.44"),
    ("1.11", "1.11.0", "cu102", "10.2", None),
    ("1.11", "1.11.0", "cu113", "11.3", None),
    ("1.10", "1.10.2", "cu102", "10.2", None),
    ("1.10", "1.10.2", "cu111", "11.1", None),
    ("1.10", "1.10.2", "cu113", "11.3", None),
    ("1.9", "1.9.1", "cu102", "10.2", None),
    ("1.9", "1.9.1", "cu111", "11.1", None),
]
# Python ranges per series (RELEASE.md): (min, max)
TORCH_PYTHON = {
    "2.14": ("3.10", "3.15"),
    "2.13": ("3.10", "3.15"),
    "2.12": ("3.10", "3.14"),
    "2.11": ("3.10", "3.14"),
    "2.10": ("3.10", "3.14"),
    "2.9": ("3.10", "3.14"),
    "2.8": ("3.9", "3.13"),
    "2.7": ("3.9", "3.13"),
    "2.6": ("3.9", "3.13"),
    "2.5": ("3.9", "3.12"),
    "2.4": ("3.8", "3.12"),
    "2.3": ("3.8", "3.11"),
    "2.2": ("3.8", "3.11"),
    "2.1": ("3.8", "3.11"),
    "2.0": ("3.8", "3.11"),
    "1.13": ("3.7", "3.10"),
    "1.12": ("3.7", "3.10"),
    "1.11": ("3.7", "3.10"),
    "1.10": ("3.6", "3.9"),
    "1.9": ("3.6", "3.9"),
}


@pytest.mark.parametrize(("series", "latest", "variant", "cuda", "cudnn"), TORCH_MATRIX)
def test_pytorch_matrix_row(series, latest, variant, cuda, cudnn):
    os_name = "ubuntu24.04" if vcmp(cuda, "12.5") >= 0 else _os_for_cuda(cuda)
    python = (
        TORCH_PYTHON[series][1]
        if os_name == "ubuntu24.04" and vcmp(TORCH_PYTHON[series][1], "3.12") < 0
        else max(TORCH_PYTHON[series][0], "3.8", key=lambda v: tuple(int(x) for x in v.split(".")))
    )
    gpu = "V100" if vcmp(cuda, "11.0") < 0 else "A100"
    stack = resolve(
        {
            "os": os_name,
            "gpus": [gpu],
            "framework": "pytorch",
            "framework_version": series,
            "cuda": cuda,
            "python": python,
        }
    )
    assert stack["framework_version"] == latest
    assert stack["framework_cuda_variant"] == variant
    assert stack["cuda"] == cuda
    if cudnn:
        assert stack["cudnn"] == cudnn
    # torch >= 2.1 needs C++17 (RELEASE.md); Horovod 0.28.1 builds C++14 -> the cxx17 build change.
    # Ubuntu 24.04's GCC 13 also needs the gcc13-headers change (horovod#3957); the others' GCC is older.
    gcc13 = ["gcc13-headers"] if os_name == "ubuntu24.04" else []
    assert stack["horovod_patches"] == (["cxx17"] if vcmp(series, "2.1") >= 0 else []) + gcc13
    assert stack["horovod"] == "0.28.1"


@pytest.mark.parametrize("series", sorted(TORCH_PYTHON))
def test_pytorch_python_range_enforced(series):
    lo, hi = TORCH_PYTHON[series]
    too_new = f"{hi.split('.')[0]}.{int(hi.split('.')[1]) + 1}"
    with pytest.raises(CompatError, match=rf"supports Python {lo}-{hi}, not {too_new}"):
        resolve({"os": "debian12", "framework": "pytorch", "framework_version": series, "python": too_new})


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


def test_python_default_per_os():
    assert resolve({"os": "debian12"})["python"] == "3.11"
    assert resolve({"os": "ubuntu22.04"})["python"] == "3.10"
    assert resolve({"os": "rocky9", "framework": "none"})["python"] == "3.9"
    # torch 2.13 needs Python >= 3.10: the newest AppStream interpreter is used instead of 3.9.
    assert resolve({"os": "rocky9"})["python"] == "3.12"


def test_rhel8_falls_back_to_a_vendor_python_the_framework_supports():
    stack = resolve({"os": "rhel8", "framework": "pytorch"})
    assert stack["python"] != "3.6"
    assert "vendor interpreter" in stack["reasons"]["python"]


# --------------------------------------------------------------------------- CUDA -> driver (NVIDIA release notes)
CUDA_DRIVER = [
    ("13.2.2", "595.71.05"),
    ("13.2.1", "595.58.03"),
    ("13.2.0", "595.45.04"),
    ("13.1.1", "590.48.01"),
    ("13.1.0", "590.44.01"),
    ("13.0.2", "580.95.05"),
    ("13.0.1", "580.82.07"),
    ("13.0.0", "580.65.06"),
    ("12.9.1", "575.57.08"),
    ("12.9.0", "575.51.03"),
    ("12.8.1", "570.124.06"),
    ("12.8.0", "570.26"),
    ("12.6.3", "560.35.05"),
    ("12.6.2", "560.35.03"),
    ("12.6.1", "560.35.03"),
    ("12.6.0", "560.28.03"),
    ("12.5.1", "555.42.06"),
    ("12.5.0", "555.42.02"),
    ("12.4.1", "550.54.15"),
    ("12.4.0", "550.54.14"),
    ("12.3.1", "545.23.08"),
    ("12.3.0", "545.23.06"),
    ("12.2.2", "535.104.05"),
    ("12.2.1", "535.86.09"),
    ("12.2.0", "535.54.03"),
    ("12.1.1", "530.30.02"),
    ("12.1.0", "530.30.02"),
    ("12.0.1", "525.85.12"),
    ("12.0.0", "525.60.13"),
    ("11.8.0", "520.61.05"),
    ("11.7.1", "515.48.07"),
    ("11.7.0", "515.43.04"),
    ("11.6.2", "510.47.03"),
    ("11.6.1", "510.47.03"),
    ("11.6.0", "510.39.01"),
    ("11.5.2", "495.29.05"),
    ("11.5.1", "495.29.05"),
    ("11.5.0", "495.29.05"),
    ("11.4.4", "470.82.01"),
    ("11.4.3", "470.82.01"),
    ("11.4.2", "470.57.02"),
    ("11.4.1", "470.57.02"),
    ("11.4.0", "470.42.01"),
    ("11.3.1", "465.19.01"),
    ("11.3.0", "465.19.01"),
    ("11.2.2", "460.32.03"),
    ("11.2.1", "460.32.03"),
    ("11.2.0", "460.27.03"),
    ("11.1.1", "455.32"),
    ("11.1.0", "455.23"),
    ("11.0.3", "450.51.06"),
    ("11.0.2", "450.51.05"),
    ("11.0.1", "450.36.06"),
    ("10.2", "440.33"),
    ("10.1", "418.39"),
    ("10.0", "410.48"),
    ("9.2.148", "396.37"),
    ("9.2.88", "396.26"),
    ("9.1", "390.46"),
    ("9.0", "384.81"),
    ("8.0.61", "375.26"),
    ("8.0.44", "367.48"),
    ("7.5", "352.31"),
    ("7.0", "346.46"),
    ("13.3.1", "610.43.02"),
    ("13.3.0", "610.43.02"),
    ("13.4", "615"),
]


@pytest.mark.parametrize(("cuda", "driver"), CUDA_DRIVER)
def test_min_driver_for_cuda_row(cuda, driver):
    assert min_driver_for_cuda(cuda) == driver


@pytest.mark.parametrize(
    ("cuda", "driver"),
    [
        ("11.8", "520.61.05"),
        ("12.6", "560.35.05"),
        ("12.4", "550.54.15"),
        ("11.4", "470.82.01"),
        ("12.2", "535.104.05"),
        ("13.0", "580.95.05"),
    ],
)
def test_min_driver_for_minor_is_its_newest_update(cuda, driver):
    assert min_driver_for_cuda(cuda) == driver


@pytest.mark.parametrize(("cuda", "driver"), [("11.2", "450.80.02"), ("12.9", "525.60.13"), ("13.1", "580.65.06")])
def test_min_driver_minor_compat(cuda, driver):
    assert min_driver_for_cuda(cuda, mode="minor_compat") == driver


def test_driver_min_follows_cuda_and_upgrade_flag():
    old = resolve(
        {"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.0", "cuda": "11.7", "driver": "515.65.01"}
    )
    assert old["driver_min"] == "515.48.07"
    assert old["driver_upgrade_required"] is False
    assert old["driver_branch"] == 515
    new = resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.13", "driver": "515.65.01"})
    assert new["driver_min"] == "560.35.05"
    assert new["driver_upgrade_required"] is True
    assert new["driver_branch"] == 580


# --------------------------------------------------------------------------- architecture floors and ceilings
# (sm, first CUDA, last CUDA or None, last driver branch or None) from CMake's CUDA architecture list / NVIDIA
ARCH_LIMITS = [
    ("3.5", "5.0", "11.8", 470),
    ("3.7", "6.5", "11.8", 470),
    ("5.0", "6.0", "12.9", 580),
    ("5.2", "6.5", "12.9", 580),
    ("5.3", "7.0", "12.9", 580),
    ("6.0", "8.0", "12.9", 580),
    ("6.1", "8.0", "12.9", 580),
    ("6.2", "8.0", "12.9", 580),
    ("7.0", "9.0", "12.9", 580),
    ("7.2", "9.0", "12.9", 580),
    ("7.5", "10.0", None, None),
    ("8.0", "11.0", None, None),
    ("8.6", "11.1", None, None),
    ("8.7", "11.4", None, None),
    ("8.9", "11.8", None, None),
    ("9.0", "11.8", None, None),
    ("10.0", "12.8", None, None),
    ("10.3", "12.9", None, None),
    ("11.0", "13.0", None, None),
    ("12.0", "12.8", None, None),
    ("12.1", "12.9", None, None),
]
KNOWN_CUDA = [
    "7.0",
    "7.5",
    "8.0",
    "9.0",
    "9.1",
    "9.2",
    "10.0",
    "10.1",
    "10.2",
    "11.0",
    "11.1",
    "11.2",
    "11.3",
    "11.4",
    "11.5",
    "11.6",
    "11.7",
    "11.8",
    "12.0",
    "12.1",
    "12.2",
    "12.3",
    "12.4",
    "12.5",
    "12.6",
    "12.8",
    "12.9",
    "13.0",
    "13.1",
    "13.2",
    "13.3",
    "13.4",
]


def _gpu_cuda_messages(sm, cuda):
    try:
        resolve({"os": "rhel8", "gpus": [sm], "framework": "none", "cuda": cuda})
    except CompatError as exc:
        return exc.message
    return ""


@pytest.mark.parametrize(("sm", "first", "last", "branch"), ARCH_LIMITS)
def test_architecture_floor_and_ceiling(sm, first, last, branch):
    row = gpu_arch(sm)
    assert (row["min_cuda"], row["max_cuda"], row["last_driver_branch"]) == (first, last, branch)
    below = [c for c in KNOWN_CUDA if vcmp(c, first) < 0]
    if below:
        assert f"needs CUDA >= {first}" in _gpu_cuda_messages(sm, below[-1])
    if first in KNOWN_CUDA:
        assert "needs CUDA >=" not in _gpu_cuda_messages(sm, first)
    if last:
        above = next(c for c in KNOWN_CUDA if vcmp(c, last) > 0)
        assert f"supported up to CUDA {last}" in _gpu_cuda_messages(sm, above)
        assert "supported up to CUDA" not in _gpu_cuda_messages(sm, last)


@pytest.mark.parametrize(
    ("name", "sm"),
    [
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("Tesla K80", "3.7"),
        ("NVIDIA GeForce RTX 4090", "8.9"),
        ("NVIDIA L40S", "8.9"),
        ("NVIDIA L40", "8.9"),
        ("NVIDIA A10", "8.6"),
        ("NVIDIA RTX A6000", "8.6"),
        ("NVIDIA B200", "10.0"),
        ("Tesla T4", "7.5"),
        ("sm_90", "9.0"),
        ("8.6", "8.6"),
        ("120", "12.0"),
    ],
)
def test_gpu_names_and_capabilities(name, sm):
    assert gpu_arch(name)["sm"] == sm


def test_h100_never_gets_old_cuda_or_nccl():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["H100"], "framework_version": "2.0"})
    assert vcmp(stack["cuda"], "11.8") >= 0
    assert vcmp(stack["nccl"], "2.15") >= 0
    assert stack["framework_cuda_variant"] == "cu118"


def test_h100_with_tf_2_14_raises_nccl_floor_respected():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["H100"], "framework": "tensorflow", "framework_version": "2.14"})
    assert stack["cuda"] == "11.8"
    assert vcmp(stack["nccl"], "2.15.1") >= 0


def test_blackwell_gets_cuda_12_8_or_newer_and_open_module():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["B200"], "framework": "pytorch"})
    assert vcmp(stack["cuda"], "12.8") >= 0
    assert stack["kernel_module"] == "open"
    assert vcmp(stack["nccl"], "2.25.1") >= 0
    assert vcmp(stack["driver_min"], "570.26") >= 0


def test_k80_stays_on_r470():
    stack = resolve({"os": "ubuntu20.04", "gpus": ["K80"], "framework": "pytorch"})
    assert stack["driver_branch"] == 470
    assert vcmp(stack["cuda"], "11.4") <= 0
    assert stack["kernel_module"] == "proprietary"
    assert stack["framework_version"] == "1.12.1"


def test_mixed_cluster_one_set_for_all():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["V100", "H100"], "framework": "pytorch"})
    assert stack["cuda"] == "12.6"  # cu126 is the variant carrying both sm_70 and sm_90
    assert stack["kernel_module"] == "proprietary"
    assert stack["driver_branch"] == 580
    assert stack["horovod_build_env"]["HOROVOD_BUILD_CUDA_CC_LIST"] == "70,90"


def test_installed_driver_kept_when_new_enough():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.13", "driver": "570.86.15"})
    assert stack["driver_branch"] == 570
    assert stack["driver_upgrade_required"] is False


def test_every_key_has_a_reason():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework": "pytorch"})
    for key in (
        "driver_min",
        "driver_branch",
        "driver_upgrade_required",
        "kernel_module",
        "cuda",
        "cudnn",
        "nccl",
        "openmpi",
        "framework",
        "framework_version",
        "framework_cuda_variant",
        "python",
        "horovod",
        "horovod_patches",
        "horovod_build_env",
    ):
        assert stack["reasons"].get(key, "").strip(), key
    assert set(_compat.RESULT_KEYS) <= set(stack)


def test_openmpi_helpers():
    assert openmpi_version_ok("4.1.4")
    assert openmpi_version_ok("3.1.2")
    assert not openmpi_version_ok("3.1.3")
    assert not openmpi_version_ok("2.1.1")


def test_resolve_or_conflicts_returns_data():
    bad = resolve_or_conflicts({"os": "debian12", "openmpi": "3.1.3"})
    assert bad["ok"] is False
    assert bad["conflicts"][0]["constraint"] == "openmpi"
    good = resolve_or_conflicts({"os": "debian12"})
    assert good["ok"] is True


def test_resolution_is_fast():
    start = time.perf_counter()
    resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework": "pytorch"})
    with pytest.raises(CompatError):
        resolve({"os": "ubuntu22.04", "gpus": ["K80"], "framework": "pytorch"})
    assert time.perf_counter() - start < 2.0


# --------------------------------------------------------------------------- refusals with checked messages
REFUSALS = [
    # (request, fragments that must all appear in the message)
    (
        {"os": "ubuntu22.04", "gpus": ["A100"], "framework": "tensorflow", "framework_version": "2.16"},
        ["Keras 3", "TensorFlow <= 2.15", "horovod#4290", "unpin framework_version"],
    ),
    (
        {"os": "ubuntu22.04", "gpus": ["A100"], "framework": "tensorflow", "framework_version": "2.21"},
        ["Keras 3", "TensorFlow <= 2.15"],
    ),
    ({"os": "debian12", "framework": "tensorflow", "framework_version": "2.18"}, ["Keras 3"]),
    (
        {"os": "ubuntu22.04", "gpus": ["H100"], "framework_version": "2.0", "cuda": "12.4"},
        [
            "torch 2.0 wheels exist for CUDA 11.7 and 11.8; pinned cuda 12.4",
            "unpin cuda",
            "2.4, 2.5, 2.6",
            "Horovod 0.28.1 + cxx17",
        ],
    ),
    (
        {"os": "ubuntu22.04", "gpus": ["H100"], "framework": "tensorflow", "framework_version": "2.11"},
        ["needs CUDA >= 11.8", "GPU H100"],
    ),
    ({"os": "ubuntu22.04", "gpus": ["H100"], "framework": "none", "cuda": "11.7"}, ["needs CUDA >= 11.8"]),
    (
        {"os": "ubuntu22.04", "gpus": ["H100"], "framework_version": "2.0", "nccl": "2.14.3"},
        ["needs NCCL >= 2.15.1", "pinned nccl 2.14.3"],
    ),
    ({"os": "ubuntu22.04", "gpus": ["B200"], "framework_version": "2.6"}, ["needs CUDA >= 12.8", "GPU B200"]),
    ({"os": "ubuntu22.04", "gpus": ["B200"], "framework": "none", "cuda": "12.6"}, ["needs CUDA >= 12.8"]),
    ({"os": "ubuntu22.04", "gpus": ["RTX 5090"], "framework": "tensorflow"}, ["needs CUDA >= 12.8"]),
    ({"os": "ubuntu22.04", "gpus": ["B200"], "framework_version": "2.7", "nccl": "2.21.5"}, ["needs NCCL >= 2.25.1"]),
    (
        {"os": "ubuntu20.04", "gpus": ["K80"], "driver_branch": "535"},
        ["newer than R470", "GPU K80", "use driver_branch 470"],
    ),
    (
        {"os": "ubuntu22.04", "gpus": ["K80"], "framework": "pytorch"},
        ["cannot use a driver newer than R470", "ubuntu22.04 has CUDA 11.7-current"],
    ),
    (
        {"os": "ubuntu20.04", "gpus": ["K80"], "framework": "none", "cuda": "11.8"},
        ["cannot use a driver newer than R470", "CUDA 11.8 needs >= 520.61.05"],
    ),
    (
        {"os": "ubuntu20.04", "gpus": ["K80"], "driver": "535.183.01"},
        ["installed driver 535.183.01 is newer than R470"],
    ),
    (
        {"os": "ubuntu22.04", "gpus": ["V100"], "framework_version": "2.13", "cuda": "13.0"},
        ["supported up to CUDA 12.9"],
    ),
    ({"os": "ubuntu22.04", "gpus": ["V100"], "framework": "none", "cuda": "13.0"}, ["supported up to CUDA 12.9"]),
    (
        {"os": "ubuntu22.04", "gpus": ["P100"], "framework_version": "2.13", "cudnn": "9.17"},
        ["cuDNN 9.17.0 supports sm >= 7.5"],
    ),
    ({"os": "debian12", "openmpi": "3.1.3"}, ["Open MPI 3.1.3 is known bad", "3.1.2 or >= 4.0.0", "unpin openmpi"]),
    ({"os": "debian12", "openmpi": "2.1.1"}, ["older than 3.0.0"]),
    (
        {"os": "debian12", "framework_version": "2.13", "python": "3.9"},
        ["torch 2.13 supports Python 3.10-3.15, not 3.9"],
    ),
    ({"os": "debian13", "framework": "tensorflow"}, ["not 3.13"]),
    ({"os": "debian12", "framework_version": "2.0", "horovod": "0.23"}, ["Horovod >= 0.24", "PyTorch 1.11"]),
    ({"os": "debian12", "framework_version": "1.12", "horovod": "0.23"}, ["Horovod >= 0.24"]),
    (
        {"os": "debian12", "framework": "tensorflow", "framework_version": "2.12", "horovod": "0.26"},
        ["Horovod 0.26.1 builds with Python 3.6-3.10, not 3.11", "unpin horovod"],
    ),
    (
        {"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.13", "driver_branch": "535"},
        ["pinned driver_branch 535 is older than CUDA 12.6 needs"],
    ),
    (
        {
            "os": "ubuntu22.04",
            "gpus": ["A100"],
            "framework": "tensorflow",
            "framework_version": "2.12",
            "cudnn": "9.17",
        },
        ["cuDNN 9.17.0 is not built for CUDA 11.8"],
    ),
    (
        {"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.13", "nccl": "2.14.3"},
        ["built for CUDA 11, not CUDA 12"],
    ),
    ({"os": "ubuntu22.04", "gpus": ["L40S"], "framework": "mxnet"}, ["no MXNet build targets"]),
    (
        {"os": "ubuntu24.04", "gpus": ["A100"], "framework": "tensorflow", "framework_version": "2.12"},
        ["ubuntu24.04 has CUDA 12.5-current", "not CUDA 11.8"],
    ),
    ({"os": "rhel9", "gpus": ["A100"], "framework_version": "1.12", "python": "3.9"}, ["not CUDA 11.3"]),
    ({"os": "ubuntu22.04", "gpus": ["V100", "B200"]}, ["proprietary kernel module", "open one"]),
]


@pytest.mark.parametrize(
    ("request_", "fragments"), REFUSALS, ids=lambda v: str(v)[:60] if isinstance(v, dict) else None
)
def test_refusal(request_, fragments):
    with pytest.raises(CompatError) as err:
        resolve(request_)
    message = err.value.message
    assert message.startswith("no compatible version set")
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert err.value.conflicts


UNKNOWN = [
    ({"os": "windows11"}, ["os 'windows11' unknown", "debian12", "ubuntu22.04"]),
    ({}, ["'os' is required"]),
    ({"os": "debian12", "gpus": ["Radeon VII"]}, ["GPU 'Radeon VII' is unknown", "A100", "H100"]),
    ({"os": "debian12", "gpus": ["sm_99"]}, ["compute capability '9.9'", "known:"]),
    ({"os": "debian12", "framework": "jax"}, ["framework 'jax' unknown", "pytorch, tensorflow, mxnet, none"]),
    ({"os": "debian12", "framework_version": "2.99"}, ["framework_version '2.99' unknown for pytorch", "2.13"]),
    ({"os": "debian12", "framework": "tensorflow", "framework_version": "3.0"}, ["unknown for tensorflow", "2.15"]),
    ({"os": "debian12", "cuda": "14.1"}, ["cuda '14.1' unknown", "12.6"]),
    ({"os": "debian12", "cudnn": "6.0"}, ["cudnn '6.0' unknown", "8.9.7"]),
    ({"os": "debian12", "nccl": "3.0.1"}, ["nccl '3.0.1' unknown", "2.21.5"]),
    ({"os": "debian12", "horovod": "1.0"}, ["horovod '1.0' unknown", "0.28.1"]),
    ({"os": "debian12", "driver_branch": "999"}, ["driver_branch '999' unknown", "580"]),
    ({"os": "debian12", "driver": "latest"}, ["driver 'latest' is not a driver version"]),
    ({"os": "debian12", "frame": "pytorch"}, ["unknown request key(s) frame", "framework_version"]),
    ({"os": "debian12", "gpus": "A100"}, ["gpus must be a list"]),
]


@pytest.mark.parametrize(("request_", "fragments"), UNKNOWN, ids=lambda v: str(v)[:60] if isinstance(v, dict) else None)
def test_unknown_inputs_list_what_is_known(request_, fragments):
    with pytest.raises(CompatError) as err:
        resolve(request_)
    for fragment in fragments:
        assert fragment in err.value.message, (fragment, err.value.message)


def test_min_driver_unknown_cuda_lists_known():
    with pytest.raises(CompatError, match=r"CUDA 6\.5 unknown .*11\.8"):
        min_driver_for_cuda("6.5")
