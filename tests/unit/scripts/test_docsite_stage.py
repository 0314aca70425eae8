"""tools/docsite_stage.py: the site's copy of the role specs moves computed defaults into descriptions."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("docsite_stage", ROOT / "tools" / "docsite_stage.py")
stage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(stage)


def test_a_computed_default_moves_into_the_description_and_a_literal_one_stays():
    spec = {
        "argument_specs": {
            "main": {
                "options": {
                    "preflight_ssh_port": {
                        "type": "int",
                        "description": ["The SSH port."],
                        "default": "{{ gpucluster_ssh_port\n   | default(22) }}",
                    },
                    "preflight_fail": {"type": "bool", "description": "Fail.", "default": True},
                    "preflight_name": {"type": "str", "description": ["A name."], "default": "n1"},
                }
            }
        }
    }
    assert stage.stage_spec(spec) == 1
    options = spec["argument_specs"]["main"]["options"]
    assert "default" not in options["preflight_ssh_port"]
    assert options["preflight_ssh_port"]["description"] == [
        "The SSH port.",
        "Default: computed, C({{ gpucluster_ssh_port | default(22) }}).",
    ]
    assert options["preflight_fail"] == {"type": "bool", "description": "Fail.", "default": True}
    assert options["preflight_name"]["default"] == "n1"


def test_every_role_spec_of_the_collection_stages_and_keeps_its_options():
    moved = 0
    for path in sorted(ROOT.glob("roles/*/meta/argument_specs.yml")):
        spec = yaml.safe_load(path.read_text())
        before = {e: set(v.get("options") or {}) for e, v in spec["argument_specs"].items()}
        moved += stage.stage_spec(spec)
        assert {e: set(v.get("options") or {}) for e, v in spec["argument_specs"].items()} == before
        for entry in spec["argument_specs"].values():
            for option in (entry.get("options") or {}).values():
                assert not stage.computed(option.get("default")), path
    assert moved > 0
