"""site.yml and the first play's input checks agree: every role a play of site.yml applies is checked in the first
play with that play's tags and condition (preflight_validate_roles), so a play added to site.yml cannot go unchecked.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "gpucluster.horovod."


def _when_variable(when) -> str:
    """`gpucluster_run_in_containers | default(false) | bool` -> gpucluster_run_in_containers."""
    if not when:
        return ""
    match = re.fullmatch(r"\s*(\w+)\s*\|\s*default\(false\)\s*\|\s*bool\s*", str(when))
    assert match, f"site.yml applies a role under a condition the first play cannot check: {when!r}"
    return match.group(1)


def site_roles() -> set:
    """(role, tags, when) of every role site.yml applies: a play's roles and its include_role tasks."""
    plays = yaml.safe_load((ROOT / "playbooks" / "site.yml").read_text(encoding="utf-8"))
    found = set()
    for play in plays:
        play_tags = [t for t in play.get("tags", []) if t != "always"]
        for entry in play.get("roles", []):
            name = entry if isinstance(entry, str) else entry["role"]
            tags = play_tags + ([] if isinstance(entry, str) else entry.get("tags", []))
            found.add((name.removeprefix(PREFIX), tuple(sorted(tags)), ""))
        for task in play.get("tasks", []):
            include = task.get("ansible.builtin.include_role")
            if include:
                tags = play_tags + [t for t in include.get("apply", {}).get("tags", []) if t not in play_tags]
                found.add((include["name"].removeprefix(PREFIX), tuple(sorted(tags)), _when_variable(task.get("when"))))
    return found


def checked_roles() -> set:
    defaults = yaml.safe_load((ROOT / "roles" / "preflight" / "defaults" / "main.yml").read_text(encoding="utf-8"))
    found = set()
    for item in defaults["preflight_validate_roles"]:
        if isinstance(item, str):
            found.add((item, (item,), ""))
        else:
            found.add((item["role"], tuple(sorted(item.get("tags", [item["role"]]))), item.get("when", "")))
    return found


def test_the_first_play_checks_every_role_site_yml_applies_with_its_tags_and_condition():
    applied, checked = site_roles(), checked_roles()
    assert ("preflight", (), "") in applied  # the first play's own role, tagged always
    assert applied - checked == set(), "applied by site.yml, not checked in its first play (preflight_validate_roles)"
    assert checked - applied == set(), "checked in the first play, applied by no play of site.yml"


def test_the_argument_spec_default_is_the_same_list():
    spec = yaml.safe_load((ROOT / "roles" / "preflight" / "meta" / "argument_specs.yml").read_text(encoding="utf-8"))
    defaults = yaml.safe_load((ROOT / "roles" / "preflight" / "defaults" / "main.yml").read_text(encoding="utf-8"))
    options = spec["argument_specs"]["main"]["options"]
    assert options["preflight_validate_roles"]["default"] == defaults["preflight_validate_roles"]
