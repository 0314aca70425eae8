# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks between roles: a value of one role that only makes sense with another role's value on the same host.

Each check takes the effective inputs of the roles a run applies on a host ({role: {variable: value}}, after their
argument-spec validation) and yields (role, Finding). validate_inputs runs them once the roles' own checks ran, so
the first play refuses what would otherwise fail only after the whole converge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ._base import Finding


@dataclass(frozen=True)
class AcrossCheck:
    """A check over several roles' inputs: the roles it needs, a sentence for docs/input-checks.md, the function."""

    roles: tuple
    variables: tuple
    description: str
    func: Callable[[dict], Iterable[tuple]]
    level: str = "error"


def _built_frameworks(horovod: dict) -> list:
    """The frameworks the horovod role builds Horovod for on the host (horovod_framework and the extra ones)."""
    names = [horovod.get("horovod_framework")]
    names += [item.get("name") for item in horovod.get("horovod_extra_frameworks") or [] if isinstance(item, dict)]
    return [str(name) for name in dict.fromkeys(names) if name not in (None, "", "none")]


def _benchmark_framework(values: dict) -> Iterator[tuple]:
    framework = values["horovod_benchmark"].get("horovod_benchmark_framework")
    built = _built_frameworks(values["horovod"])
    if framework and built and framework not in built:
        yield (
            "horovod_benchmark",
            Finding(
                "horovod_benchmark_framework",
                framework,
                f"Horovod is built for {' and '.join(built)} here (horovod_framework, horovod_extra_frameworks: the"
                " resolved stack's framework, gpucluster_framework); the benchmark runs a framework Horovod is built"
                " for, or it would fail after the whole converge",
                f"{' or '.join(built)}, or build Horovod for {framework} too (horovod_extra_frameworks)",
            ),
        )


CHECKS = [
    AcrossCheck(
        ("horovod", "horovod_benchmark"),
        ("horovod_benchmark_framework", "horovod_framework", "horovod_extra_frameworks"),
        "horovod_benchmark_framework is a framework the horovod role builds Horovod for on the host",
        _benchmark_framework,
    ),
]


def check_across_roles(values_by_role: dict) -> list:
    """(role, Finding) of every check whose roles are all applied on the host (in values_by_role)."""
    found = []
    for chk in CHECKS:
        if all(role in values_by_role for role in chk.roles):
            found.extend(chk.func(values_by_role))
    return found
