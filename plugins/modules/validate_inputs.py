#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# Documentation stub: the work is done by the action plugin of the same name on the controller.

from __future__ import annotations

DOCUMENTATION = r"""
---
module: validate_inputs
short_description: Check the inputs of the collection's roles on every host before anything changes
version_added: "0.2.0"
description:
  - Runs on the controller (action plugin); changes nothing and opens no connection.
  - For each role in O(roles), takes the role's C(defaults/main.yml) under the host's own variables (inventory,
    play, extra vars, role parameters), templates them, and validates them with Ansible's argument-spec validator
    against the role's C(meta/argument_specs.yml) entry point C(main) - the same validation a role's own entry
    point and M(ansible.builtin.validate_argument_spec) do, from the same file.
  - Then runs the role's semantic checks (what a spec cannot express - ranges, absolute paths, POSIX user names and
    a non-root training user, hosts that exist in the inventory, parsable size lists, cross-variable sense such
    as a version the chosen install method cannot honour). They are pure Python in
    C(plugins/plugin_utils/input_checks/), unit-tested; docs/input-checks.md lists them.
  - Then the checks between roles, on the roles applied on the host (the benchmark's framework is one Horovod is
    built for).
  - Every problem of every role is reported at once, each naming the host, the variable, the bad value and
    what would be valid. Variables that cannot apply on this host (for example a CUDA pin where no GPU was found)
    are reported as warnings.
  - The preflight role runs it in the first play of the site playbook for every role the run will apply; each
    role runs it for itself in its own preflight, so a role used alone refuses the same input the same way.
author: gpucluster.horovod contributors (@gpucluster)
options:
  roles:
    description:
      - Roles of this collection to check, each a name (C(horovod)) or a dict with C(role) and C(tags), the tags of
        the play that applies it; a role whose play the run's C(--tags)/C(--skip-tags) leave out is not checked.
        An optional C(when) names a host variable; the role is then fully checked only where it is true (the roles
        C(site.yml) applies only with C(gpucluster_run_in_containers)). Where it is not, the role's argument spec is
        still checked (a wrong type or a choice that does not exist is wrong wherever it is set) and the inputs set
        for it are named in one warning saying why the role does not run there.
    type: list
    elements: raw
    required: true
  fail:
    description: Fail the task when a problem is found (false returns them in RV(problems) only).
    type: bool
    default: true
  record:
    description:
      - Return the fingerprints of the roles fully checked on the host (RV(fingerprints)) - the first play of site.yml
        publishes them as the fact C(gpucluster_inputs_checked), and a later call for a role it checked with the
        same inputs on that host (the role's own preflight in the same run) skips it - inputs are checked once per
        run. A role used alone, or given other values (role parameters), is checked again.
    type: bool
    default: false
  warn_unknown:
    description:
      - Warn about host variables that start like an input of a checked role (or C(gpucluster_)) but are no input
        of any role of the collection - usually a typo in the name, which Ansible would otherwise ignore.
    type: bool
    default: false
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
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
    platforms: all
notes:
  - Gather facts (and run P(gpucluster.horovod.gpu_facts#module)) first; checks that need them are skipped without.
seealso:
  - module: ansible.builtin.validate_argument_spec
"""

EXAMPLES = r"""
- name: Check the inputs of the roles the playbook applies, before anything changes
  gpucluster.horovod.validate_inputs:
    roles:
      - passwordless_ssh
      - openmpi
      - role: horovod_benchmark
        tags: [benchmark]
    warn_unknown: true
  any_errors_fatal: true
"""

RETURN = r"""
checked_roles:
  description: The roles whose inputs were fully checked (those selected by the run's tags and applied on the host).
  returned: always
  type: list
  elements: str
not_applied:
  description:
    - The roles selected by the run's tags that the run does not apply on this host (their C(when) variable is not
      true), each with the reason; only their argument spec was checked.
  returned: always
  type: dict
fingerprints:
  description: With O(record), each fully checked role's fingerprint (a hash of the inputs the user set for it).
  returned: always
  type: dict
already_checked:
  description: The roles skipped because the first play of this run checked them with the same inputs on the host.
  returned: always
  type: list
  elements: str
problems:
  description: One dict per problem with C(role), C(variable), C(value), C(problem) and C(valid).
  returned: always
  type: list
  elements: dict
msg:
  description: Every problem, one line each (the same root cause in several roles' variables on one line).
  returned: always
  type: str
"""
