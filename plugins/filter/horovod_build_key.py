# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: stable hash of everything that changes a compiled Horovod."""

from __future__ import annotations

DOCUMENTATION = r"""
name: horovod_build_key
short_description: Hash of the inputs that change a compiled Horovod
version_added: "0.1.0"
description:
  - Returns a short sha256 prefix over OS, OS version, architecture, Python, framework and version,
    framework wheel variant, CUDA, NCCL, MPI, Horovod version, build patches, HOROVOD_* build
    variables and the host compiler (host_gcc). Equal inputs give equal keys (order of patches and
    variables does not matter); a change of any input gives a new key, so the horovod role rebuilds.
options:
  _input:
    description: Dict of key inputs; unknown keys are refused.
    type: dict
    required: true
  length:
    description: Number of hex digits (8..64).
    type: int
    default: 16
author: gpucluster.horovod contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Compute the build key
  ansible.builtin.set_fact:
    key: "{{ {'os': 'Debian', 'os_version': '12', 'arch': 'x86_64', 'python': '3.11', 'framework': 'pytorch',
             'framework_version': '2.13.0', 'horovod': '0.28.1'} | gpucluster.horovod.horovod_build_key }}"
"""

RETURN = r"""
_value:
  description: Hex digest prefix.
  type: str
  sample: 3f2a9c0d11b4e6a7
"""

from ansible.errors import AnsibleFilterError  # noqa: E402 - documentation first

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule  # noqa: E402 - documentation first

_build = LazyModule("ansible_collections.gpucluster.horovod.plugins.module_utils._horovod_build")


def horovod_build_key(inputs, length=16):
    if not isinstance(inputs, dict):
        raise AnsibleFilterError(f"horovod_build_key: input must be a dict, got {type(inputs).__name__}")
    try:
        return _build.build_key(inputs, int(length))
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from exc


class FilterModule:
    def filters(self):
        return {"horovod_build_key": horovod_build_key}
