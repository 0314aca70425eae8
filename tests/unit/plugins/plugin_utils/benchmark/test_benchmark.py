"""Tests of plugins/plugin_utils/benchmark/: formulas, combining, schema, rendering, plots."""

from __future__ import annotations

import builtins
import copy
import json
import re
from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.module_utils import _node_health as nh
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark import link as lk
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark import plots as pl
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark import report as r
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark import result as b

FIX = Path(__file__).resolve().parents[3] / "fixtures" / "benchmark"
MIB = 1024 * 1024


def load(name):
    return json.loads((FIX / name).read_text())


def run_doc(mode, workers, rows, training=None, tag=None):
    """A program document of the shape hvd_benchmark.py writes (values chosen for hand checks)."""
    doc = {
        "program_version": 1,
        "mode": mode,
        "tag": tag or f"{mode}-np{workers}",
        "size": workers,
        "device": "cpu",
        "library": "horovod" if mode == "horovod" else "torch.distributed/gloo",
        "ranks": [{"rank": r, "hostname": f"n{r + 1}"} for r in range(workers)],
        "allreduce": [
            {
                "bytes": nbytes,
                "elements": nbytes // 4,
                "dtype": "float32",
                "iters": 5,
                "warmup": 1,
                "time_median_s": t,
                "time_p90_s": t * 1.1,
                "algbw_Bps": 0.0,
                "busbw_Bps": 0.0,
                "correct": True,
                "ranks_reported": workers,
            }
            for nbytes, t in rows
        ],
    }
    if training is not None:
        doc["training"] = {
            "model": "smallconvnet",
            "device": "cpu",
            "samples_per_s_total": training,
            "samples_per_s_per_worker": training / workers,
            "ranks_reported": workers,
        }
    return doc


# ------------------------------------------------------------------ formulas
@pytest.mark.parametrize("workers, factor", [(1, 0.0), (2, 1.0), (3, 4.0 / 3.0), (4, 1.5), (8, 1.75)])
def test_bus_factor(workers, factor):
    assert b.bus_factor(workers) == pytest.approx(factor)


def test_bandwidth_by_hand():
    # 64 MiB in 0.1 s: algbw 671088640 B/s; 2 workers -> busbw x1; 4 workers -> x1.5
    assert b.algbw(64 * MIB, 0.1) == pytest.approx(671088640.0)
    assert b.busbw(64 * MIB, 0.1, 2) == pytest.approx(671088640.0)
    assert b.busbw(64 * MIB, 0.1, 4) == pytest.approx(1006632960.0)
    assert b.busbw(4096, 0.001, 1) == 0.0


@pytest.mark.parametrize("bad", [0, -1.0])
def test_algbw_refuses_nonpositive_time(bad):
    with pytest.raises(b.BenchmarkError, match="time must be > 0"):
        b.algbw(4096, bad)


def test_bus_factor_refuses_zero_workers():
    with pytest.raises(b.BenchmarkError):
        b.bus_factor(0)


def test_efficiency_by_hand():
    assert b.efficiency(180.0, 2, 100.0) == pytest.approx(0.9)
    assert b.efficiency(300.0, 4, 100.0) == pytest.approx(0.75)
    with pytest.raises(b.BenchmarkError):
        b.efficiency(1.0, 2, 0.0)


@pytest.mark.parametrize("n, text", [(4096, "4 KiB"), (64 * MIB, "64 MiB"), (1536, "1.5 KiB"), (100, "100 B")])
def test_human_bytes(n, text):
    assert b.human_bytes(n) == text


# --------------------------------------------------------------------- iperf3
def test_parse_iperf3_real_output():
    text = (FIX / "iperf3-n2.json").read_text()
    bps = lk.parse_iperf3(text, "n2")
    assert bps == json.loads(text)["end"]["sum_received"]["bits_per_second"]
    assert bps > 1e8


def test_parse_iperf3_error_names_host():
    with pytest.raises(b.BenchmarkError, match="iperf3 to n3 failed: unable to connect"):
        lk.parse_iperf3({"start": {}, "end": {}, "error": "unable to connect to server"}, "n3")


@pytest.mark.parametrize("bad", ["not json", "[]", {"end": {}}])
def test_parse_iperf3_bad(bad):
    with pytest.raises(b.BenchmarkError):
        lk.parse_iperf3(bad, "n1")


# -------------------------------------------------------------------- combine
def synthetic_runs():
    return [
        run_doc("horovod", 1, [(4096, 0.001), (64 * MIB, 0.05)], training=100.0),
        run_doc("horovod", 2, [(4096, 0.002), (64 * MIB, 0.1)], training=180.0),
        run_doc("horovod", 3, [(4096, 0.003), (64 * MIB, 0.2)], training=240.0),
        run_doc("torch", 3, [(4096, 0.001), (64 * MIB, 0.16)]),
    ]


def test_combine_by_hand():
    iperf = {
        "n2": {"end": {"sum_received": {"bits_per_second": 8e9}}},
        "n3": {"end": {"sum_received": {"bits_per_second": 16e9}}},
    }
    doc = b.combine(
        synthetic_runs(), link=iperf, run_id="r1", generated_at="t", tuning={"horovod_benchmark_cycle_time_ms": 1}
    )
    assert doc["schema_version"] == 1
    assert doc["allreduce"]["workers"] == 3
    big = doc["comparison"][-1]
    # busbw = 64 MiB / t x 4/3; ratio = t_peer / t_hvd = 0.16 / 0.2
    assert big["horovod_busbw_Bps"] == pytest.approx(64 * MIB / 0.2 * 4 / 3)
    assert big["ratio"] == pytest.approx(0.8)
    assert doc["summary"]["ratio_large"] == pytest.approx(0.8)
    assert doc["summary"]["ratio_large_measured_at_64MiB"] is True
    # slowest link: 8 Gbit/s = 1e9 B/s
    assert doc["summary"]["link_Bps"] == pytest.approx(1e9)
    assert big["horovod_link_fraction"] == pytest.approx(64 * MIB / 0.2 * 4 / 3 / 1e9)
    eff = {s["workers"]: s["efficiency"] for s in doc["scaling"]}
    assert eff == pytest.approx({1: 1.0, 2: 0.9, 3: 240.0 / 300.0})
    assert doc["summary"]["every_rank_reported"] is True
    assert doc["summary"]["correct"] is True
    assert b.schema_errors(doc) == []


def both_doc(workers, rows, paired):
    """A --mode both document: Horovod's sweep, the peer's interleaved with it, the iterations' paired ratios."""
    doc = run_doc("both", workers, [(row[0], row[1]) for row in rows])
    doc["library"] = "horovod"
    doc["peer_library"] = "torch.distributed/gloo"
    doc["peer_allreduce"] = run_doc("torch", workers, [(row[0], row[2]) for row in rows])["allreduce"]
    doc["paired"] = [
        {"bytes": nbytes, "pairs": 5, "ratio_median": med, "ratio_p10": p10, "ratio_p90": p90}
        for nbytes, (med, p10, p90) in paired.items()
    ]
    return doc


def test_a_paired_run_is_the_comparison_with_its_spread_and_the_goals():
    runs = [
        run_doc("horovod", 1, [(4096, 0.001), (64 * MIB, 0.05)], training=100.0),
        run_doc("horovod", 2, [(4096, 0.002), (64 * MIB, 0.1)], training=180.0),
        # the separate peer run of before would say 0.5 at 64 MiB; the paired run is what counts
        run_doc("torch", 2, [(4096, 0.001), (64 * MIB, 0.05)]),
        both_doc(
            2, [(4096, 0.002, 0.0018), (64 * MIB, 0.1, 0.098)], {4096: (0.85, 0.7, 1.1), 64 * MIB: (0.97, 0.96, 0.99)}
        ),
        run_doc("plain", 1, [], training=110.0, tag="plain"),
    ]
    doc = b.combine(runs)
    assert doc["allreduce"]["peer_library"] == "torch.distributed/gloo" and doc["allreduce"]["workers"] == 2
    small, big = doc["comparison"]
    assert (big["paired"], big["ratio"], big["ratio_p10"], big["ratio_p90"]) == (True, 0.97, 0.96, 0.99)
    assert big["peer_time_s"] == pytest.approx(0.098)
    assert doc["summary"]["ratio_large"] == pytest.approx(0.97)
    goals = {g["name"]: g for g in doc["summary"]["goals"]}
    assert goals["Horovod / peer at >= 64 MiB"] == {
        "name": "Horovod / peer at >= 64 MiB",
        "target": 0.95,
        "value": 0.97,
        "bytes": 64 * MIB,
        "p10": 0.96,
        "p90": 0.99,
        "met": True,
        "within_spread": False,
    }
    # 0.85 >= 0.8, but 0.8 lies inside 0.7-1.1: met, and not by more than the noise
    assert (goals["Horovod / peer from 4 KiB to 256 KiB"]["met"], small["ratio_p10"]) == (True, 0.7)
    assert goals["Horovod / peer from 4 KiB to 256 KiB"]["within_spread"] is True
    # 100 / 110 samples/s
    assert goals["Horovod at one worker / plain framework"]["value"] == pytest.approx(100 / 110)
    assert goals["Horovod at one worker / plain framework"]["met"] is False
    assert doc["summary"]["correct"] and doc["summary"]["every_rank_reported"]


def test_a_paired_run_with_a_wrong_peer_result_is_not_correct():
    both = both_doc(2, [(4096, 0.002, 0.0018)], {4096: (0.9, 0.8, 1.0)})
    both["peer_allreduce"][0]["correct"] = False
    doc = b.combine([run_doc("horovod", 2, [(4096, 0.002)], training=10.0), both])
    assert doc["summary"]["correct"] is False


def test_unpaired_comparison_has_no_spread_and_goals_say_what_was_not_measured():
    doc = b.combine(synthetic_runs())
    assert all(c["paired"] is False and c["ratio_p10"] is None for c in doc["comparison"])
    goals = {g["name"]: g for g in doc["summary"]["goals"]}
    assert goals["Horovod / peer at >= 64 MiB"]["within_spread"] is False
    assert goals["Horovod at one worker / plain framework"]["met"] is None  # no plain run


def test_combine_recomputes_bandwidth_not_trusting_input():
    runs = synthetic_runs()
    runs[1]["allreduce"][1]["busbw_Bps"] = 1e30
    doc = b.combine(runs)
    hvd2 = next(r for r in doc["runs"] if r["mode"] == "horovod" and r["workers"] == 2)
    assert hvd2["allreduce"][1]["busbw_Bps"] == pytest.approx(64 * MIB / 0.1)


def test_missing_rank_is_reported():
    runs = synthetic_runs()
    runs[2]["ranks"] = runs[2]["ranks"][:2]
    doc = b.combine(runs)
    assert doc["summary"]["every_rank_reported"] is False


def test_wrong_result_is_reported():
    runs = synthetic_runs()
    runs[3]["allreduce"][0]["correct"] = False
    assert b.combine(runs)["summary"]["correct"] is False


def test_short_row_count_marks_incorrect():
    runs = synthetic_runs()
    runs[1]["allreduce"][0]["ranks_reported"] = 1
    doc = b.combine(runs)
    assert doc["summary"]["correct"] is False
    assert doc["summary"]["every_rank_reported"] is False


def test_no_one_worker_run_gives_no_efficiency():
    doc = b.combine(synthetic_runs()[1:])
    assert [s["efficiency"] for s in doc["scaling"]] == [None, None]
    assert b.schema_errors(doc) == []


def test_small_sweep_uses_largest_size_for_ratio():
    runs = [run_doc("horovod", 2, [(4096, 0.004), (MIB, 0.01)]), run_doc("torch", 2, [(4096, 0.001), (MIB, 0.005)])]
    s = b.combine(runs)["summary"]
    assert s["ratio_large"] == pytest.approx(0.5)
    assert s["ratio_large_measured_at_64MiB"] is False
    assert s["ratio_large_bytes"] == [MIB]


def test_combine_refuses_empty_and_foreign_documents():
    with pytest.raises(b.BenchmarkError, match="no benchmark results"):
        b.combine([])
    with pytest.raises(b.BenchmarkError, match="lacks 'mode'"):
        b.combine([{"source": "x.json", "doc": {"size": 2}}])


# ------------------------------------------------- real program output (fixtures)
def test_combine_real_program_output():
    runs = [{"source": name, "doc": load(name)} for name in ("run-hvd-np2.json", "run-torch-np2.json")]
    doc = b.combine(runs, link={"n2": (FIX / "iperf3-n2.json").read_text()}, run_id="fixture")
    assert doc["summary"]["every_rank_reported"] is True
    assert doc["summary"]["correct"] is True
    assert doc["allreduce"]["workers"] == 2
    assert [c["bytes"] for c in doc["comparison"]] == [r["bytes"] for r in load("run-hvd-np2.json")["allreduce"]]
    for c in doc["comparison"]:
        assert c["ratio"] == pytest.approx(c["peer_time_s"] / c["horovod_time_s"])
    assert b.schema_errors(doc) == []


# -------------------------------------------------------------------- schema
def test_schema_against_jsonschema():
    jsonschema = pytest.importorskip("jsonschema")
    doc = b.combine(synthetic_runs(), run_id="r")
    jsonschema.validate(json.loads(json.dumps(doc)), b.RESULT_SCHEMA)
    # with every optional section: the plain baseline, the nodes and nccl-tests
    nodes = b.node_entries([{"name": "n1"}, {"name": "n2"}], boot_ids={"n1": "x", "n2": "x"})
    nccl = (FIX / "nccl-tests" / "all_reduce_perf-2x8-h100.txt").read_text()
    full = b.combine([*synthetic_runs(), plain_doc(120.0)], nodes=nodes, nccl_tests=nccl, run_id="r")
    jsonschema.validate(json.loads(json.dumps(full)), b.RESULT_SCHEMA)
    schema_file = Path(__file__).resolve().parents[5] / "roles" / "horovod_benchmark" / "files" / "result.schema.json"
    assert json.loads(schema_file.read_text()) == json.loads(json.dumps(b.RESULT_SCHEMA))


@pytest.mark.parametrize(
    "mutate, expect",
    [
        (lambda d: d.pop("summary"), "missing required key 'summary'"),
        (lambda d: d.update(schema_version=2), "not in [1]"),
        (lambda d: d["allreduce"]["horovod"][0].update(busbw_Bps=-1.0), "minimum"),
        (lambda d: d["runs"][0].update(workers="2"), "expected integer"),
        (lambda d: d["scaling"][0].update(efficiency="high"), "expected number/null"),
    ],
)
def test_schema_rejects(mutate, expect):
    doc = b.combine(synthetic_runs(), run_id="r")
    bad = copy.deepcopy(doc)
    mutate(bad)
    errs = b.schema_errors(bad)
    assert any(expect in e for e in errs), errs


def test_load_result_refuses_other_version():
    doc = b.combine(synthetic_runs(), run_id="r")
    assert b.load_result(json.dumps(doc))["run_id"] == "r"
    doc["schema_version"] = 2
    with pytest.raises(b.BenchmarkError, match="schema_version 2 is not supported"):
        b.load_result(json.dumps(doc))


# ----------------------------------------------------------------- rendering
def test_markdown_and_summary():
    doc = b.combine(
        synthetic_runs(),
        run_id="r9",
        generated_at="2026-01-01T00:00:00Z",
        tuning={"horovod_benchmark_fusion_threshold_mb": 64},
    )
    md = r.render_markdown(doc, ["/x/busbw.png"])
    assert md.startswith("# Horovod cluster benchmark r9")
    assert "| 64 MiB | 200.000 / 220.000 ms |" in md
    assert "| 3 | smallconvnet | cpu | 240.0 | 80.0 | 0.80 |" in md
    assert "| horovod_benchmark_fusion_threshold_mb | 64 |" in md
    assert "![busbw.png](busbw.png)" in md
    assert "training ran on the CPU" in md
    lines = r.summary_table(doc)
    assert lines[0].split() == ["size", "hvd", "Gbit/s", "peer", "Gbit/s", "ratio", "(p10-p90)", "link", "frac"]
    assert any(line.startswith("64 MiB") and "0.80" in line for line in lines)
    assert "every rank reported: True" in lines[-1]


def test_write_report_writes_png(tmp_path):
    pytest.importorskip("matplotlib")
    doc = b.combine(synthetic_runs(), link={"n2": {"end": {"sum_received": {"bits_per_second": 8e9}}}}, run_id="r")
    paths = r.write_report(doc, str(tmp_path))
    assert [Path(p).name for p in paths["plots"]] == ["busbw.png", "scaling.png"]
    for p in paths["plots"]:
        assert Path(p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b.load_result(Path(paths["result"]).read_text())["run_id"] == "r"
    assert "busbw.png" in Path(paths["report"]).read_text()


def test_write_report_without_plots(tmp_path):
    doc = b.combine(synthetic_runs(), run_id="r")
    paths = r.write_report(doc, str(tmp_path), plots=False)
    assert paths["plots"] == []
    assert not (tmp_path / "busbw.png").exists()


def test_missing_matplotlib_names_package(monkeypatch, tmp_path):
    real = builtins.__import__

    def fake(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(b.BenchmarkError, match="'matplotlib'"):
        pl.render_plots(b.combine(synthetic_runs(), run_id="r"), str(tmp_path))


# -------------------------------------------------------------------- TensorFlow
def test_tensorflow_runs_combine_with_the_strategy_as_peer():
    """Real documents of --framework tensorflow: Horovod vs MultiWorkerMirroredStrategy, Keras training."""
    runs = [
        {"source": name, "doc": load("tensorflow/" + name)} for name in ("run-hvd-np2.json", "run-tensorflow-np2.json")
    ]
    doc = b.combine(runs, run_id="tf")
    assert b.schema_errors(doc) == []
    assert doc["summary"]["framework"] == "tensorflow"
    assert doc["summary"]["every_rank_reported"] is True
    assert doc["summary"]["correct"] is True
    assert doc["allreduce"]["peer_library"] == "tf.distribute.MultiWorkerMirroredStrategy/ring"
    assert [r["bytes"] for r in doc["allreduce"]["peer"]] == [4096, 65536, 1048576]
    assert all(c["ratio"] is not None for c in doc["comparison"])
    assert {r["framework"] for r in doc["runs"]} == {"tensorflow"}
    assert {r["framework_version"] for r in doc["runs"]} == {"2.15.1"}
    assert doc["scaling"][0]["workers"] == 2
    md = r.render_markdown(doc)
    assert "Framework: **TensorFlow 2.15.1**" in md
    assert "MultiWorkerMirroredStrategy/ring" in md
    assert any("framework tensorflow" in line for line in r.summary_table(doc))


def test_pytorch_documents_without_the_framework_field_stay_pytorch():
    runs = [{"source": name, "doc": load(name)} for name in ("run-hvd-np2.json", "run-torch-np2.json")]
    for run in runs:
        run["doc"].pop("framework", None)
    doc = b.combine(runs, run_id="old")
    assert doc["summary"]["framework"] == "pytorch"
    assert "Framework: **PyTorch 2.13.0+cpu**" in r.render_markdown(doc)


# ------------------------------------------------------- plain-framework baseline
def plain_doc(samples_per_s, model="smallconvnet", device="cpu"):
    """A --mode plain document of the shape hvd_benchmark.py writes (one process, no Horovod)."""
    return {
        "program_version": 1,
        "mode": "plain",
        "tag": "plain",
        "size": 1,
        "device": device,
        "library": "torch",
        "ranks": [{"rank": 0, "hostname": "n1"}],
        "training": {
            "model": model,
            "device": device,
            "samples_per_s_total": samples_per_s,
            "samples_per_s_per_worker": samples_per_s,
            "ranks_reported": 1,
        },
    }


def test_overhead_ratio_is_horovod_at_one_worker_over_plain():
    doc = b.combine([*synthetic_runs(), plain_doc(125.0)], run_id="r")
    # Horovod 1 worker: 100 samples/s; plain: 125 samples/s
    assert doc["overhead"]["plain_samples_per_s"] == pytest.approx(125.0)
    assert doc["overhead"]["horovod_1_samples_per_s"] == pytest.approx(100.0)
    assert doc["overhead"]["overhead_ratio"] == pytest.approx(0.8)
    assert doc["overhead"]["comparable"] is True
    assert doc["summary"]["overhead_ratio"] == pytest.approx(0.8)
    # the plain run is neither a peer baseline nor a scaling point
    assert doc["allreduce"]["peer_library"] == "torch.distributed/gloo"
    assert [s["workers"] for s in doc["scaling"]] == [1, 2, 3]
    assert doc["summary"]["every_rank_reported"] is True
    assert b.schema_errors(doc) == []
    md = r.render_markdown(doc)
    assert "## Horovod overhead at one worker" in md
    assert "| **overhead ratio** (Horovod / plain) | **0.80** |" in md
    assert any(line.startswith("Horovod overhead at one worker: 0.80") for line in r.summary_table(doc))


def test_one_worker_goal_from_the_median_steps_with_their_spread():
    # one slow plain step (the machine's noise) drags its mean: 8 steps of 0.25 s and one of 0.75 s, against Horovod's
    # 9 steps of 0.26 s; by samples/s Horovod looks faster, by the median steps it is 0.25 / 0.26 = 0.96
    runs = synthetic_runs()
    runs[0]["training"]["step_s"] = [0.26] * 9
    plain = plain_doc(125.0)
    plain["training"]["step_s"] = [0.25] * 8 + [0.75]
    doc = b.combine([*runs, plain], run_id="r")
    over = doc["overhead"]
    assert over["steps"] == [9, 9]
    assert over["step_ratio_median"] == pytest.approx(0.25 / 0.26)
    # 81 pairs: 72 of 0.25/0.26 and 9 of 0.75/0.26; nearest rank 10 and 90
    assert over["step_ratio_p10"] == pytest.approx(0.25 / 0.26)
    assert over["step_ratio_p90"] == pytest.approx(0.75 / 0.26)
    assert over["overhead_ratio"] == pytest.approx(0.8)  # the runs' means, as before
    goal = {g["name"]: g for g in doc["summary"]["goals"]}["Horovod at one worker / plain framework"]
    assert (goal["basis"], goal["met"], goal["within_spread"]) == ("median step", True, False)
    assert goal["value"] == pytest.approx(0.25 / 0.26)
    assert b.schema_errors(doc) == []
    line = next(x for x in r.goal_lines(doc) if x.startswith("Horovod at one worker"))
    assert line == "Horovod at one worker / plain framework >= 0.95: 0.96 (median steps, p10-p90 0.96-2.88), met"
    row = "| **median step ratio** (plain / Horovod step time; p10-p90 of every pair of steps) | **0.96** (0.96-2.88) |"
    assert row in r.render_markdown(doc)
    # a goal inside the steps' spread is said to be within the noise
    runs[0]["training"]["step_s"] = [0.2, 0.3, 0.28, 0.27, 0.26]
    goal = {g["name"]: g for g in b.combine([*runs, plain], run_id="r")["summary"]["goals"]}[goal["name"]]
    assert goal["value"] == pytest.approx(0.25 / 0.27) and goal["within_spread"] is True and goal["met"] is False
    # without step times in one of the runs (Keras, an earlier program): the runs' samples/s, no spread
    del runs[0]["training"]["step_s"]
    goal = {g["name"]: g for g in b.combine([*runs, plain], run_id="r")["summary"]["goals"]}[goal["name"]]
    assert (goal["basis"], goal["p10"], goal["within_spread"]) == ("samples/s", None, False)
    assert goal["value"] == pytest.approx(0.8)


def test_one_worker_rounds_pool_every_plain_and_every_round_s_horovod_process():
    # horovod_benchmark_plain_rounds 2: plain-r1, overhead-hvd-r1, overhead-hvd-r2, plain-r2 (ABBA), each a process; the
    # scaling run at one worker (100 samples/s, steps of 0.5 s: after its sweep) is a scaling point only
    runs = synthetic_runs()
    runs[0]["training"]["step_s"] = [0.5] * 4
    rounds = []
    for n, (plain_sps, plain_step, hvd_sps, hvd_step) in enumerate(
        [(120.0, 0.26, 110.0, 0.27), (100.0, 0.30, 90.0, 0.32)]
    ):
        plain = plain_doc(plain_sps)
        plain["tag"] = f"plain-r{n + 1}"
        plain["training"]["step_s"] = [plain_step] * 4
        hvd = run_doc("horovod", 1, [], training=hvd_sps, tag=f"overhead-hvd-r{n + 1}")
        hvd["training"]["step_s"] = [hvd_step] * 4
        rounds += [plain, hvd] if n == 0 else [hvd, plain]
    doc = b.combine([*runs, *rounds], run_id="r")
    over = doc["overhead"]
    assert over["runs"] == [2, 2] and over["steps"] == [8, 8]
    assert over["plain_samples_per_s"] == pytest.approx(110.0)  # the runs' mean
    assert over["horovod_1_samples_per_s"] == pytest.approx(100.0)
    assert over["overhead_ratio"] == pytest.approx(100.0 / 110.0)
    # medians of the pooled steps: plain 0.26 x4, 0.30 x4 -> 0.28; Horovod 0.27 x4, 0.32 x4 -> 0.295
    assert over["step_ratio_median"] == pytest.approx(0.28 / 0.295)
    # 64 pairs; nearest rank 10: 0.26 / 0.32, 90: 0.30 / 0.27
    assert over["step_ratio_p10"] == pytest.approx(0.26 / 0.32)
    assert over["step_ratio_p90"] == pytest.approx(0.30 / 0.27)
    # the rounds' Horovod runs are not scaling points: one worker stays the scaling run's 100 samples/s
    assert [(s["workers"], s["samples_per_s_total"]) for s in doc["scaling"]] == [(1, 100.0), (2, 180.0), (3, 240.0)]
    assert b.schema_errors(doc) == []
    assert "at one worker and with the framework alone (2 and 2 runs, each a process" in r.render_markdown(doc)
    # a round's run of another model makes the comparison not comparable
    rounds[3]["training"]["model"] = "resnet50"
    assert b.combine([*runs, *rounds], run_id="r")["overhead"]["comparable"] is False


def test_overhead_without_a_one_worker_run_or_with_another_model():
    doc = b.combine([*synthetic_runs()[1:], plain_doc(125.0)], run_id="r")
    assert doc["overhead"]["overhead_ratio"] is None
    assert doc["summary"]["overhead_ratio"] is None
    assert "no one-worker Horovod run" in r.render_markdown(doc)
    other = b.combine([*synthetic_runs(), plain_doc(125.0, model="resnet50")], run_id="r")
    assert other["overhead"]["comparable"] is False
    assert "NOT the same model" in r.overhead_line(other)


def test_results_without_plain_run_nodes_or_nccl_tests_stay_valid():
    doc = b.combine(synthetic_runs(), run_id="old")
    assert doc["overhead"] is None and doc["nccl_tests"] is None and doc["nodes"] == []
    assert doc["summary"]["shared_machines"] == []
    # a result.json written before these sections existed still loads
    for key in ("overhead", "nccl_tests", "nodes"):
        doc.pop(key)
    for key in ("shared_machines", "overhead_ratio", "ratio_nccl_tests_large"):
        doc["summary"].pop(key)
    assert b.load_result(json.dumps(doc))["run_id"] == "old"
    assert "## Nodes" not in r.render_markdown(doc)


def test_real_plain_document_combines():
    runs = [
        {"source": name, "doc": load(name)} for name in ("run-hvd-np2.json", "run-torch-np2.json", "run-plain.json")
    ]
    doc = b.combine(runs, run_id="fixture")
    plain = next(run for run in doc["runs"] if run["mode"] == "plain")
    assert plain["workers"] == 1 and plain["library"] == "torch"
    assert doc["overhead"]["plain_samples_per_s"] == pytest.approx(
        load("run-plain.json")["training"]["samples_per_s_total"]
    )
    # the fixtures' Horovod runs trained nothing (--no-training): no ratio
    assert doc["overhead"]["horovod_1_samples_per_s"] is None
    assert doc["summary"]["every_rank_reported"] is True
    assert b.schema_errors(doc) == []


# ------------------------------------------------------------------- nodes
def test_node_entries_from_gpu_facts_boot_ids_and_topology():
    h100 = load("gpu_facts-h100.json")
    hosts = [{"name": "gpu1", "hostname": "gpu1"}, {"name": "cpu1", "hostname": "cpu1"}, {"name": "gpu2"}]
    nodes = b.node_entries(
        hosts,
        gpus={"gpu1": h100, "gpu2": h100},
        boot_ids={"gpu1": "0b6a61c6-2a9c-4f0e-9c55-4d3c1bb4e9d1\n", "cpu1": "1d3f"},
        topo={
            "gpu1": {"rc": 0, "stdout": "\tGPU0\tCPU Affinity\nGPU0\t X \t0-25\n", "stderr": ""},
            "gpu2": {"rc": 9, "stdout": "", "stderr": "NVIDIA-SMI has failed because it couldn't communicate"},
        },
    )
    gpu1, cpu1, gpu2 = nodes
    assert gpu1["gpu_models"] == ["NVIDIA H100 80GB HBM3"] and gpu1["gpu_count"] == 1
    assert (gpu1["driver_version"], gpu1["cuda_driver_version"]) == ("580.159.04", "13.0")
    assert gpu1["boot_id"] == "0b6a61c6-2a9c-4f0e-9c55-4d3c1bb4e9d1"
    assert gpu1["topo"].startswith("\tGPU0") and gpu1["topo_error"] is None
    assert (cpu1["gpu_count"], cpu1["topo"], cpu1["topo_error"]) == (0, None, None)
    assert gpu2["hostname"] == "gpu2" and gpu2["boot_id"] is None
    assert gpu2["topo"] is None
    assert (
        gpu2["topo_error"] == "nvidia-smi topo -m failed (rc 9): NVIDIA-SMI has failed because it couldn't communicate"
    )


@pytest.mark.parametrize(
    ("boot_ids", "groups"),
    [
        ({"n1": "a", "n2": "a", "n3": "a"}, [["n1", "n2", "n3"]]),
        ({"n1": "a", "n2": "b", "n3": "a"}, [["n1", "n3"]]),
        ({"n1": "a", "n2": "b", "n3": "c"}, []),
        ({"n1": "a", "n2": None, "n3": None}, []),  # unknown boot ids are no evidence
    ],
)
def test_shared_machines_group_by_boot_id(boot_ids, groups):
    nodes = [{"name": n, "boot_id": boot_ids[n]} for n in ("n1", "n2", "n3")]
    assert b.shared_machines(nodes) == groups


def test_shared_machine_is_flagged_in_summary_and_report():
    hosts = [{"name": f"node-{i}", "hostname": f"n{i}"} for i in (1, 2, 3)]
    nodes = b.node_entries(hosts, boot_ids={"node-1": "same", "node-2": "same", "node-3": "same"})
    doc = b.combine(synthetic_runs(), nodes=nodes, run_id="r")
    assert doc["summary"]["shared_machines"] == [["node-1", "node-2", "node-3"]]
    assert b.schema_errors(doc) == []
    md = r.render_markdown(doc)
    warning = "nodes node-1, node-2, node-3 share one kernel (the same boot id)"
    head = md.partition("## Allreduce")[0]
    assert warning in head  # prominent: among the first lines
    training = md[md.index("## Training throughput") : md.index("| workers | nodes |")]
    assert "Contention, not scaling" in training and warning in training
    assert any(line.startswith("WARNING: " + warning) for line in r.summary_table(doc))
    # the ranks ran on n1..n3 (synthetic_runs' hostnames): the scaling table says how many nodes each count spanned
    assert [s["nodes"] for s in doc["scaling"]] == [1, 2, 3]
    assert "| 3 | 3 | smallconvnet | cpu | 240.0 | 80.0 | 0.80 |" in md


def test_nodes_section_has_gpus_versions_and_topology():
    h100 = load("gpu_facts-h100.json")
    topo = "\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \t0-25\t0\t\tN/A"
    nodes = b.node_entries(
        [{"name": "gpu1", "hostname": "n1"}, {"name": "gpu2", "hostname": "n2"}],
        gpus={"gpu1": h100, "gpu2": h100},
        boot_ids={"gpu1": "0b6a61c6-2a9c", "gpu2": "77d0f3aa-1111"},
        topo={"gpu1": {"rc": 0, "stdout": topo}, "gpu2": {"rc": 2, "msg": "[Errno 2] No such file or directory"}},
    )
    runs = synthetic_runs()
    for run in runs:
        for rank in run["ranks"]:
            rank.update(cuda="13.0", nccl="2.28.9", gpu="NVIDIA H100 80GB HBM3")
    doc = b.combine(runs, nodes=nodes, run_id="r")
    n1 = doc["nodes"][0]
    assert (n1["nccl"], n1["framework_cuda"]) == ("2.28.9", "13.0")
    assert doc["summary"]["shared_machines"] == []
    md = r.render_markdown(doc)
    assert "| gpu1 | NVIDIA H100 80GB HBM3 x 1 | 580.159.04 | 13.0 | 13.0 | 2.28.9 | 0b6a61c6 |" in md
    assert "### gpu1: nvidia-smi topo -m\n\n```\n" + topo + "\n```" in md
    assert "nvidia-smi topo -m failed (rc 2): [Errno 2] No such file or directory" in md
    assert "share one kernel" not in md


# ---------------------------------------------------------------- nccl-tests
NCCL_FIX = FIX / "nccl-tests" / "all_reduce_perf-2x8-h100.txt"


def test_parse_nccl_tests_real_two_node_output():
    out = b.parse_nccl_tests(NCCL_FIX.read_text(), "raw/nccl-tests-all_reduce_perf.txt")
    assert out["ranks"] == 16
    assert out["hosts"] == ["ztan-mig-235z", "ztan-mig-gq73"]
    assert out["gpus"] == ["NVIDIA H100 80GB HBM3"]
    assert out["avg_busbw_GBps"] == pytest.approx(70.742)
    assert out["out_of_bounds"] == 0 and out["correct"] is True and out["problems"] == []
    rows = out["rows"]
    assert [row["bytes"] for row in rows] == [8 * 2**i for i in range(31)]  # -b 8 -e 8G -f 2
    first, big = rows[0], rows[-1]
    assert (first["count"], first["type"], first["redop"], first["root"]) == (2, "float", "sum", -1)
    assert first["out_of_place"] == {"time_us": 135.8, "algbw_GBps": 0.0, "busbw_GBps": 0.0, "wrong": 0}
    # times of five digits print without decimals: 47535 us
    assert big["out_of_place"] == {"time_us": 47535.0, "algbw_GBps": 180.71, "busbw_GBps": 338.82, "wrong": 0}
    assert big["in_place"] == {"time_us": 47743.0, "algbw_GBps": 179.92, "busbw_GBps": 337.35, "wrong": 0}
    # busbw = algbw x 2(n-1)/n with n = 16 ranks (nccl-tests' own convention, the same as the combiner's)
    for row in rows[-8:]:
        side = row["out_of_place"]
        assert side["busbw_GBps"] == pytest.approx(side["algbw_GBps"] * b.bus_factor(16), abs=0.02)


def test_parse_nccl_tests_with_what_mpirun_mixes_in():
    """The real output framed as nccl-tests 2.19.6 prints it, through mpirun --tag-output, with NCCL and MPI lines."""
    lines = NCCL_FIX.read_text().splitlines()
    framed = [
        "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809",
        "# Collective test starting: all_reduce_perf",
        *lines[:25],
        "ztan-mig-235z:6899:6899 [0] NCCL INFO Bootstrap : Using enp0s12:10.0.0.2<0>",
        "8 more processes have sent help message help-mtl-ofi.txt / OFI call fail",
        *("[1,0]<stdout>:" + line for line in lines[25:]),
        "# Collective test concluded: all_reduce_perf",
    ]
    out = b.parse_nccl_tests("\n".join(framed))
    assert (out["program"], out["version"], out["nccl_version"]) == ("all_reduce_perf", "2.19.6", "2.28.9")
    assert len(out["rows"]) == 31
    assert out["avg_busbw_GBps"] == pytest.approx(70.742)


def test_parse_nccl_tests_flags_wrong_results_and_unconnected_processes():
    text = NCCL_FIX.read_text()
    wrong = text.replace("338.82      0", "338.82      3").replace(
        "Out of bounds values : 0 OK", "Out of bounds values : 3 FAILED"
    )
    out = b.parse_nccl_tests(wrong)
    assert out["correct"] is False
    assert out["problems"] == ["3 wrong elements", "3 out-of-bounds values"]
    # nccl-tests without MPI=1 under mpirun: every process runs alone and prints its own table
    twice = b.parse_nccl_tests(text + "\n" + text)
    assert twice["correct"] is False
    assert "2 separate results" in twice["problems"][0]


def test_parse_nccl_tests_older_layout_and_not_available_checks():
    # nccl-tests before the root column (2019, issue-era layout), and -c 0 (no check: N/A)
    text = "\n".join(
        [
            "#       size     count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
            "     1048576    262144   float     sum    162.1    6.47    5.66    N/A    162.0    6.47    5.66    N/A",
            "# Out of bounds values : 0 OK",
            "# Avg bus bandwidth    : 5.66",
        ]
    )
    out = b.parse_nccl_tests(text)
    row = out["rows"][0]
    assert (row["redop"], row["root"]) == ("sum", None)
    assert row["out_of_place"] == {"time_us": 162.1, "algbw_GBps": 6.47, "busbw_GBps": 5.66, "wrong": None}
    assert out["correct"] is True


@pytest.mark.parametrize("bad", ["", "mpirun was unable to launch the specified application", "# Using devices\n#"])
def test_parse_nccl_tests_without_rows_names_the_source(bad):
    with pytest.raises(b.BenchmarkError, match=r"nccl-tests output raw/x\.txt has no result rows"):
        b.parse_nccl_tests(bad, "raw/x.txt")


@pytest.mark.parametrize(
    ("code", "text"), [(22809, "2.28.9"), (21805, "2.18.5"), (2708, "2.7.8"), (0, None), ("x", None)]
)
def test_nccl_version_text(code, text):
    assert b.nccl_version_text(code) == text


def test_horovod_is_compared_with_nccl_tests_at_the_large_sizes():
    # Horovod at 3 workers: 64 MiB in 0.2 s -> busbw 64 MiB / 0.2 x 4/3 = 447392426.7 B/s
    doc = b.combine(synthetic_runs(), nccl_tests={"source": "raw/n.txt", "text": NCCL_FIX.read_text()}, run_id="r")
    big = next(c for c in doc["comparison"] if c["bytes"] == 64 * MIB)
    # synthetic runs reduce out of place (no options.inplace): nccl-tests' out-of-place 99.74 GB/s
    assert big["nccl_tests_busbw_Bps"] == pytest.approx(99.74e9)
    assert big["nccl_tests_ratio"] == pytest.approx(64 * MIB / 0.2 * 4 / 3 / 99.74e9)
    assert doc["summary"]["ratio_nccl_tests_large"] == pytest.approx(big["nccl_tests_ratio"])
    assert doc["summary"]["nccl_tests_avg_busbw_GBps"] == pytest.approx(70.742)
    assert doc["nccl_tests"]["source"] == "raw/n.txt"
    assert b.schema_errors(doc) == []
    md = r.render_markdown(doc)
    assert "## nccl-tests all_reduce_perf (16 ranks on ztan-mig-235z, ztan-mig-gq73)" in md
    assert "| 64 MiB | 1261.6 / 1270.2 | 99.74 / 99.06 | 0.45 | 0.00 |" in md
    assert "nccl-tests at 16 ranks: the ratio compares different worker counts" in md
    # an in-place Horovod sweep is held against nccl-tests' in-place figures
    runs = synthetic_runs()
    runs[2]["options"] = {"inplace": True}
    inplace = b.combine(runs, nccl_tests=NCCL_FIX.read_text(), run_id="r")
    big = next(c for c in inplace["comparison"] if c["bytes"] == 64 * MIB)
    assert big["nccl_tests_busbw_Bps"] == pytest.approx(99.06e9)


# --- the lent GPU server (fixtures/benchmark/h200, README): one NVIDIA H200, PyTorch 2.11.0+cu130, NCCL 2.28.9 ---
H200 = FIX / "h200"


def h200_runs():
    return [
        json.loads((H200 / name).read_text()) for name in ("run-hvd-np1.json", "run-torch-np1.json", "run-plain.json")
    ]


def test_h200_nccl_tests_output_and_nccl_info_lines_mixed_in():
    """nccl-tests 2.19.6 on one H200 (NCCL of the torch wheel), then the same with NCCL's INFO log of that run put
    between its lines (as NCCL_DEBUG=INFO without NCCL_DEBUG_FILE prints them): the same result."""
    text = (H200 / "nccl-tests-all_reduce_perf.txt").read_text()
    out = b.parse_nccl_tests(text)
    assert (out["program"], out["version"], out["nccl_version"]) == ("all_reduce_perf", "2.19.6", "2.28.9")
    assert (out["ranks"], out["hosts"], out["gpus"]) == (1, ["vm"], ["NVIDIA H200"])
    assert [r["bytes"] for r in out["rows"]] == [8 * 2**k for k in range(26)]  # 8 B .. 256 MiB
    assert out["correct"] is True and out["out_of_bounds"] == 0
    # one rank: bus bandwidth 0 by definition; the algorithm bandwidth is the GPU's own copy
    assert out["avg_busbw_GBps"] == 0.0
    assert out["rows"][-1]["out_of_place"]["algbw_GBps"] > 1000
    info = (H200 / "nccl-info-all_reduce_perf.log").read_text().splitlines()
    assert any("NCCL INFO NCCL version 2.28.9+cuda13.0" in x for x in info)
    lines = text.splitlines()
    mixed = b.parse_nccl_tests("\n".join([*lines[:6], *info, *lines[6:]]))
    assert mixed["rows"] == out["rows"] and mixed["correct"] is True


def test_h200_result_validates_recombines_and_says_what_one_worker_means():
    jsonschema = pytest.importorskip("jsonschema")
    doc = b.load_result((H200 / "result.json").read_text())
    jsonschema.validate(doc, b.RESULT_SCHEMA)
    s = doc["summary"]
    assert (s["device"], s["workers_max"], s["correct"]) == ("cuda", 1, True)
    assert s["overhead_ratio"] == pytest.approx(1997.9 / 1999.4, abs=5e-4)
    assert [n["gpu_models"] for n in doc["nodes"]] == [["NVIDIA H200"]]
    # the program documents and nccl-tests' output of that run give the same figures here
    again = b.combine(h200_runs(), nccl_tests=(H200 / "nccl-tests-all_reduce_perf.txt").read_text(), run_id="r")
    for key in ("device", "correct", "ratio_large", "overhead_ratio", "ratio_nccl_tests_large"):
        assert again["summary"][key] == s[key], key
    # one worker: the ratio is of times (torch.distributed/nccl's 0.06 ms against Horovod's 1.2 ms, about its 1 ms
    # cycle time), and the report says so instead of calling it a bus bandwidth ratio
    assert s["ratio_large"] == pytest.approx(0.05, abs=0.01)
    md = r.render_markdown(doc)
    assert "Horovod / torch.distributed/nccl allreduce speed at >= 64 MiB (1 workers): **0.05**" in md
    assert "with one worker bus bandwidth is zero by definition" in md
    assert "one rank: its bus bandwidth is zero by definition" in md
    assert "Horovod overhead at one worker: **1.00**" in md
    assert "hvd/peer time ratio (1 worker) >=64MiB: 0.05" in "\n".join(r.summary_table(doc))


def test_h100_result_of_main_validates_recombines_and_has_the_health_section():
    """The check on the second lent machine (fixtures/benchmark/h100, one H100 80GB HBM3): a result.json written by
    the role at main 8b13c50, after the per-worker-count runs and the partial report landed."""
    jsonschema = pytest.importorskip("jsonschema")
    h100 = FIX / "h100"
    doc = b.load_result((h100 / "result.json").read_text())
    jsonschema.validate(doc, b.RESULT_SCHEMA)
    s = doc["summary"]
    assert (s["device"], s["workers_max"], s["correct"], s["partial"]) == ("cuda", 1, True, False)
    assert s["overhead_ratio"] == pytest.approx(1713.1 / 1718.9, abs=5e-4)
    assert [n["gpu_models"] for n in doc["nodes"]] == [["NVIDIA H100 80GB HBM3"]]
    assert doc["nodes"][0]["health"] == {"before": "ok", "after": "ok", "findings": [], "new_xids": []}
    runs = [json.loads((h100 / n).read_text()) for n in ("run-hvd-np1.json", "run-torch-np1.json", "run-plain.json")]
    again = b.combine(runs, nccl_tests=(h100 / "nccl-tests-all_reduce_perf.txt").read_text(), run_id="r")
    for key in ("device", "correct", "ratio_large", "overhead_ratio"):
        assert again["summary"][key] == s[key], key
    md = r.render_markdown(doc)
    assert "Horovod overhead at one worker: **1.00** (Horovod 1713.1 / plain torch 1718.9 samples/s)" in md
    assert "## Node health" in md
    # the report the role wrote there is what the report code renders from its result.json here, but for what
    # the paired comparison changed since (issue 37): the ratio column's header and the sentence saying what the
    # ratio is (that result has no goals: it predates them)
    written = (h100 / "report.md").read_text().rstrip("\n")
    written = written.replace("| ratio | Horovod / link |", "| ratio (p10-p90) | Horovod / link |")
    # and the health section's sentence, which names the RDMA ports judged since (issue 33)
    written = written.replace(
        "gpucluster.horovod.node_health on every GPU node before and after the runs (XIDs, ECC, row remapping, PCIe "
        "link, slowdown, NVLink, Fabric Manager).",
        "Before and after the runs: gpucluster.horovod.node_health on every GPU node (XIDs, ECC, row remapping, PCIe "
        "link, slowdown, NVLink, Fabric Manager) and the RDMA ports of every node with a fabric (fabric_facts: a port "
        "that is not usable).",
    )
    unpaired = "Ratio = Horovod / peer (> 1: Horovod faster), from two separate runs' medians: no spread measured."
    written = re.sub(r"(\nBus bandwidth = size / time[^\n]*\n)", lambda m: m.group(1) + unpaired + "\n", written)
    assert md.rstrip("\n") == written


def test_node_health_around_the_runs_finds_an_xid_logged_during_them():
    before = json.loads((H200 / "node_health-vm.json").read_text())  # the H200's real result: ok, no XID
    assert (before["status"], before["xids"]) == ("ok", [])
    assert b.node_health(None, None) is None
    same = b.node_health(before, before)
    assert same == {"before": "ok", "after": "ok", "findings": [], "new_xids": []}
    # the same node after a run during which its GPU fell off the bus (the documented XID 79 line)
    log = (FIX.parent / "node_health" / "kern_xid79.txt").read_text()
    xids = nh.parse_xids(log)
    after = {
        "status": "fail",
        "xids": xids,
        "checks": [
            *before["checks"],
            {
                "name": "xid_hardware",
                "status": "fail",
                "reason": "hardware-class XIDs since boot: XID 79 on 0000:3b:00 (GPU has fallen off the bus)",
            },
        ],
    }
    h = b.node_health(before, after)
    assert (h["before"], h["after"]) == ("ok", "fail")
    assert h["new_xids"] == ["XID 79 on 0000:3b:00 (GPU has fallen off the bus)"]
    assert h["findings"] == [
        "xid_hardware: hardware-class XIDs since boot: XID 79 on 0000:3b:00 (GPU has fallen off the bus)"
    ]
    # an XID already in the log before the runs is not new
    assert b.node_health(after, after)["new_xids"] == []


def test_the_report_has_a_node_health_section_and_warns_about_a_bad_node():
    jsonschema = pytest.importorskip("jsonschema")
    before = json.loads((H200 / "node_health-vm.json").read_text())
    hosts = [{"name": "vm", "hostname": "vm"}, {"name": "n2", "hostname": "n2"}, {"name": "cpu1"}]
    after_n2 = {
        "status": "fail",
        "checks": [{"name": "xid_hardware", "status": "fail", "reason": "XID 79 ..."}],
        "xids": [{"pci": "0000:3b:00", "xid": 79, "meaning": "GPU has fallen off the bus", "detail": "x"}],
    }
    nodes = b.node_entries(
        hosts, health_before={"vm": before, "n2": before}, health_after={"vm": before, "n2": after_n2}
    )
    assert [n["health"] is None for n in nodes] == [False, False, True]  # cpu1 has no GPU: not judged
    doc = b.combine(h200_runs(), nodes=nodes, run_id="r")
    jsonschema.validate(json.loads(json.dumps(doc)), b.RESULT_SCHEMA)
    md = r.render_markdown(doc)
    assert "## Node health" in md
    assert "| vm | ok | ok | none | none |" in md
    assert "| n2 | ok | fail | XID 79 on 0000:3b:00 (GPU has fallen off the bus) | xid_hardware: XID 79 ... |" in md
    assert "- **node health**: n2 logged XID 79 on 0000:3b:00 (GPU has fallen off the bus) during the runs." in md
    assert any(line.startswith("WARNING: node health: n2 logged XID 79") for line in r.summary_table(doc))
    # a node whose RDMA port went down during the runs (ok before, the ports' warn after) is named too
    port_down = {
        "status": "warn",
        "checks": [{"name": "fabric_ports", "status": "warn", "reason": "RDMA port(s) not usable: mlx5_1:1 (Down)"}],
        "xids": [],
    }
    nodes = b.node_entries(hosts, health_before={"cpu1": {"status": "ok"}}, health_after={"cpu1": port_down})
    md = r.render_markdown(b.combine(h200_runs(), nodes=nodes, run_id="r"))
    assert "| cpu1 | ok | warn | none | fabric_ports: RDMA port(s) not usable: mlx5_1:1 (Down) |" in md
    assert (
        "- **node health**: cpu1 went from ok to warn during the runs (fabric_ports: RDMA port(s) not usable: "
        "mlx5_1:1 (Down))." in md
    )
    # without judged nodes there is no section and no warning
    plain = r.render_markdown(b.combine(h200_runs(), nodes=b.node_entries(hosts), run_id="r"))
    assert "Node health" not in plain and "node health" not in plain


def test_h200_second_run_reports_node_health_before_and_after():
    """The second check on the lent H200 (with the health gate and the report's health section): its result.json."""
    jsonschema = pytest.importorskip("jsonschema")
    doc = b.load_result((H200 / "result-run2.json").read_text())
    jsonschema.validate(doc, b.RESULT_SCHEMA)
    assert doc["nodes"][0]["health"] == {"before": "ok", "after": "ok", "findings": [], "new_xids": []}
    assert doc["summary"]["overhead_ratio"] == pytest.approx(0.9999, abs=5e-4)
    md = r.render_markdown(doc)
    assert "| vm | ok | ok | none | none |" in md and "**node health**" not in md


# --- what NCCL moved data with between the nodes (the role's transport, from the largest run's NCCL INFO lines) ---

_IB = {"network": "IB", "net_devices": ["mlx5_0:1/IB", "mlx5_1:1/IB"], "transports": ["NET/IB", "P2P"],
       "gdrdma": True, "inter_node": "IB"}  # fmt: skip
_SOCKET = {"network": "Socket", "net_devices": ["ens1f0np0:10.0.0.11<0>"], "transports": ["NET/Socket", "SHM"],
           "gdrdma": False, "inter_node": "Socket"}  # fmt: skip
_NONE = {"network": None, "net_devices": [], "transports": [], "gdrdma": False, "inter_node": None}


def _with_transport(transport):
    doc = b.combine(synthetic_runs(), transport=transport)
    assert not b.schema_errors(doc)
    return doc, r.render_markdown(doc), r.summary_table(doc)


def test_the_report_names_infiniband_with_gpudirect_rdma():
    doc, md, lines = _with_transport(dict(_IB, nodes=2, fabric="infiniband", read=True, problem=""))
    want = "NCCL between 2 nodes: verbs (NET/IB) over mlx5_0:1/IB, mlx5_1:1/IB, with GPUDirect RDMA; fabric infiniband"
    assert "- " + want in md.splitlines()
    assert want in lines
    assert doc["summary"]["transport_problem"] is None
    assert "does not count" not in md


def test_the_report_refuses_a_run_over_sockets_on_a_fabric():
    problem = "the fabric is roce with usable ports on every node, but NCCL moved data between the nodes over TCP"
    doc, md, lines = _with_transport(dict(_SOCKET, nodes=2, fabric="roce", read=True, problem=problem))
    assert "- NCCL between 2 nodes: TCP sockets (NET/Socket) over ens1f0np0:10.0.0.11<0>; fabric roce" in md
    assert "- **the fabric was not used, the run does not count**: " + problem + "." in md
    assert doc["summary"]["transport_problem"] == problem
    assert "WARNING: the run does not count: " + problem in lines


def test_the_report_says_a_cpu_run_used_no_nccl_and_when_it_could_not_read():
    _doc, md, _lines = _with_transport(dict(_NONE, nodes=2, fabric="none", read=True, problem=""))
    assert "NCCL not used: no NCCL channel in the log (the allreduce went through Gloo or MPI: a CPU run)" in md
    _doc, md, _lines = _with_transport(dict(_NONE, nodes=2, fabric="none", read=False, problem=""))
    assert "NCCL's transport not read (NCCL_DEBUG is set in horovod_benchmark_env_extra)" in md
    # one node: the channels go through P2P or SHM, no network
    _doc, md, _lines = _with_transport(dict(_IB, transports=["P2P"], inter_node=None, nodes=1, read=True))
    assert "NCCL within one node: P2P (no network between nodes in this run)" in md
    # no transport given (an older role): no line
    assert r.transport_line(b.combine(synthetic_runs())) is None


# The link limit (issue 32): the fabric's port rate where NCCL moved the data over it, else iperf3's IP path, and with a
# fabric the other figure beside it; without a fabric the report reads as before.
_IPERF_8G = {"n2": {"end": {"sum_received": {"bits_per_second": 8e9}}}}


def _with_link(transport):
    doc = b.combine(synthetic_runs(), link=_IPERF_8G, transport=transport)
    assert not b.schema_errors(doc)
    return doc, r.render_markdown(doc)


def test_the_link_limit_is_the_fabric_port_rate_where_nccl_used_the_fabric(tmp_path):
    doc, md = _with_link(dict(_IB, nodes=2, fabric="infiniband", read=True, problem="", fabric_rate_gbps=200.0))
    s = doc["summary"]
    assert (s["link_source"], s["link_Bps"], s["ip_link_Bps"]) == ("fabric", pytest.approx(25e9), pytest.approx(1e9))
    assert s["fabric_link_Bps"] == pytest.approx(25e9)
    big = doc["comparison"][-1]
    assert big["horovod_link_fraction"] == pytest.approx(big["horovod_busbw_Bps"] / 25e9)
    assert (
        "- link limit (fabric port rate, infiniband, slowest usable port): 200.00 Gbit/s - the path NCCL used; "
        "IP path (iperf3, slowest node): 8.00 Gbit/s" in md.splitlines()
    )
    fig = pl.busbw_figure(doc, pytest.importorskip("matplotlib.pyplot"))
    assert "link (fabric port rate)" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_a_run_beside_the_fabric_is_held_against_iperf3_and_names_the_fabric():
    # a CPU run (Gloo, no NCCL) and a run that fell back to sockets: the data took the IP path
    for used in (_NONE, _SOCKET):
        doc, md = _with_link(dict(used, nodes=2, fabric="infiniband", read=True, problem="", fabric_rate_gbps=200.0))
        s = doc["summary"]
        assert (s["link_source"], s["link_Bps"]) == ("iperf3", pytest.approx(1e9))
        assert s["fabric_link_Bps"] == pytest.approx(25e9)
        assert (
            "- link limit (iperf3, slowest node): 8.00 Gbit/s - the IP path this run took; the fabric's ports "
            "(infiniband, slowest usable port: 200.00 Gbit/s) were not its path (NCCL line below)" in md.splitlines()
        )


def test_without_a_fabric_the_link_limit_is_iperf3_as_before():
    for transport in (None, dict(_NONE, nodes=2, fabric="none", read=True, problem="", fabric_rate_gbps=None)):
        doc, md = _with_link(transport)
        assert (doc["summary"]["link_source"], doc["summary"]["fabric_link_Bps"]) == ("iperf3", None)
        assert "- link limit (iperf3, slowest node): 8.00 Gbit/s" in md.splitlines()
    doc = b.combine(synthetic_runs())  # no iperf3 result either
    assert (doc["summary"]["link_Bps"], doc["summary"]["link_source"]) == (None, None)
    assert not b.schema_errors(doc)


# Issue 39: a run that fails after others finished (a node lost mid-benchmark) still gives a report, marked partial.
def test_partial_document_keeps_the_finished_runs_and_names_the_failure(tmp_path):
    finished = [run_doc("horovod", 1, [(4096, 0.001), (64 * MIB, 0.05)], training=100.0, tag="hvd-np1")]
    failure = {
        "run": "hvd-np2",
        "task": "Run Horovod at each worker count",
        "lost_nodes": ["n2"],
        "error": "x" * 3000 + "\nConnection to n2 closed by remote host.",
    }
    doc = b.combine(finished, run_id="p1", generated_at="t", failure=failure)
    assert b.schema_errors(doc) == []
    assert doc["summary"]["partial"] is True
    assert doc["failure"]["run"] == "hvd-np2"
    assert doc["failure"]["lost_nodes"] == ["n2"]
    assert doc["failure"]["error"].endswith("closed by remote host.")
    assert len(doc["failure"]["error"]) <= 2003
    assert [x["tag"] for x in doc["runs"]] == ["hvd-np1"]
    line = r.failure_line(doc)
    assert line == (
        "PARTIAL: hvd-np2 failed (Run Horovod at each worker count); nodes lost: n2; kept the finished runs: hvd-np1"
    )
    assert line in r.summary_table(doc)
    paths = r.write_report(doc, str(tmp_path), plots=False)
    md = Path(paths["report"]).read_text()
    assert "**partial report**: " + line in md
    assert "closed by remote host." in md
    assert b.load_result(Path(paths["result"]).read_text())["failure"]["lost_nodes"] == ["n2"]


def test_complete_document_is_not_partial():
    doc = b.combine(synthetic_runs(), run_id="c")
    assert doc["failure"] is None and doc["summary"]["partial"] is False
    assert r.failure_line(doc) is None
    assert not any(x.startswith("PARTIAL") for x in r.summary_table(doc))


def test_failure_without_run_or_task_is_refused():
    with pytest.raises(b.BenchmarkError, match="run or the task"):
        b.failure_entry(error="boom")


def test_schema_rejects_a_failure_without_lost_nodes():
    doc = b.combine(synthetic_runs(), run_id="c", failure={"run": "hvd-np3", "task": "t"})
    assert b.schema_errors(doc) == []
    del doc["failure"]["lost_nodes"]
    assert any("lost_nodes" in e for e in b.schema_errors(doc))


# Issue 39: the elastic run (hvd_benchmark.py --mode elastic) in result.json and the report.
def elastic_doc():
    timeline = [
        {"t": 0.0, "event": "start", "workers": 2, "step": 0, "samples": 0},
        {"t": 1.0, "event": "commit", "workers": 2, "step": 5, "samples": 80},
        {"t": 3.0, "event": "commit", "workers": 2, "step": 15, "samples": 240},
        {"t": 9.5, "event": "reset", "workers": 1, "step": 15, "samples": 240},
        {"t": 10.0, "event": "commit", "workers": 1, "step": 20, "samples": 280},
        {"t": 45.0, "event": "commit", "workers": 1, "step": 370, "samples": 3080},
    ]
    return {
        "program_version": 1,
        "mode": "elastic",
        "tag": "elastic",
        "size": 1,
        "device": "cpu",
        "horovod": "0.28.1",
        "ranks": [{"rank": 0, "hostname": "n1"}],
        "started": "s",
        "finished": "f",
        "elastic": {
            "min_workers": 1,
            "max_workers": 2,
            "seconds": 45.0,
            "commit_steps": 5,
            "resets": 1,
            "workers_over_time": [
                {"t": 0.0, "workers": 2, "event": "start"},
                {"t": 9.5, "workers": 1, "event": "reset"},
            ],
            "final_workers": 1,
            "steps": 370,
            "samples": 3080,
            "elapsed_s": 45.0,
            "phases": [
                {"workers": 2, "from_s": 1.0, "to_s": 3.0, "samples_per_s": 80.0},
                {"workers": 1, "from_s": 10.0, "to_s": 45.0, "samples_per_s": 80.0},
            ],
            "before": {"workers": 2, "from_s": 1.0, "to_s": 3.0, "samples_per_s": 80.0},
            "after": {"workers": 1, "from_s": 10.0, "to_s": 45.0, "samples_per_s": 80.0},
            "timeline": timeline,
        },
    }


def test_the_elastic_run_is_reported_with_its_reset(tmp_path):
    doc = b.combine(synthetic_runs(), run_id="e", elastic={"source": "elastic.json", "doc": elastic_doc()})
    assert b.schema_errors(doc) == []
    e = doc["elastic"]
    assert (e["tag"], e["resets"], e["ranks_at_end"], e["source"], e["horovod"]) == (
        "elastic",
        1,
        1,
        "elastic.json",
        "0.28.1",
    )
    line = r.elastic_line(doc)
    assert line == (
        "elastic: 1 reset, workers 2 -> 1, 370 steps in 45.0 s; samples/s 80.0 at 2 workers before, 80.0 at 1 after"
    )
    assert line in r.summary_table(doc)
    md = Path(r.write_report(doc, str(tmp_path), plots=False)["report"]).read_text()
    assert "## Elastic training" in md and "- " + line in md
    assert "| 9.5 | reset | 1 |" in md and "| 10.0 | 45.0 | 1 | 80.0 |" in md
    # without an elastic run: no section, no line, null in the document
    plain = b.combine(synthetic_runs(), run_id="p")
    assert plain["elastic"] is None and r.elastic_line(plain) is None


def test_an_elastic_run_without_a_change_has_no_after():
    doc = elastic_doc()
    doc["elastic"].update(resets=0, after=None, workers_over_time=doc["elastic"]["workers_over_time"][:1])
    out = b.combine(synthetic_runs(), run_id="e", elastic=doc)
    assert r.elastic_line(out) == "elastic: 0 resets, workers 2, 370 steps in 45.0 s; samples/s 80.0 at 2 workers"


def test_a_document_that_is_not_an_elastic_run_is_refused():
    with pytest.raises(b.BenchmarkError, match="not an elastic run's document"):
        b.combine(synthetic_runs(), run_id="e", elastic={"source": "elastic.json", "doc": synthetic_runs()[0]})


def test_schema_rejects_an_elastic_run_without_resets():
    doc = b.combine(synthetic_runs(), run_id="e", elastic=elastic_doc())
    del doc["elastic"]["resets"]
    assert any("resets" in err for err in b.schema_errors(doc))


# Issue 37: the plots - worker ticks at the measured counts, small sizes visible, the legend off the axis labels.
def pyplot():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    return pytest.importorskip("matplotlib.pyplot")


def test_scaling_plot_ticks_are_the_worker_counts_and_one_legend():
    plt = pyplot()
    doc = b.combine(synthetic_runs(), run_id="p")
    fig = pl.scaling_figure(doc, plt)
    ax1 = fig.axes[0]
    assert list(ax1.get_xticks()) == [1, 2, 3]
    assert [t.get_text() for t in ax1.get_xticklabels()] == ["1", "2", "3"]
    legend = ax1.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["samples/s total", "efficiency"]
    assert fig.legends == []
    plt.close(fig)


def test_busbw_plot_is_logarithmic_with_a_tick_per_measured_size():
    plt = pyplot()
    doc = b.combine(synthetic_runs(), run_id="p")
    fig = pl.busbw_figure(doc, plt)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert list(ax.get_xticks()) == [4096, 64 * MIB]
    assert [t.get_text() for t in ax.get_xticklabels()] == [b.human_bytes(4096), b.human_bytes(64 * MIB)]
    plt.close(fig)
    # one worker: bus bandwidth is 0, the axis stays linear rather than dropping the points
    one = b.combine([run_doc("horovod", 1, [(4096, 0.001)], training=10.0)], run_id="one")
    fig = pl.busbw_figure(one, plt)
    assert fig.axes[0].get_yscale() == "linear"
    plt.close(fig)


def test_runs_under_slurm_name_their_jobs_in_the_report_and_the_summary():
    launch = {
        "method": "slurm",
        "cluster": "molecule",
        "jobs": [
            {"run": "hvd-np1", "id": "7", "partition": "batch", "nodes": "n1", "tasks": 1},
            {"run": "hvd-np2", "id": "8", "partition": "batch", "nodes": "n[1-2]", "tasks": 2},
            {"run": "both-np2", "id": "9", "partition": "batch", "nodes": "n[1-2]", "tasks": None, "failed": True},
        ],
    }
    doc = b.combine(synthetic_runs(), run_id="r1", generated_at="2026-01-01T00:00:00Z", inputs={"launch": launch})
    md = r.render_markdown(doc)
    line = (
        "- launched by: **Slurm** (cluster molecule, partition batch), every run a job: hvd-np1 job 7, hvd-np2 job 8,"
        " both-np2 job 9 (failed)"
    )
    assert line in md
    assert "## Slurm jobs" in md
    assert "| hvd-np2 | 8 | batch | n[1-2] | 2 |" in md
    assert "| both-np2 (failed) | 9 | batch | n[1-2] | - |" in md
    assert any(x.startswith("launched by: Slurm (cluster molecule") for x in r.summary_table(doc))


def test_runs_by_horovodrun_have_no_slurm_lines():
    doc = b.combine(
        synthetic_runs(), run_id="r1", generated_at="2026-01-01T00:00:00Z", inputs={"launch": {"method": "horovodrun"}}
    )
    md = r.render_markdown(doc)
    assert "launched by" not in md and "## Slurm jobs" not in md
    assert not any("Slurm" in x for x in r.summary_table(doc))
