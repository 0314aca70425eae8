"""stack_facts action: reads every host's facts, resolves once, returns conflicts as data."""

from __future__ import annotations

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
