"""Conventions every public role keeps (CONTRIBUTING.md), checked on the real files.

- every public variable in defaults/main.yml is in meta/argument_specs.yml and the other way
  round, each with a type and a description;
- the role README names every variable;
- tasks/main.yml exists and the role has a molecule scenario named after it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLES = sorted(p for p in (ROOT / "roles").iterdir() if p.is_dir() and not p.name.startswith("_"))


def _load(path: Path) -> dict:
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def _spec_options(role: Path) -> dict:
    specs = _load(role / "meta" / "argument_specs.yml")["argument_specs"]
    options: dict = {}
    for entry_point in specs.values():
        options.update(entry_point.get("options") or {})
    return options


@pytest.mark.parametrize("role", ROLES, ids=lambda p: p.name)
def test_defaults_and_argument_specs_agree(role: Path) -> None:
    defaults = _load(role / "defaults" / "main.yml") if (role / "defaults" / "main.yml").exists() else {}
    options = _spec_options(role)
    assert sorted(set(defaults) - set(options)) == [], f"{role.name}: defaults missing from argument_specs"
    assert sorted(set(options) - set(defaults) - {k for k, v in options.items() if v.get("required")}) == [], (
        f"{role.name}: argument_specs options without a default in defaults/main.yml"
    )
    for name in defaults:
        assert name.startswith(f"{role.name}_"), f"{role.name}: public variable {name} lacks the role prefix"


@pytest.mark.parametrize("role", ROLES, ids=lambda p: p.name)
def test_every_option_is_typed_and_described(role: Path) -> None:
    for name, option in _spec_options(role).items():
        assert option.get("type"), f"{role.name}: {name} has no type"
        assert option.get("description"), f"{role.name}: {name} has no description"


@pytest.mark.parametrize("role", ROLES, ids=lambda p: p.name)
def test_readme_names_every_variable(role: Path) -> None:
    readme = (role / "README.md").read_text(encoding="utf-8")
    missing = [name for name in _spec_options(role) if name not in readme]
    assert missing == [], f"{role.name}: README.md does not document {missing}"


@pytest.mark.parametrize("role", ROLES, ids=lambda p: p.name)
def test_role_has_tasks_and_a_molecule_scenario(role: Path) -> None:
    assert (role / "tasks" / "main.yml").is_file()
    scenarios = [p.parent.name for p in (ROOT / "molecule").glob(f"{role.name}_*/molecule.yml")]
    assert scenarios, f"{role.name}: no molecule/{role.name}_*/ scenario"
