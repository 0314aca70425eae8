"""Framework picker: TensorFlow tested build configurations, the PyTorch release matrix and Python ranges.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    CompatError,
    resolve,
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
