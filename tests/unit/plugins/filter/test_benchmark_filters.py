"""benchmark_node_facts: what the role registered (gpu_facts, slurp and command loops) as plain node dicts."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter import benchmark as f
from ansible_collections.gpucluster.horovod.plugins.module_utils import _fabric

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "benchmark"
H100 = json.loads((FIX / "gpu_facts-h100.json").read_text())
HOSTS = [{"name": "g1", "hostname": "g1", "slots": 1}, {"name": "c1", "hostname": "c1", "slots": 1}]


def _slurped(name, text):
    return {"item": {"name": name}, "content": base64.b64encode(text.encode()).decode(), "encoding": "base64"}


def test_filter_is_registered():
    assert set(f.FilterModule().filters()) == {"benchmark_node_facts"}


def test_node_facts_from_registered_loops():
    hostvars = {"g1": {"ansible_facts": {"gpucluster_gpu": H100}}, "c1": {"ansible_facts": {}}}
    boot = {"results": [_slurped("g1", "6f1e\n"), _slurped("c1", "6f1e\n")]}
    topo = {
        "results": [
            {"item": {"name": "g1"}, "rc": 0, "stdout": "\tGPU0\nGPU0\t X ", "stderr": "", "changed": False},
            {"item": {"name": "c1"}, "skipped": True, "false_condition": "nvidia-smi"},
        ]
    }
    g1, c1 = f.benchmark_node_facts(HOSTS, hostvars, boot, topo)
    assert (g1["gpu_count"], g1["gpu_models"], g1["boot_id"]) == (1, ["NVIDIA H100 80GB HBM3"], "6f1e")
    assert g1["topo"] == "\tGPU0\nGPU0\t X"
    assert (c1["gpu_count"], c1["boot_id"], c1["topo"], c1["topo_error"]) == (0, "6f1e", None, None)


def test_missing_probes_leave_the_fields_empty():
    # check mode of the report, or a run with --tags that skipped the probes
    (g1,) = f.benchmark_node_facts(HOSTS[:1], {"g1": {"ansible_facts": {"gpucluster_gpu": H100}}}, {}, {})
    assert (g1["boot_id"], g1["topo"], g1["driver_version"]) == (None, None, "580.159.04")
    failed = {"results": [{"item": {"name": "g1"}, "failed": True, "msg": "file not found"}]}
    assert f.benchmark_node_facts(HOSTS[:1], {"g1": {}}, failed)[0]["boot_id"] is None


def test_bad_input_names_the_filter():
    with pytest.raises(AnsibleFilterError, match=r"^benchmark_node_facts: 'g1' is not a host entry"):
        f.benchmark_node_facts(["g1"], {})
    bad = {"results": [{"item": {"name": "g1"}, "content": "not base64!"}]}
    with pytest.raises(AnsibleFilterError, match="boot id of g1 is not base64"):
        f.benchmark_node_facts(HOSTS[:1], {"g1": {}}, bad)


def test_node_health_from_the_registered_loops_before_and_after():
    """node_health's registered loops (the H200's real result before; a skipped CPU node; a run that failed)."""
    real = json.loads((FIX / "h200" / "node_health-vm.json").read_text())
    before = {
        "results": [
            {"item": {"name": "g1"}, "changed": False, **real},
            {"item": {"name": "c1"}, "skipped": True, "false_condition": "gpus > 0"},
        ]
    }
    after = {"results": [{"item": {"name": "g1"}, "failed": True, "msg": "nvidia-smi timed out"}]}
    g1, c1 = f.benchmark_node_facts(HOSTS, {}, health_before=before, health_after=after)
    # the run after failed: the section shows the judgement before, with no after status
    assert g1["health"] == {"before": "ok", "after": None, "findings": [], "new_xids": []}
    assert c1["health"] is None
    g1, _c1 = f.benchmark_node_facts(HOSTS, {}, health_before=before, health_after=before)
    assert (g1["health"]["before"], g1["health"]["after"]) == ("ok", "ok")


def _fabric_read(name):
    """What fabric_facts returns as its ``fabric`` on one of the fixture sysfs trees."""
    root = str(FIX.parent / "fabric" / name)
    devices = _fabric.read_tree(root)
    return {**_fabric.summarize(devices), "devices": devices, "root": root, "problems": []}


def test_fabric_ports_join_the_health_and_judge_a_node_without_gpus():
    """The RDMA ports read before and after the runs (fabric_facts loops): a CPU node with a fabric is judged by its
    ports alone; on a GPU node the ports' check joins node_health's and the worse status wins."""
    real = json.loads((FIX / "h200" / "node_health-vm.json").read_text())
    gpu_before = {"results": [{"item": {"name": "g1"}, "changed": False, **real}]}
    up = _fabric_read("ib_hdr_2")
    one_down = _fabric_read("ib_hdr_1_down")
    assert (up["port_count"], one_down["port_count"], len(one_down["unusable"])) == (2, 1, 1)
    before = {"results": [{"item": {"name": n}, "changed": False, "fabric": up} for n in ("g1", "c1")]}
    after = {
        "results": [
            {"item": {"name": "g1"}, "changed": False, "fabric": up},
            {"item": {"name": "c1"}, "changed": False, "fabric": one_down},
        ]
    }
    g1, c1 = f.benchmark_node_facts(
        HOSTS, {}, health_before=gpu_before, health_after=gpu_before, fabric_before=before, fabric_after=after
    )
    assert g1["health"] == {"before": "ok", "after": "ok", "findings": [], "new_xids": []}
    assert (c1["health"]["before"], c1["health"]["after"], c1["health"]["new_xids"]) == ("ok", "warn", [])
    (finding,) = c1["health"]["findings"]
    assert finding.startswith("fabric_ports: RDMA port(s) not usable: mlx5_1:1 (")
    # the GPU node's port going down makes its ok node_health a warn; a node the read after lost keeps its before
    after = {
        "results": [
            {"item": {"name": "g1"}, "changed": False, "fabric": one_down},
            {"item": {"name": "c1"}, "unreachable": True, "failed": True, "msg": "Data could not be sent"},
        ]
    }
    g1, c1 = f.benchmark_node_facts(
        HOSTS, {}, health_before=gpu_before, health_after=gpu_before, fabric_before=before, fabric_after=after
    )
    assert (g1["health"]["before"], g1["health"]["after"]) == ("ok", "warn")
    assert [x.split(":")[0] for x in g1["health"]["findings"]] == ["fabric_ports"]
    assert c1["health"] == {"before": "ok", "after": None, "findings": [], "new_xids": []}
    # no fabric read at all (no host with ports): the CPU node stays unjudged
    assert f.benchmark_node_facts(HOSTS, {}, health_before=gpu_before)[1]["health"] is None
