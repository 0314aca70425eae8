# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: likely cause of a failed Horovod build from its log."""

from __future__ import annotations

DOCUMENTATION = r"""
name: horovod_build_diagnosis
short_description: Name the likely cause of a failed Horovod build
version_added: "0.1.0"
description:
  - Classifies a Horovod build log (missing C++17, out of memory, CUDA mismatch, NCCL or MPI not
    found, framework not importable, missing headers or compiler, download failure) and returns a
    readable message with the evidence and the last lines of the log.
options:
  _input:
    description: Text of the build log (or its tail).
    type: str
    required: true
  log_path:
    description: Where the full log is, named in the message.
    type: str
    default: ""
  lines:
    description: How many trailing lines of the log to include.
    type: int
    default: 40
  as_dict:
    description: Return the structured diagnosis instead of the message.
    type: bool
    default: false
author: gpucluster.horovod contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Explain the failed build
  ansible.builtin.fail:
    msg: "{{ log_text | gpucluster.horovod.horovod_build_diagnosis(log_path='/var/log/gpucluster/build.log') }}"
"""

RETURN = r"""
_value:
  description: >-
    Message, or with O(as_dict) a dict with cause, explanation, evidence, causes and tail.
  type: raw
"""

from ansible.errors import AnsibleFilterError  # noqa: E402 - documentation first

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule  # noqa: E402 - documentation first

_build = LazyModule("ansible_collections.gpucluster.horovod.plugins.module_utils._horovod_build")


def horovod_build_diagnosis(log_text, log_path="", lines=40, as_dict=False):
    if not isinstance(log_text, str):
        raise AnsibleFilterError(f"horovod_build_diagnosis: input must be the log text, got {type(log_text).__name__}")
    diagnosis = _build.classify_build_failure(log_text, max_lines=int(lines))
    if as_dict:
        return diagnosis
    return _build.format_diagnosis(diagnosis, log_path)


class FilterModule:
    def filters(self):
        return {"horovod_build_diagnosis": horovod_build_diagnosis}
