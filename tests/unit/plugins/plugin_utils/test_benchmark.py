"""Tests of plugins/module_utils/_benchmark.py: formulas, combining, schema, rendering, plots."""

from __future__ import annotations

import builtins
import copy
import json
from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import _benchmark as b
from ansible_collections.gpucluster.horovod.plugins.plugin_utils import _benchmark_report as r

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "benchmark"
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
    bps = b.parse_iperf3(text, "n2")
    assert bps == json.loads(text)["end"]["sum_received"]["bits_per_second"]
    assert bps > 1e8


def test_parse_iperf3_error_names_host():
    with pytest.raises(b.BenchmarkError, match="iperf3 to n3 failed: unable to connect"):
        b.parse_iperf3({"start": {}, "end": {}, "error": "unable to connect to server"}, "n3")


@pytest.mark.parametrize("bad", ["not json", "[]", {"end": {}}])
def test_parse_iperf3_bad(bad):
    with pytest.raises(b.BenchmarkError):
        b.parse_iperf3(bad, "n1")


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
    schema_file = Path(__file__).resolve().parents[4] / "roles" / "horovod_benchmark" / "files" / "result.schema.json"
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
    assert lines[0].split() == ["size", "hvd", "Gbit/s", "peer", "Gbit/s", "ratio", "link", "frac"]
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
        r.render_plots(b.combine(synthetic_runs(), run_id="r"), str(tmp_path))


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
