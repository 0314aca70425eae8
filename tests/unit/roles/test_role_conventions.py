"""Conventions every public role keeps (CONTRIBUTING.md), checked on the real files.

- every public variable in defaults/main.yml is in meta/argument_specs.yml and the other way
  round, each with a type and a description, and the default in the spec is the default in
  defaults/main.yml (the spec is what ansible-doc and the README show);
- the role README names every variable;
- tasks/main.yml exists and the role has a molecule scenario named after it;
- private names carry one prefix: constants in vars/ are ``_<role>_*``; what tasks register, set
  as facts or set as task vars at run time is ``__<role>_*`` (collection-wide facts: ``gpucluster_*``);
- every role, the internal ``_common`` included, has an argument spec for each entry point;
- no task var shares its name with a fact or registered result of the role: a fact outranks task vars, so
  on the role's second run in one playbook such a task var would silently keep the first run's value.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLES = sorted(p for p in (ROOT / "roles").iterdir() if p.is_dir() and not p.name.startswith("_"))
ALL_ROLES = sorted(p for p in (ROOT / "roles").iterdir() if p.is_dir())


def _prefix(role: Path) -> str:
    """Public prefix: ``openmpi_``; the internal ``_common`` role's inputs are ``common_``."""
    return role.name.lstrip("_") + "_"


def _load(path: Path) -> dict:
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def _spec_options(role: Path) -> dict:
    specs = _load(role / "meta" / "argument_specs.yml")["argument_specs"]
    options: dict = {}
    for entry_point in specs.values():
        options.update(entry_point.get("options") or {})
    return options


@pytest.mark.parametrize("role", ALL_ROLES, ids=lambda p: p.name)
def test_defaults_and_argument_specs_agree(role: Path) -> None:
    defaults = _load(role / "defaults" / "main.yml") if (role / "defaults" / "main.yml").exists() else {}
    options = _spec_options(role)
    assert sorted(set(defaults) - set(options)) == [], f"{role.name}: defaults missing from argument_specs"
    assert sorted(set(options) - set(defaults) - {k for k, v in options.items() if v.get("required")}) == [], (
        f"{role.name}: argument_specs options without a default in defaults/main.yml"
    )
    for name in defaults:
        assert name.startswith(_prefix(role)), f"{role.name}: public variable {name} lacks the role prefix"


@pytest.mark.parametrize("role", ALL_ROLES, ids=lambda p: p.name)
def test_argument_spec_defaults_equal_defaults_main(role: Path) -> None:
    defaults = _load(role / "defaults" / "main.yml") if (role / "defaults" / "main.yml").exists() else {}
    differ = {
        name: (option.get("default", "<no default>"), defaults[name])
        for name, option in _spec_options(role).items()
        if name in defaults and option.get("default", "<no default>") != defaults[name]
    }
    assert differ == {}, f"{role.name}: argument_specs default != defaults/main.yml: {differ}"


def _runtime_names(node, facts: set, task_vars: list) -> None:
    """Names a task list creates at run time: facts (register, set_fact keys) and task/block vars ((task, name))."""
    if isinstance(node, dict):
        if isinstance(node.get("register"), str):
            facts.add(node["register"])
        set_fact = node.get("ansible.builtin.set_fact")
        if isinstance(set_fact, dict):
            facts.update(k for k in set_fact if k != "cacheable")
        if isinstance(node.get("vars"), dict) and any(k in node for k in ("name", "block")):
            task_vars.extend((node.get("name", "<block>"), k) for k in node["vars"])
        for value in node.values():
            _runtime_names(value, facts, task_vars)
    elif isinstance(node, list):
        for value in node:
            _runtime_names(value, facts, task_vars)


def _entry_point_inputs(node, found: set) -> None:
    """Vars of include_role tasks that are options of the included collection role's entry point (its inputs, such
    as the docker role's docker_daemon_json_settings for tasks_from: daemon_json), not run-time names of the role."""
    if isinstance(node, dict):
        include = node.get("ansible.builtin.include_role")
        if isinstance(include, dict) and str(include.get("name", "")).startswith("gpucluster.horovod."):
            target = ROOT / "roles" / include["name"].split(".")[-1] / "meta" / "argument_specs.yml"
            entry = str(include.get("tasks_from", "main")).removesuffix(".yml")
            if target.is_file():
                options = (_load(target)["argument_specs"].get(entry) or {}).get("options") or {}
                found.update(k for k in node.get("vars") or {} if k in options)
        for value in node.values():
            _entry_point_inputs(value, found)
    elif isinstance(node, list):
        for value in node:
            _entry_point_inputs(value, found)


def _role_runtime_names(role: Path) -> tuple:
    facts: set = set()
    task_vars: list = []
    for path in sorted((role / "tasks").glob("*.yml")) + sorted((role / "handlers").glob("*.yml")):
        _runtime_names(_load_list(path), facts, task_vars)
    return facts, task_vars


@pytest.mark.parametrize("role", ALL_ROLES, ids=lambda p: p.name)
def test_private_names_use_one_prefix(role: Path) -> None:
    short = role.name.lstrip("_")
    facts, task_vars = _role_runtime_names(role)
    inputs: set = set()
    for path in sorted((role / "tasks").glob("*.yml")):
        _entry_point_inputs(_load_list(path), inputs)
    found = list(facts) + [name for _task, name in task_vars if name not in inputs]
    # Inputs handed to _common's entry points are that role's public inputs; a fact with the role's
    # public prefix is an output the README lists under its published facts (never an input).
    readme = (role / "README.md").read_text(encoding="utf-8")
    defaults = _load(role / "defaults" / "main.yml") if (role / "defaults" / "main.yml").exists() else {}
    bad = sorted(
        n
        for n in set(found)
        if not n.startswith((f"__{short}_", "gpucluster_", "common_"))
        and not (n.startswith(f"{short}_") and n in readme and n not in defaults)
    )
    assert bad == [], f"{role.name}: run-time names without the __{short}_ prefix: {bad}"
    for path in sorted((role / "vars").glob("*.yml")):
        constants = [n for n in _load(path) if not n.startswith(f"_{short}_")]
        assert constants == [], f"{role.name}: {path.name} constants without the _{short}_ prefix: {constants}"


def _load_list(path: Path):
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle) or []


@pytest.mark.parametrize("role", ALL_ROLES, ids=lambda p: p.name)
def test_task_vars_never_shadowed_by_facts(role: Path) -> None:
    facts, task_vars = _role_runtime_names(role)
    clash = sorted({f"{task}: {name}" for task, name in task_vars if name in facts})
    assert clash == [], f"{role.name}: task vars named like a fact (a fact outranks them on a second run): {clash}"


def test_internal_role_has_a_spec_per_entry_point() -> None:
    common = ROOT / "roles" / "_common"
    specs = _load(common / "meta" / "argument_specs.yml")["argument_specs"]
    entry_points = {p.stem for p in (common / "tasks").glob("*.yml")}
    assert sorted(entry_points - set(specs)) == [], "_common: task files without an argument spec entry point"


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
    # A role's scenario is named for it, or says in its molecule.yml that it is the role's scenario too (one
    # scenario proving two roles with one set of nodes: "# Scenario of role <name>: ...").
    scenarios = [p.parent.name for p in (ROOT / "molecule").glob(f"{role.name}_*/molecule.yml")] + [
        p.parent.name
        for p in (ROOT / "molecule").glob("*/molecule.yml")
        if re.search(rf"^# Scenario of role {role.name}: \S", p.read_text(), re.M)
    ]
    assert scenarios, (
        f"{role.name}: no molecule/{role.name}_*/ scenario, and none says '# Scenario of role {role.name}: ...'"
    )


# A version's parts taken by splitting the string: `x.split('.')`, `x.split(".")` (issue 31: eleven of them disagreed on
# epochs, labels and short versions).
_SPLIT_VERSION = re.compile(r"""\.split\(\s*['"]\.['"]\s*\)""")


@pytest.mark.parametrize("role", ALL_ROLES, ids=lambda p: p.name)
def test_versions_are_read_with_the_collection_filters_not_split(role: Path) -> None:
    # Role YAML takes a version's parts with version_parts, version_major and version_mm (plugins/filter/versions.py,
    # on plugin_utils/versions.py) and compares with Ansible's version test.
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted(role.rglob("*.yml"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _SPLIT_VERSION.search(line)
    ]
    assert found == [], f"{role.name}: versions split by hand: {found}"


# "Does this host get the GPU stack" is one rule (filter gpu_stack_applies: a GPU, no count read, or the role forced),
# used by site.yml's group and by each GPU role's preflight; issue 31 found it written out in four preflights.
_GPU_RULE_BY_HAND = re.compile(r"gpu_count\s+is\s+defined|gpu_count\s*\|\s*int\)\s*==\s*0")


@pytest.mark.parametrize("role", ALL_ROLES, ids=lambda p: p.name)
def test_the_gpu_stack_rule_is_the_filter_not_rewritten(role: Path) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((role / "tasks").glob("*.yml"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _GPU_RULE_BY_HAND.search(line)
    ]
    assert found == [], f"{role.name}: the GPU stack rule written by hand (use gpu_stack_applies): {found}"


def _tasks_ignoring_unreachable(node, found: list) -> None:
    if isinstance(node, list):
        for item in node:
            _tasks_ignoring_unreachable(item, found)
    elif isinstance(node, dict):
        if node.get("ignore_unreachable") is True:
            found.append(node)
        for key in ("block", "rescue", "always"):
            _tasks_ignoring_unreachable(node.get(key), found)


@pytest.mark.parametrize("role", ALL_ROLES, ids=lambda p: p.name)
def test_ignore_unreachable_comes_with_ignore_errors(role: Path) -> None:
    # Under run_once (on the task or its block) Ansible's linear strategy treats a task as any_errors_fatal unless it
    # ignores errors, and counts an unreachable result there even with ignore_unreachable: every host of the play is
    # failed (ansible-core 2.19; a node stopped during the benchmark, horovod_benchmark_default). With ignore_errors
    # the task goes on as meant.
    found: list = []
    for path in sorted((role / "tasks").glob("*.yml")):
        _tasks_ignoring_unreachable(_load_list(path), found)
    bad = [task.get("name") for task in found if task.get("ignore_errors") is not True]
    assert bad == [], f"{role.name}: ignore_unreachable without ignore_errors: {bad}"


def test_the_unreachable_rule_sees_the_benchmark_cleanup() -> None:
    found: list = []
    _tasks_ignoring_unreachable(_load_list(ROOT / "roles" / "horovod_benchmark" / "tasks" / "run.yml"), found)
    # the elastic run's document on every node, the RDMA ports and the health judged after the runs (a node the
    # elastic run lost is unreachable there), the lost nodes after a failure, the cleanup
    assert [task.get("name", "")[:30] for task in found] == [
        "Find the node where the elasti",
        "Read the RDMA ports of the nod",
        "Judge the health of the nodes ",
        "Find the nodes the launcher lo",
        "Ensure no benchmark, nccl-test",
    ]
