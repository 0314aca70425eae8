"""Conventions of the molecule scenarios that reading the suite found missing (docs/testing.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
MOLECULE = ROOT / "molecule"
SCENARIOS = sorted(p.parent.name for p in MOLECULE.glob("*/molecule.yml"))
CHECK = (MOLECULE / "_shared" / "check.yml").resolve()
WHY_NOT = "No check-mode play (_shared/check.yml):"


def _imports(playbook: Path, seen: set[Path]) -> set[Path]:
    """Every playbook file a playbook imports, followed through the imports (static paths only)."""
    if playbook in seen or not playbook.is_file():
        return seen
    seen.add(playbook)
    for play in yaml.safe_load(playbook.read_text()) or []:
        target = play.get("ansible.builtin.import_playbook") or play.get("import_playbook")
        if isinstance(target, str) and "{{" not in target:
            _imports((playbook.parent / target).resolve(), seen)
    return seen


def test_the_scenarios_are_found():
    assert len(SCENARIOS) >= 14 and "_shared" not in SCENARIOS and "horovod_benchmark_default" in SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_converging_scenario_runs_check_mode_or_says_why(scenario):
    verify = (MOLECULE / scenario / "verify.yml").resolve()
    runs_check = CHECK in _imports(verify, set())
    says_why = WHY_NOT in (MOLECULE / scenario / "molecule.yml").read_text()
    assert runs_check != says_why, (
        f"{scenario}: its verify.yml (or a playbook it imports) imports ../_shared/check.yml"
        if not runs_check
        else f"{scenario}: runs the check-mode play and says it does not"
    ) + f", or its molecule.yml says why not in a comment starting '# {WHY_NOT}'"


def test_the_import_chain_is_followed():
    # horovod_benchmark_default's verify.yml imports verify_horovod.yml and then the check-mode play
    chain = _imports((MOLECULE / "horovod_benchmark_default" / "verify.yml").resolve(), set())
    assert (MOLECULE / "horovod_benchmark_default" / "verify_horovod.yml").resolve() in chain and CHECK in chain


NODE_DEFAULTS = yaml.safe_load((MOLECULE / "_shared" / "nodes.yml").read_text())["molecule_node_defaults"]
PASTED = {"pre_build_image", "override_command", "command", "stop_signal", "cgroupns_mode", "tmpfs"}


def _platforms(path: Path) -> list[dict]:
    return (yaml.safe_load(path.read_text()) or {}).get("platforms") or []


@pytest.mark.parametrize(
    "path",
    [MOLECULE / s / "molecule.yml" for s in SCENARIOS] + sorted((ROOT / "tests" / "timing").glob("*/molecule.yml")),
    ids=lambda p: p.parent.name,
)
def test_a_scenario_names_only_what_differs_from_the_base_node(path):
    # molecule/_shared/nodes.yml is what every node is; a platform adds to it (image, capabilities, volumes,
    # security options, networks) and never repeats it: the pasted block of 12 lines per node is gone.
    for p in _platforms(path):
        assert set(p) >= {"name", "hostname", "groups"}, f"{path}: {p.get('name')} lacks name, hostname or groups"
        assert not PASTED & set(p), f"{path}: {p['name']} repeats {sorted(PASTED & set(p))} (nodes.yml has them)"
        assert p.get("image") != NODE_DEFAULTS["image"], f"{path}: {p['name']} repeats the default image"
        assert not set(p.get("capabilities", [])) & set(NODE_DEFAULTS["capabilities"]), p["name"]
        assert "/sys/fs/cgroup:/sys/fs/cgroup:rw" not in p.get("volumes", []), p["name"]


def test_the_base_cluster_is_two_debian_12_nodes():
    base = _platforms(ROOT / ".config" / "molecule" / "config.yml")
    assert [(p["hostname"], p["groups"], p.get("image")) for p in base] == [
        ("n1", ["hvd_nodes"], None),
        ("n2", ["hvd_nodes"], None),
    ]
    assert NODE_DEFAULTS["image"] == "gpucluster/debian:12" and "SYS_ADMIN" in NODE_DEFAULTS["capabilities"]
