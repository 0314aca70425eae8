"""NCCL picker: GPU floors over the framework's bundled NCCL.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    resolve,
    vcmp,
)


def test_h100_never_gets_old_cuda_or_nccl():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["H100"], "framework_version": "2.0"})
    assert vcmp(stack["cuda"], "11.8") >= 0
    assert vcmp(stack["nccl"], "2.15") >= 0
    assert stack["framework_cuda_variant"] == "cu118"


def test_h100_with_tf_2_14_raises_nccl_floor_respected():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["H100"], "framework": "tensorflow", "framework_version": "2.14"})
    assert stack["cuda"] == "11.8"
    assert vcmp(stack["nccl"], "2.15.1") >= 0
