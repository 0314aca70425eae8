# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: the pip requirement, distribution and build flag of each framework of a Horovod venv."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_frameworks = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.frameworks")


def horovod_frameworks(specs, default_variant=""):
    if not isinstance(specs, (list, tuple)):
        raise AnsibleFilterError(f"horovod_frameworks: input must be a list, got {type(specs).__name__}")
    try:
        return _frameworks.frameworks_plan(specs, str(default_variant or ""))
    except ValueError as exc:
        raise AnsibleFilterError(f"horovod_frameworks: {exc}") from exc


def horovod_frameworks_missing(plans, versions):
    """Requirements of the plans the venv does not satisfy (``versions``: distribution → version or None)."""
    versions = versions or {}
    return [p["requirement"] for p in plans if not _frameworks.satisfied(p, versions.get(p["distribution"]))]


def horovod_existing_env_problems(env, plans, python="", runtime_packages=(), will_install=(), *, nccl=""):
    """Why an existing Python environment cannot take Horovod for the plans (empty list: it can)."""
    if not isinstance(env, dict):
        raise AnsibleFilterError("horovod_existing_env_problems: input must be the python_env of python_env_facts")
    return _frameworks.existing_env_problems(
        env,
        plans or [],
        str(python or ""),
        list(runtime_packages or []),
        list(will_install or []),
        nccl=str(nccl or ""),
    )


def horovod_existing_env_nccl(env, framework):
    """The NCCL release an existing environment's framework runs with ('' when none)."""
    return _frameworks.env_nccl(env or {}, str(framework or ""))[0]


def horovod_existing_env_distributions(env, plans):
    """The framework builds of an existing environment that differ from the plans' requirements (dist==version)."""
    return _frameworks.existing_env_distributions(env or {}, plans or [])


class FilterModule:
    def filters(self):
        return {
            "horovod_frameworks": horovod_frameworks,
            "horovod_frameworks_missing": horovod_frameworks_missing,
            "horovod_existing_env_problems": horovod_existing_env_problems,
            "horovod_existing_env_distributions": horovod_existing_env_distributions,
            "horovod_existing_env_nccl": horovod_existing_env_nccl,
        }
