"""A copy or template that runs only where gpucluster.horovod.file_state says its file differs (issue 37) must be read
with exactly what it writes: the same path, owner, group, mode and content. Were the two to drift apart, a file already
as the read expects would never get what the task now writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROLES = Path(__file__).resolve().parents[3] / "roles"
GATED = ["passwordless_ssh/tasks/configure.yml", "horovod/tasks/configure.yml"]


def _flat(tasks):
    for task in tasks or []:
        if "block" in task:
            yield from _flat(task["block"])
        else:
            yield task


def _probe_entries(tasks):
    """register name -> {path: entry} of the file_state tasks (entries listed inline or in the task's vars)."""
    probes = {}
    for task in _flat(tasks):
        args = task.get("gpucluster.horovod.file_state")
        if not args:
            continue
        lists = [args["files"]] if isinstance(args["files"], list) else []
        lists += [v for v in (task.get("vars") or {}).values() if isinstance(v, list)]
        entries = {e["path"]: e for files in lists for e in files if isinstance(e, dict) and "path" in e}
        probes[task["register"]] = entries
    return probes


def _gate(task):
    whens = task.get("when") or []
    whens = [whens] if isinstance(whens, str) else whens
    for clause in whens:
        m = re.search(r"in (__\w+)\.differ", str(clause))
        if m:
            return m.group(1)
    return None


def _inner(template: str) -> str:
    m = re.fullmatch(r"\{\{\s*(.*?)\s*\}\}", template.strip(), re.S)
    assert m, f"not one expression: {template!r}"
    return m.group(1)


@pytest.mark.parametrize("path", GATED)
def test_each_gated_write_is_read_with_what_it_writes(path):
    tasks = yaml.safe_load((ROLES / path).read_text(encoding="utf-8"))
    probes = _probe_entries(tasks)
    assert probes, f"{path} has no file_state read"
    gated = 0
    for task in _flat(tasks):
        probe = _gate(task)
        module = next((m for m in ("ansible.builtin.copy", "ansible.builtin.template") if m in task), None)
        if not probe or not module:
            continue
        gated += 1
        args = task[module]
        entry = probes[probe].get(args["dest"])
        assert entry, f"{task['name']}: {args['dest']} is not in the read {probe}"
        for key in ("owner", "group", "mode"):
            assert str(entry.get(key)) == str(args.get(key)), f"{task['name']}: {key} {args.get(key)} vs {entry}"
        if module == "ansible.builtin.copy":
            want = f"{{{{ {_inner(args['content'])} | hash('sha1') }}}}"
        else:
            want = f"{{{{ lookup('ansible.builtin.template', '{args['src']}') | hash('sha1') }}}}"
        assert entry["checksum"] == want, f"{task['name']}: the read's checksum {entry['checksum']} is not of {want}"
    assert gated >= 2, f"{path}: expected gated copies or templates"


def test_authorized_keys_is_read_with_the_key_the_task_authorizes():
    tasks = list(_flat(yaml.safe_load((ROLES / GATED[0]).read_text(encoding="utf-8"))))
    entries = _probe_entries(tasks)["__passwordless_ssh_mesh_state"]
    entry = entries["{{ _passwordless_ssh_authorized_keys }}"]
    task = next(t for t in tasks if "ansible.posix.authorized_key" in t and _gate(t))
    assert entry["lines"] == [task["ansible.posix.authorized_key"]["key"]]
    assert entry["mode"] == "0600"  # what authorized_key sets
