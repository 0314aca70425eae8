"""resolve(): every key has a reason, conflicts as data, speed, refusals and unknown inputs.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

import time

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import compat as _compat
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    CompatError,
    resolve,
    resolve_or_conflicts,
)


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


def test_resolve_or_conflicts_returns_data():
    bad = resolve_or_conflicts({"os": "debian12", "openmpi": "3.1.3"})
    assert bad["ok"] is False
    assert bad["conflicts"][0]["constraint"] == "openmpi"
    good = resolve_or_conflicts({"os": "debian12"})
    assert good["ok"] is True


def test_resolution_is_fast():
    # CPU time of this process, not wall-clock time: the test tiers run beside each other (scripts/test-all.sh), and a
    # loaded machine must not fail a check of the resolver's own cost.
    start = time.process_time()
    resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework": "pytorch"})
    with pytest.raises(CompatError):
        resolve({"os": "ubuntu22.04", "gpus": ["K80"], "framework": "pytorch"})
    assert time.process_time() - start < 2.0


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
        {"os": "debian12", "framework": "tensorflow", "framework_version": "1.12"},
        [
            "TensorFlow 1.12 supports Python 3.3-3.6, not 3.11",
            "TensorFlow 1.x is end of life",
            "unpin framework_version (1.12): TensorFlow 2.15.0 (cpu)",
        ],
    ),
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
