"""Tests of the benchmark_report action plugin: reads fetched files, writes the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from unittest import mock

import pytest
from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.gpucluster.horovod.plugins.action.benchmark_report import ActionModule

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "benchmark"


def make_action(args, check_mode=False):
    task = Task()
    task.args = args
    task.check_mode = check_mode
    conn = mock.MagicMock()
    conn._shell.tmpdir = None
    play_context = mock.MagicMock()
    play_context.check_mode = check_mode
    loader = DataLoader()
    return ActionModule(task, conn, play_context, loader, Templar(loader=loader), None)


@pytest.fixture
def raw(tmp_path):
    raw = tmp_path / "raw"
    (raw / "n1").mkdir(parents=True)
    shutil.copy(FIX / "run-hvd-np2.json", raw / "n1" / "run-hvd-np2.json")
    shutil.copy(FIX / "run-torch-np2.json", raw / "n1" / "run-torch-np2.json")
    shutil.copy(FIX / "iperf3-n2.json", raw / "iperf3-n2.json")
    return raw


def test_writes_result_report_and_plots(raw, tmp_path):
    pytest.importorskip("matplotlib")
    dest = tmp_path / "out"
    res = make_action(
        {"raw_dir": str(raw), "dest": str(dest), "run_id": "t1", "tuning": {"horovod_benchmark_cycle_time_ms": 1.0}}
    ).run(task_vars={})
    assert res["changed"] is True
    doc = json.loads((dest / "result.json").read_text())
    assert doc["schema_version"] == 1 and doc["run_id"] == "t1"
    assert [x["host"] for x in doc["link"]] == ["n2"]
    assert sorted(r["source"] for r in doc["runs"]) == ["n1/run-hvd-np2.json", "n1/run-torch-np2.json"]
    assert res["summary"]["every_rank_reported"] is True
    assert (dest / "report.md").read_text().startswith("# Horovod cluster benchmark t1")
    assert (dest / "busbw.png").read_bytes()[:4] == b"\x89PNG"
    assert any("every rank reported: True" in line for line in res["summary_lines"])


def test_no_runs_fails_with_path(tmp_path):
    with pytest.raises(AnsibleActionFail, match=r"no run-\*\.json under"):
        make_action({"raw_dir": str(tmp_path), "dest": str(tmp_path / "o"), "run_id": "x"}).run(task_vars={})


def test_check_mode_writes_nothing(raw, tmp_path):
    dest = tmp_path / "out"
    res = make_action({"raw_dir": str(raw), "dest": str(dest), "run_id": "x"}, check_mode=True).run(task_vars={})
    assert res["changed"] is False
    assert not dest.exists()


def test_bad_iperf_fails_naming_host(raw, tmp_path):
    (raw / "iperf3-n3.json").write_text(json.dumps({"error": "unable to connect to server: Connection refused"}))
    with pytest.raises(AnsibleActionFail, match="iperf3 to n3 failed"):
        make_action({"raw_dir": str(raw), "dest": str(tmp_path / "o"), "run_id": "x"}).run(task_vars={})


def test_plain_run_nodes_and_nccl_tests_reach_the_report(raw, tmp_path):
    shutil.copy(FIX / "run-plain.json", raw / "n1" / "run-plain.json")
    shutil.copy(FIX / "nccl-tests" / "all_reduce_perf-2x8-h100.txt", raw / "nccl-tests-all_reduce_perf.txt")
    nodes = [
        {"name": "n1", "hostname": "vm", "boot_id": "b0", "gpu_count": 0, "topo": None, "topo_error": None},
        {"name": "n2", "hostname": "n2", "boot_id": "b0", "gpu_count": 0, "topo": None, "topo_error": None},
    ]
    dest = tmp_path / "out"
    res = make_action({"raw_dir": str(raw), "dest": str(dest), "run_id": "t2", "plots": False, "nodes": nodes}).run(
        task_vars={}
    )
    doc = json.loads((dest / "result.json").read_text())
    assert doc["summary"]["shared_machines"] == [["n1", "n2"]]
    assert res["summary"]["shared_machines"] == [["n1", "n2"]]
    assert doc["overhead"]["plain_samples_per_s"] > 0
    assert doc["nccl_tests"]["source"] == "nccl-tests-all_reduce_perf.txt"
    assert doc["nccl_tests"]["avg_busbw_GBps"] == pytest.approx(70.742)
    assert any(line.startswith("WARNING: nodes n1, n2 share one kernel") for line in res["summary_lines"])
    report = (dest / "report.md").read_text()
    assert "## Nodes" in report and "## nccl-tests all_reduce_perf" in report


def test_the_elastic_run_reaches_the_result_and_the_summary(raw, tmp_path):
    # the elastic run's document, as hvd_benchmark.py --mode elastic writes it, next to the runs
    timeline = [
        {"t": 0.0, "event": "start", "workers": 2, "step": 0, "samples": 0},
        {"t": 2.0, "event": "commit", "workers": 2, "step": 10, "samples": 160},
        {"t": 4.0, "event": "commit", "workers": 2, "step": 20, "samples": 320},
    ]
    elastic = {
        "mode": "elastic",
        "tag": "elastic",
        "size": 2,
        "ranks": [{"rank": 0}, {"rank": 1}],
        "elastic": {
            "min_workers": 1,
            "max_workers": 2,
            "resets": 0,
            "workers_over_time": [{"t": 0.0, "workers": 2, "event": "start"}],
            "final_workers": 2,
            "steps": 20,
            "elapsed_s": 4.0,
            "phases": [{"workers": 2, "from_s": 2.0, "to_s": 4.0, "samples_per_s": 80.0}],
            "before": {"workers": 2, "from_s": 2.0, "to_s": 4.0, "samples_per_s": 80.0},
            "after": None,
            "timeline": timeline,
        },
    }
    (raw / "elastic.json").write_text(json.dumps(elastic))
    dest = tmp_path / "out"
    res = make_action({"raw_dir": str(raw), "dest": str(dest), "run_id": "e1", "plots": False}).run(task_vars={})
    doc = json.loads((dest / "result.json").read_text())
    assert doc["elastic"]["source"] == "elastic.json" and doc["elastic"]["ranks_at_end"] == 2
    # not one of the scaling runs
    assert sorted(r["source"] for r in doc["runs"]) == ["n1/run-hvd-np2.json", "n1/run-torch-np2.json"]
    assert "elastic: 0 resets, workers 2, 20 steps in 4.0 s; samples/s 80.0 at 2 workers" in res["summary_lines"]
