# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Semantic input checks of every role: what an argument spec cannot express.

Ranges, absolute paths, user names, inventory hosts, parsable lists, cross-variable sense. Pure
Python, controller side; run by the action gpucluster.horovod.validate_inputs after Ansible's
argument-spec validation of the same role (meta/argument_specs.yml stays the one source of
types and choices). One module per role; a new role adds its module here.
"""

from __future__ import annotations

import re

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from . import (
    across_roles,
    cuda,
    cudnn,
    docker,
    horovod,
    horovod_benchmark,
    horovod_container,
    nccl,
    nvidia_container_toolkit,
    nvidia_driver,
    openmpi,
    passwordless_ssh,
    preflight,
)
from ._base import ERROR, WARNING, Check, Context, Finding, parse_sizes, run_checks, user_name_problem
from .across_roles import check_across_roles

ROLE_CHECKS = {
    "preflight": preflight.CHECKS,
    "nvidia_driver": nvidia_driver.CHECKS,
    "cuda": cuda.CHECKS,
    "cudnn": cudnn.CHECKS,
    "nccl": nccl.CHECKS,
    "passwordless_ssh": passwordless_ssh.CHECKS,
    "openmpi": openmpi.CHECKS,
    "docker": docker.CHECKS,
    "nvidia_container_toolkit": nvidia_container_toolkit.CHECKS,
    "horovod": horovod.CHECKS,
    "horovod_container": horovod_container.CHECKS,
    "horovod_benchmark": horovod_benchmark.CHECKS,
}


# Host variables a role reads that are no role input (not in its argument spec): checked with it.
HOST_INPUTS = {"horovod_benchmark": ("horovod_slots",)}


def check_role(role: str, values: dict, ctx: Context, skip=()) -> list[Finding]:
    """The findings of one role's semantic checks (a role without checks has none)."""
    return run_checks(ROLE_CHECKS.get(role, ()), values, ctx, skip)


def spec_variable(message: str, names) -> str:
    """The variable an argument-spec error message is about ('' when none is named)."""
    found = [n for n in names if re.search(rf"\b{re.escape(n)}\b", message)]
    return max(found, key=len) if found else ""


def validate_role(
    role: str, options: dict, values: dict, ctx: Context, *, skip=(), host_inputs=None, semantic: bool = True
) -> list[Finding]:
    """Argument-spec validation (Ansible's validator, the role's meta/argument_specs.yml options), then the
    role's semantic checks on the coerced values (plus host_inputs, the HOST_INPUTS set on this host); a
    variable the spec refused is not checked again. semantic=False: the spec only (a role the run does not
    apply on the host)."""
    bad = set(skip)
    findings: list[Finding] = []
    result = ArgumentSpecValidator(options).validate(
        {k: v for k, v in values.items() if k not in bad}, validate_role_argument_spec=True
    )
    for message in result.error_messages:
        name = spec_variable(message, options)
        bad.add(name)
        findings.append(Finding(name or role, values.get(name, ""), message.rstrip(".")))
    if not semantic:
        return findings
    checked = {**dict(result.validated_parameters), **(host_inputs or {})}
    return findings + check_role(role, checked, ctx, skip=bad)


__all__ = [
    "ERROR",
    "HOST_INPUTS",
    "ROLE_CHECKS",
    "WARNING",
    "Check",
    "Context",
    "Finding",
    "across_roles",
    "check_across_roles",
    "check_role",
    "parse_sizes",
    "run_checks",
    "spec_variable",
    "user_name_problem",
    "validate_role",
]
