# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""validate_inputs action: check the inputs of roles before anything changes (docs: modules/validate_inputs.py).

For each role: its defaults/main.yml under the host's variables, templated on the controller, then
Ansible's argument-spec validation against the role's meta/argument_specs.yml (the validator that
validate_argument_spec and a role's own entry point use), then the role's semantic checks
(plugins/plugin_utils/input_checks). Every problem of every role is reported in one failure.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from pathlib import Path

import yaml
from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import input_checks as _checks

ROLES_DIR = Path(__file__).resolve().parents[2] / "roles"
ARGUMENT_SPEC = {
    "roles": {"type": "list", "elements": "raw", "required": True},
    "fail": {"type": "bool", "default": True},
    "warn_unknown": {"type": "bool", "default": False},
    "record": {"type": "bool", "default": False},
}
# The fact the first play publishes with the fingerprints of the roles it checked (record: true); a role's own
# preflight later in the same run skips the role when its inputs on the host are still the ones checked.
CHECKED_FACT = "gpucluster_inputs_checked"
# Variables the collection reads that are no role's input (host variables and published facts).
_PUBLISHED = {
    "gpucluster_stack",
    "gpucluster_ssh",
    "gpucluster_interconnect",
    "gpucluster_gpu",
    "gpucluster_fabric",
    "gpucluster_health",
    CHECKED_FACT,
    "horovod_slots",
}


def _role_entry(item):
    """'horovod' or {role: docker, tags: [docker], when: gpucluster_run_in_containers} -> (name, tags, when)."""
    if isinstance(item, str):
        return item, [item], ""
    if isinstance(item, dict) and isinstance(item.get("role"), str):
        return item["role"], list(item.get("tags", [item["role"]])), str(item.get("when") or "")
    raise AnsibleActionFail(
        f"validate_inputs: roles entry {item!r} is neither a role name nor {{role: name, tags: [...], when: variable}}"
    )


def selected_by_tags(tags, run_tags, skip_tags) -> bool:
    """Whether a play tagged `tags` runs under --tags/--skip-tags (no tags: always)."""
    if not tags or "always" in tags:
        return True
    run_tags, skip_tags = set(run_tags or ["all"]), set(skip_tags or [])
    if skip_tags.intersection(tags) or "tagged" in skip_tags:
        return False
    return bool({"all", "tagged"}.intersection(run_tags) or run_tags.intersection(tags))


def group_findings(findings):
    """One line per (value, problem, valid): the same root cause set in several roles' variables."""
    groups = {}
    for _role, finding in findings:
        key = (repr(finding.value), finding.problem, finding.valid, finding.sentence)
        groups.setdefault(key, [finding, []])[1].append(f"{finding.variable}")
    lines = []
    for finding, names in groups.values():
        if finding.sentence:
            lines.append(finding.sentence)
            continue
        unique = list(dict.fromkeys(names))
        valid = f" Valid: {finding.valid}." if finding.valid else ""
        lines.append(f"{', '.join(unique)}={finding.value!r}: {finding.problem}.{valid}")
    return lines


def _plain_yaml(path: Path):
    """A role file as plain data, with libyaml when it is there: the checks read every role's specs, defaults and
    constants in each of the role's own check tasks on every host, and Ansible's loader (pure Python, every value
    tagged with its origin, copied out of its cache) is several times slower. None where the file needs Ansible's
    loader (its tags: !unsafe, !vault) or holds no mapping."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # a safe loader
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


class ActionModule(ActionBase):
    """Controller-side; returns problems as data and fails (unless fail: false) when there are any."""

    TRANSFERS_FILES = False
    _requires_connection = False

    def _load(self, path: Path, template: bool = False):
        """A role file as data (or as templates), parsed once per task: the checks read each file up to three times
        (fingerprint, checks, unknown names), and the callers only read what they get."""
        key = (str(path), template)
        memo = self.__dict__.setdefault("_loaded", {})
        if key not in memo:
            if not path.is_file():
                memo[key] = {}
            elif not template:
                memo[key] = _plain_yaml(path) or self._loader.load_from_file(str(path), cache="all") or {}
            else:
                # Not from the loader's cache: a copy cached as data would come back untrusted.
                memo[key] = self._loader.load_from_file(str(path), cache="none", trusted_as_template=True) or {}
        return memo[key]

    def _role_files(self, role: str, facts=None):
        """The role's argument spec options (all entry points), defaults and constants: its vars/ files
        that are not per OS, then the OS cascade _common/os_vars loads (default, os_family, distribution,
        distribution-major)."""
        role_dir = ROLES_DIR / role
        if not role_dir.is_dir():
            raise AnsibleActionFail(f"validate_inputs: no role {role!r} in this collection ({ROLES_DIR})")
        specs = self._load(role_dir / "meta" / "argument_specs.yml").get("argument_specs", {})
        # Every entry point's options (main first): a role's other entry points (nccl's nccl_tests) take
        # inputs of the same role, checked in the same step.
        options = {}
        for entry in sorted(specs, key=lambda name: name != "main"):
            for name, spec in ((specs[entry] or {}).get("options") or {}).items():
                options.setdefault(name, spec)
        defaults = self._load(role_dir / "defaults" / "main.yml", template=True)
        return options, defaults, self._role_vars(role_dir, facts)

    def _role_vars(self, role_dir: Path, facts=None, template: bool = False):
        """The role's constants: its vars/ files that are not per OS, then the OS cascade. As data for the checks,
        or (template=True) as templates for evaluating the defaults that read them."""
        role_vars = {}
        for path in sorted((role_dir / "vars").glob("*.yml")):
            if path.stem[0].islower() and path.stem != "default":
                role_vars.update(self._load(path, template=template))
        facts = facts or {}
        cascade = ["default", facts.get("os_family"), facts.get("distribution")]
        if facts.get("distribution") and facts.get("distribution_major_version"):
            cascade.append(f"{facts['distribution']}-{facts['distribution_major_version']}")
        for stem in dict.fromkeys(s for s in cascade if s):
            role_vars.update(self._load(role_dir / "vars" / f"{stem}.yml", template=template))
        return role_vars

    def _values(self, role, options, defaults, task_vars, role_vars=None):
        """Each input's effective value on this host, and the names the user set. Defaults may read the role's
        constants (its vars/ files, OS cascade included), which outrank inventory variables as in Ansible."""
        raw, user_set, findings = {}, set(), []
        for name in options:
            if name in task_vars:
                raw[name] = task_vars[name]
                if name not in defaults or str(task_vars[name]) != str(defaults[name]):
                    user_set.add(name)
            elif name in defaults:
                raw[name] = defaults[name]
        templar = self._templar.copy_with_new_env(available_variables={**defaults, **task_vars, **(role_vars or {})})
        values = {}
        for name, value in raw.items():
            try:
                values[name] = templar.template(value)
            except AnsibleError as exc:
                findings.append(
                    (role, _checks.Finding(name, value, f"cannot be evaluated ({str(exc).splitlines()[0]})"))
                )
        return values, user_set, findings

    def _why_not_applied(self, role, when, task_vars):
        """Why site.yml does not apply the role on this host ('' when it does): the host variable its play reads is
        not true (docker: gpucluster_run_in_containers). The GPU roles skip a host without a GPU themselves and say so
        in their own checks (input_checks/_gpu_libs.py no_gpu, nvidia_driver.py)."""
        if when:
            value = self._templar.template(task_vars.get(when, False))
            try:
                applies = boolean(value, strict=True)
            except TypeError:
                # Not a boolean: preflight's check of the same variable reports it; site.yml would read it as false.
                applies = False
            if not applies:
                return f"{when} is {value!r}"
        return ""

    def _context(self, task_vars, user_set, role_vars):
        facts = task_vars.get("ansible_facts") or {}
        gpu = facts.get("gpucluster_gpu")
        slurm = task_vars.get("gpucluster_slurm")
        groups = task_vars.get("groups") or {}
        return _checks.Context(
            host=str(task_vars.get("inventory_hostname", "localhost")),
            inventory_hosts=frozenset(groups.get("all", [])) | frozenset(groups.get("ungrouped", [])),
            os_family=str(facts.get("os_family", "")),
            distribution=str(facts.get("distribution", "")),
            distribution_major_version=str(facts.get("distribution_major_version", "")),
            has_gpu=None if not isinstance(gpu, dict) else bool(gpu.get("gpu_count")),
            user_set=frozenset(user_set),
            role_vars=role_vars,
            stack=dict(task_vars.get("gpucluster_stack") or {}),
            slurm=None if not isinstance(slurm, dict) else bool(slurm.get("present")),
            control_node=task_vars.get("ansible_connection") == "local"
            or task_vars.get("inventory_hostname") in ("localhost", "127.0.0.1"),
        )

    def _unknown_variables(self, roles, task_vars):
        """Warnings for variables that look like a role's input but are none (typos in names)."""
        known, prefixes = set(_PUBLISHED), {"gpucluster_"}
        for role_dir in sorted(ROLES_DIR.iterdir()):
            if not (role_dir / "meta" / "argument_specs.yml").is_file() or role_dir.name.startswith("_"):
                continue
            options, _defaults, _vars = self._role_files(role_dir.name)
            known.update(options)
            text = (role_dir / "defaults" / "main.yml").read_text(encoding="utf-8")
            known.update(re.findall(r"\bgpucluster_[a-z0-9_]+", text))
        prefixes.update(f"{role}_" for role in roles)
        warnings = []
        for name in sorted(task_vars):
            if not isinstance(name, str) or name in known or not name.startswith(tuple(prefixes)):
                continue
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            warnings.append(f"{name} is not an input of any gpucluster.horovod role and is ignored{hint}")
        return warnings

    def _check_role(self, role, why_not, task_vars, found):
        """One role's findings on this host into found; its effective values (None when not applied here)."""
        options, defaults, role_vars = self._role_files(role, task_vars.get("ansible_facts"))
        templates = self._role_vars(ROLES_DIR / role, task_vars.get("ansible_facts"), template=True)
        values, user_set, findings = self._values(role, options, defaults, task_vars, templates)
        found["errors"].extend(findings)
        if why_not:
            # Not applied on this host: its argument spec is still checked (a wrong type or a choice that does not
            # exist is wrong wherever it is set), and what the user set for the role is named in one warning.
            found["not_applied"][role] = why_not
            if user_set:
                names = ", ".join(sorted(user_set))
                found["set_unused"].append(
                    f"{names}: set, but this run does not apply the {role} role here ({why_not})"
                )
        host_inputs = {}
        for name in _checks.HOST_INPUTS.get(role, ()):
            if name in task_vars:
                host_inputs.update(self._values(role, {name: {}}, {}, task_vars)[0])
        ctx = self._context(task_vars, user_set, role_vars)
        skip = {f.variable for _role, f in findings}
        for finding in _checks.validate_role(
            role, options, values, ctx, skip=skip, host_inputs=host_inputs, semantic=not why_not
        ):
            found["warnings" if finding.level == _checks.WARNING else "errors"].append((role, finding))
        return None if why_not else values

    def _fingerprint(self, role, task_vars):
        """What the user set for the role on this host, as set (untemplated: inventory, play, extra vars, role
        parameters), hashed: the same in the first play and in the role's own preflight unless a value changed."""
        role_dir = ROLES_DIR / role
        specs = self._load(role_dir / "meta" / "argument_specs.yml").get("argument_specs", {})
        names = {n for entry in specs.values() for n in ((entry or {}).get("options") or {})}
        names.update(_checks.HOST_INPUTS.get(role, ()))
        defaults = self._load(role_dir / "defaults" / "main.yml")
        items = [
            (name, json.dumps(task_vars[name], sort_keys=True, default=str))
            for name in sorted(names)
            if name in task_vars and (name not in defaults or str(task_vars[name]) != str(defaults[name]))
        ]
        return hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]

    def _check_roles(self, roles, task_vars, *, record=False):
        """Every selected role's findings on this host, then the checks between the roles applied here. A role the
        first play of this run already checked with the same inputs on this host is not checked again."""
        run_tags, skip_tags = task_vars.get("ansible_run_tags"), task_vars.get("ansible_skip_tags")
        found = {"errors": [], "warnings": [], "checked": [], "not_applied": {}, "set_unused": []}
        found.update(fingerprints={}, already_checked=[])
        before = {} if record else dict(task_vars.get(CHECKED_FACT) or {})
        # A role site.yml applies in several plays (nccl: the GPU libraries, nccl-tests) is checked once: applied when
        # one of its selected plays applies it here.
        selected = {}
        for item in roles:
            role, tags, when = _role_entry(item)
            if selected_by_tags(tags, run_tags, skip_tags):
                selected.setdefault(role, []).append(self._why_not_applied(role, when, task_vars))
        role_values = {}
        for role, reasons in selected.items():
            fingerprint = self._fingerprint(role, task_vars) if (record or role in before) else ""
            if role in before and before[role] == fingerprint:
                found["already_checked"].append(role)
                continue
            why_not = "" if "" in reasons else "; ".join(dict.fromkeys(reasons))
            values = self._check_role(role, why_not, task_vars, found)
            if values is not None:
                found["checked"].append(role)
                role_values[role] = values
                if record:
                    found["fingerprints"][role] = fingerprint
        # Rules between roles (the benchmark's framework is one Horovod is built for), on the roles applied here.
        for role, finding in _checks.check_across_roles(role_values):
            found["warnings" if finding.level == _checks.WARNING else "errors"].append((role, finding))
        return found

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        validation = ArgumentSpecValidator(ARGUMENT_SPEC).validate(self._task.args)
        if validation.error_messages:
            raise AnsibleActionFail("validate_inputs: " + "; ".join(validation.error_messages))
        args = validation.validated_parameters
        host = task_vars.get("inventory_hostname", "localhost")
        found = self._check_roles(args["roles"], task_vars, record=args["record"])
        errors, warnings, checked, not_applied, set_unused = (
            found["errors"],
            found["warnings"],
            found["checked"],
            found["not_applied"],
            found["set_unused"],
        )

        result["changed"] = False
        result["checked_roles"] = checked
        result["not_applied"] = not_applied
        result["fingerprints"] = found["fingerprints"]
        result["already_checked"] = found["already_checked"]
        result["problems"] = [
            {"role": role, "variable": f.variable, "value": f.value, "problem": f.problem, "valid": f.valid}
            for role, f in errors
        ]
        warning_lines = [f"{host}: {line}" for line in group_findings(warnings) + set_unused]
        if args["warn_unknown"]:
            warning_lines += [f"{host}: {line}" for line in self._unknown_variables(checked, task_vars)]
        if warning_lines:
            result["warnings"] = warning_lines
        if errors:
            lines = group_findings(errors)
            roles = ", ".join(dict.fromkeys(r for r, _f in errors))
            header = f"{len(lines)} input problem(s) on {host} ({roles}), found before any change:"
            result["msg"] = "\n".join([header, *(f"  - {host}: {line}" for line in lines)])
            result["failed"] = bool(args["fail"])
        else:
            result["msg"] = f"{host}: the inputs of {', '.join(checked) or 'no role'} are valid"
            if found["already_checked"]:
                result["msg"] += f" ({', '.join(found['already_checked'])}: checked by the first play of this run)"
        return result
