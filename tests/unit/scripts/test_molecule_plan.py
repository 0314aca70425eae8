"""scripts/molecule-plan.py: the expected length of the molecule tier replays scripts/molecule.sh's scheduling."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "molecule-plan.py"
_spec = importlib.util.spec_from_file_location("molecule_plan", SCRIPT)
plan = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plan)


def test_heavy_apart_never_runs_two_heavy_scenarios_at_once():
    cost = {"h1": 100, "h2": 80, "l1": 30, "l2": 20}
    total, lanes = plan.simulate(["h1", "h2", "l1", "l2"], cost, {"h1", "h2"}, 2, heavy_apart=True)
    # h1 beside l1 and l2 (50 s); then h2 waits for h1 to end at 100 s, and ends at 180 s
    assert total == 180
    assert lanes == [["h1", "h2"], ["l1", "l2"]]


def test_by_default_heavy_scenarios_share_the_lanes_longest_first():
    # the same scenarios without the rule: the work is spread, so the tier ends when the longer lane does
    cost = {"h1": 100, "h2": 80, "l1": 30, "l2": 20}
    total, lanes = plan.simulate(["h1", "h2", "l1", "l2"], cost, {"h1", "h2"}, 2)
    assert (total, lanes) == (120, [["h1", "l2"], ["h2", "l1"]])


def test_light_scenarios_fill_the_lanes_longest_first():
    cost = {"a": 50, "b": 40, "c": 30, "d": 20}
    total, lanes = plan.simulate(["a", "b", "c", "d"], cost, set(), 2)
    assert (total, lanes) == (70, [["a", "d"], ["b", "c"]])


def test_one_lane_runs_everything_in_order_and_unknown_counts_long():
    total, lanes = plan.simulate(["x", "new"], {"x": 10}, {"x"}, 1)
    assert (total, lanes) == (10 + plan.UNKNOWN, [["x", "new"]])


def test_the_recorded_durations_are_read_with_their_cpu_marks(tmp_path):
    f = tmp_path / "d.tsv"
    f.write_text("# comment\nheavy 120 cpu\nlight 30\n\n")
    assert plan.read_durations(f) == ({"heavy": 120, "light": 30}, {"heavy"})


def test_main_warns_past_the_limit(tmp_path, capsys):
    f = tmp_path / "d.tsv"
    f.write_text("a 3000\nb 3000\nc 3000\n")
    plan.main(["--durations", str(f), "--limit", "4500", "a", "b", "c"])
    out = capsys.readouterr().out
    assert "expected about 100 min (6000 s)" in out and "WARNING" in out
    plan.main(["--durations", str(f), "--limit", "7000", "a", "b", "c"])
    assert "WARNING" not in capsys.readouterr().out
