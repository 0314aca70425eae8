"""Single-table lookups: GPU names and compute capabilities.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    gpu_arch,
)


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
