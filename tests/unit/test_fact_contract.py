"""The fact contract (docs/facts-contract.yml): one producer per gpucluster_* fact, declared fields, known readers.

Reads the contract and the content (roles/, playbooks/, plugins/, and the molecule verify plays for the fields) as
text and YAML; nothing runs. See docs/architecture.md, "The fact contract".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest
import yaml

from ansible_collections.gpucluster.horovod.plugins.modules import gpu_facts
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import resolve_cluster

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = yaml.safe_load((ROOT / "docs" / "facts-contract.yml").read_text())["facts"]
FACTS = sorted(CONTRACT)
SET_FACT = {"set_fact", "ansible.builtin.set_fact", "ansible.legacy.set_fact"}
# what a field access may also be: a dict's own methods
DICT_METHODS = {"get", "keys", "items", "values"}
TEXT_SUFFIXES = frozenset({".yml", ".yaml", ".j2", ".py", ".md"})


def _content_files(*tops: str, suffixes: frozenset = TEXT_SUFFIXES) -> Iterator[Path]:
    for top in tops:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in suffixes:
                yield path


def _tasks(node) -> Iterator[dict]:
    """Every task of a tasks file or playbook, blocks and handlers included."""
    if isinstance(node, list):
        for item in node:
            yield from _tasks(item)
    elif isinstance(node, dict):
        if any(key in node for key in ("block", "rescue", "always", "tasks", "pre_tasks", "post_tasks", "handlers")):
            for key in ("block", "rescue", "always", "tasks", "pre_tasks", "post_tasks", "handlers"):
                yield from _tasks(node.get(key))
        else:
            yield node


def _set_fact_sites() -> Iterator[Tuple[str, str]]:
    """(fact, file) for every set_fact of a gpucluster_* name and every module that returns one in ansible_facts."""
    for path in _content_files("roles", "playbooks", suffixes=frozenset({".yml", ".yaml"})):
        try:
            doc = yaml.safe_load(path.read_text())
        except yaml.YAMLError:  # pragma: no cover - yamllint reports it
            continue
        for task in _tasks(doc):
            for key in SET_FACT & set(task):
                if isinstance(task[key], dict):
                    for name in task[key]:
                        if str(name).startswith("gpucluster_"):
                            yield str(name), str(path.relative_to(ROOT))
    for path in _content_files("plugins", suffixes=frozenset({".py"})):
        text = path.read_text()
        for name in re.findall(r"ansible_facts\s*=\s*\{\s*[\"'](gpucluster_\w+)[\"']", text):
            yield name, str(path.relative_to(ROOT))
        for name in re.findall(r"\[[\"']ansible_facts[\"']\]\s*\[[\"'](gpucluster_\w+)[\"']\]\s*=[^=]", text):
            yield name, str(path.relative_to(ROOT))


SITES = sorted(set(_set_fact_sites()))


def test_every_published_fact_is_declared():
    undeclared = sorted({site[0] for site in SITES if site[0] not in CONTRACT})
    assert not undeclared, (
        f"published but not in docs/facts-contract.yml: {undeclared} (declare the fact, its producer, fields and "
        "readers there first)"
    )


@pytest.mark.parametrize("fact", FACTS)
def test_a_fact_has_one_producer(fact):
    producers = sorted({where for name, where in SITES if name == fact})
    assert producers == [CONTRACT[fact]["producer"]], (
        f"{fact} is set in {producers}; the contract names {CONTRACT[fact]['producer']} as its one producer (another "
        "role reads it, or asks the producer through a variable)"
    )


def _accessed_fields(text: str, fact: str) -> Set[str]:
    """The field names a text reads of a fact, in the idioms the content uses."""
    head = rf"\b{fact}\b['\"]?\]?(?:\s*\|\s*default\([^)]*\))?\)*"
    fields = set(re.findall(head + r"\s*\.(\w+)", text))
    fields |= set(re.findall(head + r"\s*\[\s*['\"](\w+)['\"]\s*\]", text))
    fields |= set(re.findall(head + r"\s*\.get\(\s*['\"](\w+)['\"]", text))
    # map('extract', hostvars, ['gpucluster_interconnect', 'address'])
    fields |= set(re.findall(rf"\[\s*['\"]{fact}['\"]\s*,\s*['\"](\w+)['\"]", text))
    return fields - DICT_METHODS


@pytest.mark.parametrize("fact", FACTS)
def test_every_field_read_is_declared(fact):
    declared = set(CONTRACT[fact]["fields"])
    unknown: Dict[str, List[str]] = {}
    for path in _content_files("roles", "playbooks", "molecule"):
        for field in _accessed_fields(path.read_text(), fact) - declared:
            unknown.setdefault(field, []).append(str(path.relative_to(ROOT)))
    assert not unknown, f"{fact}: fields read but not declared in docs/facts-contract.yml: {unknown}"


def test_the_field_reader_sees_the_idioms():
    text = (
        "{{ gpucluster_stack.cuda }} {{ (gpucluster_stack | default({})).nccl }} {{ gpucluster_stack['os'] }}"
        " {{ (gpucluster_stack | default({}, true)).get('python') }} {{ ansible_facts['gpucluster_stack']['horovod'] }}"
        " {{ ansible_facts['gpucluster_stack'].openmpi }} map('extract', hostvars, ['gpucluster_stack', 'cudnn'])"
        " {{ gpucluster_stack.items() }}"
    )
    assert _accessed_fields(text, "gpucluster_stack") == {"cuda", "nccl", "os", "python", "horovod", "openmpi", "cudnn"}


def _readers(fact: str) -> Set[str]:
    """Roles (by name) and playbooks (by path) that mention the fact other than where they set it."""
    setting = re.compile(rf"^\s*{fact}:\s*(#.*)?$|^\s*{fact}:\s*[\"']?\{{\{{")
    found = set()
    for path in _content_files("roles", "playbooks", suffixes=frozenset({".yml", ".yaml", ".j2"})):
        lines = [line for line in path.read_text().splitlines() if not setting.search(line)]
        if re.search(rf"\b{fact}\b", "\n".join(lines)):
            rel = path.relative_to(ROOT)
            found.add(rel.parts[1] if rel.parts[0] == "roles" else str(rel))
    return found


@pytest.mark.parametrize("fact", FACTS)
def test_the_readers_are_the_ones_the_contract_names(fact):
    named = set(CONTRACT[fact]["readers"])
    actual = _readers(fact)
    assert actual == named, (
        f"{fact}: read by {sorted(actual - named)} too (add them to its readers in docs/facts-contract.yml), "
        f"no longer by {sorted(named - actual)}"
    )


def test_architecture_shows_the_contract():
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## The fact contract", 1)
    assert len(section) == 2, "docs/architecture.md has no '## The fact contract' section"
    body = section[1].split("\n## ", 1)[0]
    for fact, entry in CONTRACT.items():
        row = [line for line in body.splitlines() if line.startswith(f"| `{fact}` |")]
        assert row, f"docs/architecture.md's contract table has no row for {fact}"
        assert f"`{entry['producer']}`" in row[0], f"{fact}: the table's producer is not {entry['producer']}"
        for field in entry["fields"]:
            assert field in row[0], f"{fact}: the table's row does not name the field {field}"


def test_the_stack_fields_are_what_the_engine_publishes():
    cpu = resolve_cluster({"n1": {"os": "debian12", "gpus": []}}, {"framework": "pytorch", "framework_version": "2.13"})
    gpu = resolve_cluster(
        {"n1": {"os": "ubuntu24.04", "gpus": ["NVIDIA H100 80GB HBM3"]}},
        {"framework": "pytorch"},
    )
    published = set()
    for answer in (cpu, gpu):
        if answer["ok"]:
            published |= set(answer["stacks"]["n1"])
    assert cpu["ok"] and gpu["ok"] and published == set(CONTRACT["gpucluster_stack"]["fields"]), (
        f"the engine publishes {sorted(published)}; docs/facts-contract.yml declares "
        f"{sorted(CONTRACT['gpucluster_stack']['fields'])}"
    )


def test_the_gpu_fields_are_what_gpu_facts_returns():
    sample = yaml.safe_load(gpu_facts.RETURN)["ansible_facts"]["sample"]["gpucluster_gpu"]
    assert set(sample) == set(CONTRACT["gpucluster_gpu"]["fields"])
