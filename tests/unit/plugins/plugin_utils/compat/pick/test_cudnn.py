"""cuDNN picker: a pin is checked against the CUDA and the GPUs; without a framework wheel's cuDNN, the newest
release built for the CUDA that supports every GPU (cudnn.yml, NVIDIA's cuDNN support matrix)."""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import load_tables, vcmp
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat.pick import cudnn
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat.request import Candidate, Context

T = load_tables()
CPU_VARIANT = {"variant": None, "cuda": "12.6", "status": "stable", "cudnn": None, "nccl": None, "sm": None}


def test_without_a_wheel_the_newest_release_for_the_cuda_is_chosen():
    c = Candidate()
    chosen = cudnn.pick(Context({"os": "ubuntu22.04", "gpus": ["A100"]}, T), c, None, CPU_VARIANT, "12.6")
    assert not c.conflicts
    assert vcmp(chosen, "9.0") >= 0
    assert "newest release built for CUDA 12.6" in c.reasons["cudnn"]


def test_pin_on_a_gpu_it_does_not_support_is_a_conflict():
    c = Candidate()
    ctx = Context({"os": "ubuntu22.04", "gpus": ["P100"], "cudnn": "9.17"}, T)
    assert cudnn.pick(ctx, c, None, CPU_VARIANT, "12.6") == "9.17"
    assert c.conflicts[0]["constraint"] == "cudnn"
    assert "supports sm >= 7.5" in c.conflicts[0]["message"]
