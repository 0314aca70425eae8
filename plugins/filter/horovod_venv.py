# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: the horovod role's decisions about its Python environment (pip's sources, what the environment lacks,
what a build needs besides the frameworks)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_venv = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.venv")


def horovod_pip_sources(settings):
    if not isinstance(settings, dict):
        raise AnsibleFilterError(f"horovod_pip_sources: input must be a dict, got {type(settings).__name__}")
    return _venv.pip_sources(settings)


def horovod_venv_state(probe, plans, runtime_packages=(), existing=False):
    """What a Horovod environment has and lacks, from the role's probe result (see horovod_venv_state.yml)."""
    if probe is not None and not isinstance(probe, dict):
        raise AnsibleFilterError("horovod_venv_state: input must be the registered result of the environment probe")
    return _venv.venv_state(probe or {}, list(plans or []), list(runtime_packages or []), bool(existing))


def horovod_build_requirements(plans, patches=(), fixes=()):
    """The Python packages and patches a Horovod build needs besides the frameworks (see the .yml)."""
    if not isinstance(plans, (list, tuple)) or not plans:
        raise AnsibleFilterError("horovod_build_requirements: input must be the non-empty horovod_frameworks plans")
    return _venv.build_requirements(plans, list(patches or []), list(fixes or []))


def horovod_env_access(env, existing=False, venv="", held_helper=""):
    """How the role runs pip and Python in the environment (see horovod_env_access.yml)."""
    if env is not None and not isinstance(env, dict):
        raise AnsibleFilterError("horovod_env_access: input must be the python_env of python_env_facts (or {})")
    if not venv:
        raise AnsibleFilterError("horovod_env_access: the environment's path (venv) is required")
    return _venv.env_access(env or {}, bool(existing), str(venv), str(held_helper or ""))


class FilterModule:
    def filters(self):
        return {
            "horovod_pip_sources": horovod_pip_sources,
            "horovod_venv_state": horovod_venv_state,
            "horovod_build_requirements": horovod_build_requirements,
            "horovod_env_access": horovod_env_access,
        }
