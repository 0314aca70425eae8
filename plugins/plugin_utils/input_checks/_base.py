# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pieces every role's input checks are made of.

A check is a pure function of the role's input values (after Ansible's argument-spec validation
has coerced them) and a Context (the host, the inventory, the OS and GPU facts, which variables
the user set, the role's constant data). It yields Findings. Nothing here touches a host: the
action plugin gpucluster.horovod.validate_inputs collects the values on the controller and calls
run_checks(), the same way for the first play of site.yml and for a role's own preflight.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One problem with one input: the variable, its value, what is wrong and what would be valid."""

    variable: str
    value: Any
    problem: str
    valid: str = ""
    level: str = ERROR
    # A whole sentence naming the variable, its value and the fix, used as it is (instead of problem/valid).
    sentence: str = ""

    def text(self) -> str:
        if self.sentence:
            return self.sentence
        valid = f" Valid: {self.valid}." if self.valid else ""
        return f"{self.variable}={self.value!r}: {self.problem}.{valid}"


@dataclass(frozen=True)
class Context:
    """What a check may know besides the values."""

    host: str = "localhost"
    inventory_hosts: frozenset = frozenset()
    os_family: str = ""
    distribution: str = ""
    distribution_major_version: str = ""
    # True/False when gpu_facts ran, None when unknown.
    has_gpu: bool | None = None
    # Names of the variables the user set (inventory, play, extra vars), not role defaults.
    user_set: frozenset = frozenset()
    # The role's constant data (its vars/ files), e.g. the known patches of the horovod role.
    role_vars: dict = field(default_factory=dict)
    # The resolved stack (gpucluster_stack) when preflight published it.
    stack: dict = field(default_factory=dict)
    # The host is the control node (local connection): never rebooted.
    control_node: bool = False
    # True/False when the first play read the site's Slurm (gpucluster_slurm.present), None when it did not.
    slurm: bool | None = None


CheckFunc = Callable[[dict, Context], Iterable[Finding]]


@dataclass(frozen=True)
class Check:
    """A named check: the variables it reads, a sentence for docs/input-checks.md, the function."""

    variables: tuple
    description: str
    func: CheckFunc
    level: str = ERROR

    def run(self, values: dict, ctx: Context) -> list[Finding]:
        if any(name not in values for name in self.variables):
            return []
        return list(self.func(values, ctx))


def check(*variables: str, description: str, level: str = ERROR) -> Callable[[CheckFunc], Check]:
    """Decorator: turn a generator function into a Check."""

    def wrap(func: CheckFunc) -> Check:
        return Check(tuple(variables), description, func, level)

    return wrap


def run_checks(checks: Iterable[Check], values: dict, ctx: Context, skip: Iterable[str] = ()) -> list[Finding]:
    """Run every check whose variables are all present and none already refused (skip)."""
    skip = set(skip)
    findings: list[Finding] = []
    for chk in checks:
        if skip.intersection(chk.variables):
            continue
        findings.extend(chk.run(values, ctx))
    return findings


# --- building blocks --------------------------------------------------------------------------

# POSIX portable user names (useradd's default NAME_REGEX, without the trailing $ of machine accounts).
_USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]?)i?B?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def _each(names: tuple, values: dict) -> Iterator[tuple[str, Any]]:
    for name in names:
        if name in values:
            yield name, values[name]


def tcp_port(*names: str, optional: bool = False) -> Check:
    """A TCP port 1..65535 (None allowed when optional)."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if value is None and optional:
                continue
            if not isinstance(value, int) or not 1 <= value <= 65535:
                yield Finding(name, value, "not a TCP port", "1..65535" + (" or null" if optional else ""))

    return Check(names, "a TCP port, 1..65535" + (" (or null)" if optional else ""), func)


def at_least(minimum: float, *names: str, what: str = "") -> Check:
    """A number >= minimum (counts, timeouts, intervals)."""
    label = what or ("a positive number" if minimum == 1 else f"a number >= {minimum}")

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
                yield Finding(name, value, f"must be {label}", f">= {minimum}")

    return Check(names, f"{label} (>= {minimum})", func)


def positive(*names: str, what: str = "") -> Check:
    """Counts, timeouts and intervals: > 0."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                yield Finding(name, value, f"must be greater than 0{' (' + what + ')' if what else ''}", "a number > 0")

    return Check(names, "greater than 0" + (f" ({what})" if what else ""), func)


def id_number(*names: str) -> Check:
    """A uid or gid: not 0 (root) and not negative."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if not isinstance(value, int) or value < 0:
                yield Finding(name, value, "a uid/gid cannot be negative", "1..4294967294, free on every node")
            elif value == 0:
                yield Finding(
                    name, value, "0 is root's; the training user must not be root", "a free uid/gid such as 2000"
                )
            elif value >= 4294967295:
                yield Finding(name, value, "beyond the largest uid/gid", "1..4294967294")

    return Check(names, "a uid/gid: not 0 (root), not negative", func)


def matches(name: str, pattern: str, description: str, problem: str, valid: str, *, optional: bool = False) -> Check:
    """A value the regular expression matches as a whole (empty allowed when optional)."""
    regex = re.compile(pattern)

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        value = values[name]
        if optional and (value is None or value == ""):
            return
        if not regex.fullmatch(str(value if value is not None else "")):
            yield Finding(name, value, problem, valid)

    return Check((name,), description, func)


def running_jobs(role: str) -> list[Check]:
    """A role's policy for the jobs a change would disturb: <role>_running_jobs and <role>_running_jobs_wait_s."""
    return [
        matches(
            f"{role}_running_jobs",
            "refuse|wait|warn",
            "refuse, wait or warn",
            "not a running-jobs policy (gpucluster_running_jobs)",
            "refuse, wait or warn",
        ),
        positive(f"{role}_running_jobs_wait_s", what="seconds to wait for running jobs"),
        check(
            f"{role}_running_jobs_wait_s",
            f"{role}_running_jobs",
            description=f"warns when {role}_running_jobs_wait_s is set while {role}_running_jobs is not wait",
            level=WARNING,
        )(_wait_without_waiting(role)),
    ]


def _wait_without_waiting(role: str) -> CheckFunc:
    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        name, policy = f"{role}_running_jobs_wait_s", values[f"{role}_running_jobs"]
        if set_by_user(ctx, name) and policy in ("refuse", "warn"):
            yield Finding(
                name,
                values[name],
                f"not used on {ctx.host}: {role}_running_jobs is {policy}, which does not wait",
                f"{role}_running_jobs: wait (gpucluster_running_jobs), or drop {name}",
                WARNING,
            )

    return func


def absolute_path(*names: str, optional: bool = False) -> Check:
    """An absolute path (empty allowed when optional)."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if optional and (value is None or value == ""):
                continue
            if not isinstance(value, str) or not value.startswith("/"):
                yield Finding(name, value, "not an absolute path", "an absolute path such as /opt/gpucluster/venv")

    return Check(names, "an absolute path" + (" (or empty)" if optional else ""), func)


def user_name_problem(value: Any) -> str:
    """Why value is not a usable training user name, or ''."""
    if not isinstance(value, str) or not _USER_NAME.match(value):
        return "not a valid POSIX user name (lower-case letter or _, then up to 31 of a-z 0-9 _ -)"
    if value == "root":
        return "the training user must not be root: Horovod jobs, SSH keys and the venv belong to an unprivileged user"
    return ""


def training_user(*names: str) -> Check:
    """A valid POSIX user name that is not root."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            problem = user_name_problem(value)
            if problem:
                yield Finding(name, value, problem, "a non-root user name such as hvd")

    return Check(names, "a valid POSIX user name, not root", func)


def group_name(*names: str) -> Check:
    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if not isinstance(value, str) or not _USER_NAME.match(value):
                yield Finding(name, value, "not a valid POSIX group name", "a name such as hvd")

    return Check(names, "a valid POSIX group name", func)


def inventory_host(*names: str, optional: bool = False) -> Check:
    """A host of the inventory (empty allowed when optional)."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if optional and not value:
                continue
            if value not in ctx.inventory_hosts:
                yield Finding(name, value, "not a host of the inventory", _some(ctx.inventory_hosts))

    return Check(names, "a host of the inventory" + (" (or empty)" if optional else ""), func)


def inventory_hosts(*names: str, non_empty: bool = True) -> Check:
    """A list of hosts of the inventory."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name, value in _each(names, values):
            if non_empty and not value:
                yield Finding(name, value, "names no host", "a list of inventory hosts")
                continue
            missing = [h for h in value or [] if h not in ctx.inventory_hosts]
            if missing:
                yield Finding(
                    name, value, f"{', '.join(map(str, missing))} not in the inventory", _some(ctx.inventory_hosts)
                )

    return Check(names, "hosts of the inventory" + (" (at least one)" if non_empty else ""), func)


def _some(hosts: Iterable[str], limit: int = 8) -> str:
    hosts = sorted(hosts)
    more = f", ... ({len(hosts)} in all)" if len(hosts) > limit else ""
    return "one of " + ", ".join(hosts[:limit]) + more if hosts else "a host of the inventory"


def parse_sizes(text: Any) -> list[int]:
    """'4K,16K,1M' -> byte counts; ValueError names the part that does not parse."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("no sizes")
    sizes = []
    for part in text.split(","):
        match = _SIZE.match(part)
        if not match or int(match.group(1)) <= 0:
            raise ValueError(f"'{part.strip()}' is not a size")
        sizes.append(int(match.group(1)) * _SIZE_UNITS[match.group(2).upper()])
    return sizes


def set_by_user(ctx: Context, name: str) -> bool:
    return name in ctx.user_set
