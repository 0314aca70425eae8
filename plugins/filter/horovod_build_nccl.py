# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: which NCCL a GPU build of Horovod compiles against, and why."""

from __future__ import annotations

DOCUMENTATION = r"""
name: horovod_build_nccl
short_description: The NCCL a GPU build of Horovod compiles against
version_added: "0.1.0"
description:
  - In order, the user's C(horovod_nccl_home); the user's C(HOROVOD_NCCL_INCLUDE) or C(HOROVOD_NCCL_HOME) in
    C(horovod_build_env); the framework's NVIDIA NCCL wheel in the venv (the NCCL every training process loads);
    the NCCL the nccl role installed (its fact C(gpucluster_nccl)); else the system's, found by Horovod's CMake
    search.
  - Returns C(source), C(home) (whose C(include/nccl.h) the build compiles against; empty for the search), C(env)
    (the variables the build process gets, C(HOROVOD_NCCL_HOME)) and C(reason).
positional: _input, build_env, wheel_dir, installed, key_dir
options:
  _input:
    description: The role's C(horovod_nccl_home) (empty for none).
    type: str
    required: true
  build_env:
    description: The HOROVOD_* build variables (the user's C(horovod_build_env) among them).
    type: dict
    required: true
  wheel_dir:
    description: The framework wheel's NCCL directory in the venv (C(nvidia/nccl)); empty when it has none.
    type: str
    required: true
  installed:
    description:
      - The nccl role's fact C(gpucluster_nccl) (C(version), C(method), C(home), C(link)); empty when the role did not
        run.
    type: dict
    required: true
  key_dir:
    description: The build key's directory, where the role lays out the wheel's NCCL as a home.
    type: str
    required: true
author: gpucluster.horovod contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Decide the build's NCCL
  ansible.builtin.set_fact:
    nccl: >-
      {{ horovod_nccl_home | gpucluster.horovod.horovod_build_nccl(env, wheel_dir, gpucluster_nccl | default({}),
         key_dir) }}
"""

RETURN = r"""
_value:
  description: C(source), C(home), C(env), C(reason).
  type: dict
  sample: {source: nccl role, home: /opt/gpucluster/nccl, env: {HOROVOD_NCCL_HOME: /opt/gpucluster/nccl}, reason: "..."}
"""

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule  # noqa: E402 - documentation first

_nccl = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.nccl")


def horovod_build_nccl(nccl_home, build_env, wheel_dir, installed, key_dir):
    return _nccl.build_nccl(
        str(nccl_home or ""), dict(build_env or {}), str(wheel_dir or "").strip(), dict(installed or {}), str(key_dir)
    )


class FilterModule:
    def filters(self):
        return {"horovod_build_nccl": horovod_build_nccl}
