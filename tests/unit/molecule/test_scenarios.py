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
