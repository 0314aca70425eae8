"""stack_facts action: reads every host's facts, resolves once, returns conflicts as data."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.gpucluster.horovod.plugins.action.stack_facts import ActionModule

DEBIAN12 = {"distribution": "Debian", "distribution_major_version": "12", "distribution_version": "12.7"}


def run(args, hostvars, me="n1"):
    task = MagicMock()
    task.args = args
    task.async_val = 0
    task.check_mode = False
    action = ActionModule(task, MagicMock(), MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    task_vars = {"hostvars": hostvars, "ansible_play_hosts_all": sorted(hostvars), "inventory_hostname": me}
    return action.run(task_vars=task_vars)


def test_cpu_cluster_publishes_the_same_stack():
    hostvars = {h: {"ansible_facts": dict(DEBIAN12, gpucluster_gpu={"gpus": []})} for h in ("n1", "n2")}
    result = run({"request": {"framework": "pytorch", "framework_version": "2.13"}}, hostvars)
    assert result["ok"] is True
    assert result["changed"] is False
    assert result["stacks"]["n1"] == result["stacks"]["n2"]
    assert result["ansible_facts"]["gpucluster_stack"]["framework_version"] == "2.13.0"
    assert result["hosts"]["n2"] == {"os": "debian12", "gpus": [], "driver": None}


def test_gpu_facts_feed_the_resolution():
    gpu = {"gpus": [{"name": "NVIDIA H100 80GB HBM3", "compute_cap": "9.0"}], "driver_version": "535.183.01"}
    hostvars = {
        "g1": {
            "ansible_facts": {
                "distribution": "Ubuntu",
                "distribution_major_version": "22",
                "distribution_version": "22.04",
                "gpucluster_gpu": gpu,
            }
        }
    }
    result = run({"request": {"framework": "pytorch"}}, hostvars, me="g1")
    stack = result["stacks"]["g1"]
    assert stack["gpus"][0]["sm"] == "9.0"
    assert stack["driver_upgrade_required"] is True  # 535 < the 560.35.05 CUDA 12.6 needs


def test_conflict_is_data_not_failure():
    hostvars = {"n1": {"ansible_facts": dict(DEBIAN12)}}
    result = run({"request": {"openmpi": "3.1.3"}}, hostvars)
    assert result["ok"] is False
    assert "failed" not in result
    assert "ansible_facts" not in result
    assert "Open MPI 3.1.3 is known bad" in result["msg"]


def test_missing_os_facts_and_bad_arguments_fail():
    with pytest.raises(AnsibleActionFail, match="no OS facts"):
        run({}, {"n1": {"ansible_facts": {}}})
    with pytest.raises(AnsibleActionFail, match="must not set os"):
        run({"request": {"os": "debian12"}}, {"n1": {"ansible_facts": dict(DEBIAN12)}})
    with pytest.raises(AnsibleActionFail, match="stack_facts: "):
        run({"request": "pytorch", "bogus": 1}, {"n1": {"ansible_facts": dict(DEBIAN12)}})


def test_captured_h100_facts_give_the_build_its_compute_capability():
    """The gpucluster_gpu fact captured on a real H100 host (fixtures/benchmark/gpu_facts-h100.json) resolves a GPU
    stack whose Horovod build targets exactly that GPU: NCCL operations, HOROVOD_BUILD_CUDA_CC_LIST 90 (CUDA 13 no
    longer builds for the architectures before 7.5 that Horovod's own default list names)."""
    gpu = json.loads(
        (Path(__file__).resolve().parents[2] / "fixtures" / "benchmark" / "gpu_facts-h100.json").read_text()
    )
    gpu = gpu.get("gpucluster_gpu", gpu)
    facts = {"distribution": "Ubuntu", "distribution_major_version": "24", "distribution_version": "24.04"}
    result = run(
        {"request": {"framework": "pytorch"}}, {"gpu1": {"ansible_facts": dict(facts, gpucluster_gpu=gpu)}}, me="gpu1"
    )
    stack = result["stacks"]["gpu1"]
    env = stack["horovod_build_env"]
    assert env["HOROVOD_BUILD_CUDA_CC_LIST"] == "90"
    assert env["HOROVOD_GPU_OPERATIONS"] == "NCCL"
    assert stack["cuda"] and stack["nccl"]
    # driver 580.159.04 (CUDA 13.0) is new enough for what was resolved: the driver role leaves it alone
    assert stack["driver_upgrade_required"] is False
