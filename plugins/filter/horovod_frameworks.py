# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: the pip requirement, distribution and build flag of each framework of a Horovod venv."""

from __future__ import annotations

DOCUMENTATION = r"""
name: horovod_frameworks
short_description: What to install for each framework Horovod is built with
version_added: "0.1.0"
description:
  - Takes a list of framework specs C({name, version, variant}) (the resolved framework first, then
    O(gpucluster.horovod.horovod#role:main:horovod_extra_frameworks)) and returns, per framework, the pip
    distribution, the requirement that only the right build satisfies, the module to import and the HOROVOD_WITH_*
    flag.
  - "PyTorch: C(torch==2.13.0+cpu) (the CUDA variant is the PEP 440 local label). TensorFlow: the C(cpu)
    variant is the C(tensorflow-cpu) distribution, a CUDA variant C(tensorflow[and-cuda]) (2.14 and later:
    NVIDIA's libraries as wheels), no variant the plain C(tensorflow). MXNet: C(mxnet-cu112) for a CUDA variant."
  - Refuses unknown frameworks, a framework listed twice and specs without a version.
options:
  _input:
    description: List of dicts with C(name) (pytorch, tensorflow, mxnet), C(version) and C(variant) ('' allowed).
    type: list
    elements: dict
    required: true
  default_variant:
    description: Variant of a spec without a C(variant) key.
    type: str
    default: ""
author: gpucluster.horovod contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: What the venv needs
  ansible.builtin.debug:
    msg: "{{ [{'name': 'tensorflow', 'version': '2.15.0', 'variant': 'cpu'}] | gpucluster.horovod.horovod_frameworks }}"
    # [{'name': 'tensorflow', 'distribution': 'tensorflow-cpu', 'requirement': 'tensorflow-cpu==2.15.0', ...}]
"""

RETURN = r"""
_value:
  description: One dict per framework, in input order.
  type: list
  elements: dict
  contains:
    name: {description: Framework name., type: str}
    version: {description: Version as given., type: str}
    variant: {description: Wheel variant as given., type: str}
    distribution: {description: Python distribution whose metadata version the venv probe reads., type: str}
    requirement: {description: pip requirement., type: str}
    local_label: {description: Whether only the exact local version label (C(+cpu)) satisfies it., type: bool}
    module: {description: Module that importing loads the framework., type: str}
    flag: {description: HOROVOD_WITH_* build variable., type: str}
    without_flag: {description: HOROVOD_WITHOUT_* build variable., type: str}
"""

from ansible.errors import AnsibleFilterError  # noqa: E402 - documentation first

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule  # noqa: E402 - documentation first

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
