"""CUDA picker: architecture floors and ceilings (CMake's CUDA architecture list), GPUs and OS.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    CompatError,
    gpu_arch,
    resolve,
    vcmp,
)

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


def test_blackwell_gets_cuda_12_8_or_newer_and_open_module():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["B200"], "framework": "pytorch"})
    assert vcmp(stack["cuda"], "12.8") >= 0
    assert stack["kernel_module"] == "open"
    assert vcmp(stack["nccl"], "2.25.1") >= 0
    assert vcmp(stack["driver_min"], "570.26") >= 0


def test_mixed_cluster_one_set_for_all():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["V100", "H100"], "framework": "pytorch"})
    assert stack["cuda"] == "12.6"  # cu126 is the variant carrying both sm_70 and sm_90
    assert stack["kernel_module"] == "proprietary"
    assert stack["driver_branch"] == 580
    assert stack["horovod_build_env"]["HOROVOD_BUILD_CUDA_CC_LIST"] == "70,90"
