"""roles/horovod/vars/patches.yml: every edit matches the real Horovod source exactly once and is idempotent.

The role applies each edit with ansible.builtin.replace, i.e. ``re.compile(regexp, re.MULTILINE).subn(replace, text)``;
this test does the same on excerpts of the 0.28.1 sdist (tests/unit/fixtures/horovod_src/README.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "unit" / "fixtures" / "horovod_src"
PATCHES = yaml.safe_load((ROOT / "roles" / "horovod" / "vars" / "patches.yml").read_text(encoding="utf-8"))
EDITS = [
    (name, version, edit)
    for name, versions in PATCHES["_horovod_source_patches"].items()
    for version, edits in versions.items()
    for edit in edits
]
ENGINE_PATCHES = yaml.safe_load((ROOT / "data" / "compat" / "horovod.yml").read_text(encoding="utf-8"))["patches"]


@pytest.mark.parametrize(("name", "version", "edit"), EDITS, ids=lambda v: v["path"] if isinstance(v, dict) else v)
def test_edit_matches_once_and_is_idempotent(name, version, edit):
    original = (FIXTURES / version / edit["path"]).read_text(encoding="utf-8")
    pattern = re.compile(edit["regexp"], re.MULTILINE)
    patched, count = pattern.subn(edit["replace"], original)
    assert count == 1, (name, edit["path"])
    again, count_again = pattern.subn(edit["replace"], patched)
    assert count_again == 0 and again == patched, (name, edit["path"])


def test_gcc13_headers_adds_exactly_the_upstream_includes():
    added = {}
    for edit in PATCHES["_horovod_source_patches"]["gcc13-headers"]["0.28.1"]:
        original = (FIXTURES / "0.28.1" / edit["path"]).read_text(encoding="utf-8")
        patched = re.compile(edit["regexp"], re.MULTILINE).sub(edit["replace"], original)
        added[edit["path"]] = [line for line in patched.splitlines() if line not in original.splitlines()]
    # horovod/horovod@ff4ca09d: one include in each file, in include order.
    assert added == {
        "horovod/common/group_table.h": ["#include <string>"],
        "horovod/common/common.h": ["#include <stdexcept>"],
    }


def test_every_engine_patch_has_edits_for_each_version_it_names():
    for patch in ENGINE_PATCHES:
        versions = PATCHES["_horovod_source_patches"].get(patch["name"]) or {}
        for version in patch["horovod"]:
            if patch["name"] == "cxx17" and version == "0.28.0":
                continue  # the engine lists 0.28.0 but the role refuses it until its edits are verified
            assert versions.get(version), (patch["name"], version)


def test_every_fix_of_the_role_has_edits_for_its_release():
    fixes = yaml.safe_load((ROOT / "roles" / "horovod" / "vars" / "main.yml").read_text(encoding="utf-8"))[
        "_horovod_fixes"
    ]
    for version, names in fixes.items():
        for name in names:
            assert PATCHES["_horovod_source_patches"].get(name, {}).get(version), (name, version)


def test_elastic_reinit_tunables_guards_the_non_fixed_branch_only():
    (edit,) = PATCHES["_horovod_source_patches"]["elastic-reinit-tunables"]["0.28.1"]
    original = (FIXTURES / "0.28.1" / edit["path"]).read_text(encoding="utf-8")
    patched = re.compile(edit["regexp"], re.MULTILINE).sub(edit["replace"], original)
    changed = [line for line in patched.splitlines() if line not in original.splitlines()]
    assert changed == ["  } else if (fixed_values_.find(variable) == fixed_values_.end()) {"]
