"""Every collection the shipped content calls is declared in galaxy.yml (or is the collection itself).

With ansible-core and the declared dependencies only, `ansible-playbook gpucluster.horovod.site`
must load: a module, filter, lookup, test, callback, connection or role of an undeclared
collection fails there ("couldn't resolve module/action"). The content scanned is what the
collection ships and runs on users' machines: roles, playbooks, site.yml, ansible.cfg, the
example and sandbox inventories.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GALAXY = yaml.safe_load((ROOT / "galaxy.yml").read_text(encoding="utf-8"))
ALLOWED = {"ansible.builtin", f"{GALAXY['namespace']}.{GALAXY['name']}"} | set(GALAXY.get("dependencies") or {})
FQCN = r"([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)\.[a-z][a-z0-9_]*"
# Plugin references inside Jinja and keyword values.
IN_TEXT = [
    re.compile(r"\|\s*" + FQCN),  # filters
    re.compile(r"\b(?:lookup|query|q)\(\s*['\"]" + FQCN),  # lookups
    re.compile(r"\bis\s+(?:not\s+)?" + FQCN),  # tests
]
KEY = re.compile(r"^" + FQCN + r"$")
CONTENT = [
    *sorted((ROOT / "roles").rglob("*.yml")),
    *sorted((ROOT / "roles").rglob("*.j2")),
    *sorted((ROOT / "playbooks").rglob("*.yml")),
    ROOT / "site.yml",
    *sorted((ROOT / "inventories").rglob("*.yml")),
]


def _collections_in(node, found: set) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            match = KEY.match(str(key))
            if match and "name" in node:  # a task's module or action: `community.crypto.openssh_keypair:`
                found.add(match.group(1))
            if key in ("role", "name", "ansible_connection", "stdout_callback") and isinstance(value, str):
                match = KEY.match(value)
                if match and key != "name":
                    found.add(match.group(1))
            _collections_in(value, found)
    elif isinstance(node, list):
        for value in node:
            _collections_in(value, found)
    elif isinstance(node, str):
        for pattern in IN_TEXT:
            found.update(pattern.findall(node))


def _role_references(node, found: set) -> None:
    """Roles by FQCN: `roles: [ns.coll.role]`, `- role: ns.coll.role`, include_role/import_role `name:`."""
    if isinstance(node, dict):
        for key in ("ansible.builtin.include_role", "ansible.builtin.import_role"):
            if isinstance(node.get(key), dict) and KEY.match(str(node[key].get("name", ""))):
                found.add(KEY.match(node[key]["name"]).group(1))
        if isinstance(node.get("roles"), list):
            for role in node["roles"]:
                name = role.get("role", role.get("name")) if isinstance(role, dict) else role
                if isinstance(name, str) and KEY.match(name):
                    found.add(KEY.match(name).group(1))
        for value in node.values():
            _role_references(value, found)
    elif isinstance(node, list):
        for value in node:
            _role_references(value, found)


def _used(path: Path) -> set:
    text = path.read_text(encoding="utf-8")
    found: set = set()
    if path.suffix == ".j2":
        for pattern in IN_TEXT:
            found.update(pattern.findall(text))
        return found
    data = yaml.safe_load(text)
    _collections_in(data, found)
    _role_references(data, found)
    return found


@pytest.mark.parametrize("path", CONTENT, ids=lambda p: str(p.relative_to(ROOT)))
def test_content_calls_only_declared_collections(path: Path) -> None:
    undeclared = sorted(_used(path) - ALLOWED)
    assert undeclared == [], f"{path.relative_to(ROOT)} calls {undeclared}, not declared in galaxy.yml dependencies"


def test_ansible_cfg_plugins_are_declared() -> None:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "ansible.cfg")
    used = set()
    for section in cfg.sections():
        for _key, value in cfg.items(section):
            used.update(m.group(1) for m in re.finditer(FQCN, value))
    assert sorted(used - ALLOWED) == []


def test_the_scan_finds_what_the_roles_call() -> None:
    """The scan itself: it must see the collections the roles are known to call."""
    used = set().union(*(_used(p) for p in CONTENT))
    assert {"ansible.builtin", "ansible.posix", "community.crypto", "community.general"} <= used
