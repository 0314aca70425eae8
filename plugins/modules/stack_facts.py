#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# Documentation stub: the work is done by the action plugin of the same name on the controller.

from __future__ import annotations

DOCUMENTATION = r"""
---
module: stack_facts
short_description: Resolve one compatible version set for a cluster from the facts of its hosts
version_added: "0.1.0"
description:
  - Runs on the controller (action plugin). Reads the OS facts and the P(gpucluster.horovod.gpu_facts#module) facts of
    every host, adds the framework and pins of O(request), and resolves one stack with the compatibility engine
    (see the P(gpucluster.horovod.compatible_stack#filter) filter).
  - Every host gets the same framework, Horovod, CUDA, cuDNN and NCCL, chosen to satisfy every GPU of every host;
    Python and Open MPI follow each host's OS; C(driver_upgrade_required) is per host.
  - Conflicts are returned as data (RV(ok) false, RV(msg), RV(conflicts)); the task itself does not fail, so the
    caller decides (the preflight role fails with the message).
author: gpucluster.horovod contributors (@gpucluster)
options:
  request:
    description:
      - Request keys other than C(os), C(gpus) and C(driver) (those come from facts) -
        C(framework), C(framework_version), C(python), C(horovod), C(cuda), C(cudnn), C(nccl), C(openmpi),
        C(driver_branch).
    type: dict
    default: {}
  hosts:
    description: Hosts whose facts are used. Defaults to every host of the play.
    type: list
    elements: str
attributes:
  action:
    description: Runs on the controller as an action plugin; no code is sent to the hosts.
    support: full
  async:
    description: Supports being used with the C(async) keyword.
    support: none
  check_mode:
    description: Changes nothing, so it runs the same in check mode.
    support: full
  diff_mode:
    description: Returns no diff.
    support: none
  facts:
    description: Returns C(gpucluster_stack) as an C(ansible_facts) entry for the host it ran on.
    support: full
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
    platforms: all
notes:
  - Gather facts and run P(gpucluster.horovod.gpu_facts#module) on every host first.
seealso:
  - plugin: gpucluster.horovod.compatible_stack
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Resolve the cluster stack once
  gpucluster.horovod.stack_facts:
    request:
      framework: pytorch
      framework_version: "2.13"
  run_once: true
  register: resolution

- name: Publish it to every host
  ansible.builtin.set_fact:
    gpucluster_stack: "{{ resolution.stacks[inventory_hostname] }}"
  when: resolution.ok
"""

RETURN = r"""
ok:
  description: Whether a compatible set exists.
  returned: always
  type: bool
msg:
  description: Summary of the resolved set, or every conflict with its source, the hosts affected and the nearest
    valid alternatives.
  returned: always
  type: str
conflicts:
  description: One dict per conflicting constraint with C(constraint), C(source), C(message) and C(hosts).
  returned: always
  type: list
  elements: dict
alternatives:
  description: Sentences naming what to unpin and what would then be chosen.
  returned: always
  type: list
  elements: str
stacks:
  description: Host name to its resolved stack (the keys the P(gpucluster.horovod.compatible_stack#filter) filter
    returns). Empty when RV(ok) is false.
  returned: always
  type: dict
hosts:
  description: What was read from each host's facts - C(os), C(gpus), C(driver).
  returned: always
  type: dict
ansible_facts:
  description: C(gpucluster_stack) of the host the task ran on, when RV(ok) is true.
  returned: when ok
  type: dict
"""
