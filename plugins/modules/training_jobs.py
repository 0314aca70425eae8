#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: training_jobs
short_description: List the distributed training jobs running on the host
version_added: "0.2.0"
description:
  - Reads C(/proc) and returns the processes that belong to a distributed training job, grouped into jobs (one per
    session), each with its user, its launcher or oldest process, how long it has run and one summary line.
  - A process belongs to a job when it is a launcher (C(horovodrun), C(mpirun), C(mpiexec), C(orterun), C(prterun),
    C(torchrun)), an MPI daemon (C(orted), C(prted)), a rank (its environment holds C(HOROVOD_RANK),
    C(OMPI_COMM_WORLD_RANK), C(PMIX_RANK), or C(RANK) with C(WORLD_SIZE) and C(MASTER_ADDR)), or, with O(paths), a
    process whose executable or a mapped file lies under one of them (what a change there would replace).
  - The roles run it before a change that running jobs depend on (a new Horovod wheel in the venv the jobs use, a
    new training container, sshd's or logind's configuration) and refuse, wait or warn by a variable, naming the jobs
    (see C(roles/_common/tasks/running_jobs.yml)).
  - Changes nothing; safe in check mode. Reading another user's environment and maps needs root.
author: gpucluster.horovod contributors (@gpucluster)
options:
  paths:
    description:
      - Directories whose users count as jobs too (for example the Horovod venv). Empty reads no process maps.
    type: list
    elements: path
    default: []
  within:
    description:
      - Only the processes whose control groups name this string (a Docker container's id, for the jobs in that
        container). Empty reads every process.
    type: str
    default: ""
  root:
    description:
      - The directory C(/proc) is read under. C(/) on a real host; a fixture tree in tests.
    type: path
    default: /
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - The reader and the rules are in C(plugins/module_utils/_training_jobs.py), tested on fixture trees.
  - Processes inside containers are seen too (the host sees every container's processes); their user is the uid the
    host knows.
"""

EXAMPLES = r"""
- name: Read the training jobs that use the Horovod venv
  gpucluster.horovod.training_jobs:
    paths: [/opt/horovod/venv]
  register: jobs

- name: Name them
  ansible.builtin.debug:
    msg: "{{ jobs.jobs | map(attribute='summary') | list }}"
"""

RETURN = r"""
jobs:
  description: The training jobs, oldest first.
  returned: always
  type: list
  elements: dict
  contains:
    session:
      description: The session id the job's processes share.
      type: int
    user:
      description: The user the job's leading process runs as.
      type: str
    leader:
      description: The job's launcher, else its oldest training process (C(pid), C(command)).
      type: dict
    age_s:
      description: Seconds since the leading process started.
      type: int
    processes:
      description: Each process (C(pid), C(uid), C(role), C(framework), C(rank), C(size), C(command)).
      type: list
      elements: dict
    summary:
      description: One line naming the job.
      type: str
  sample:
    - session: 4242
      user: hvd
      leader: {pid: 4242, command: horovodrun -np 2 --gloo python train.py}
      age_s: 314
      processes: []
      summary: >-
        horovodrun -np 2 --gloo python train.py (pid 4242 of hvd, running 5 min, Horovod (Gloo) rank 0 of 2 here)
summaries:
  description: The jobs' summary lines (empty when none runs).
  returned: always
  type: list
  elements: str
"""

import os  # noqa: E402 - Ansible modules keep their docs first
import pwd  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402

from ansible_collections.gpucluster.horovod.plugins.module_utils import _training_jobs as training  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec={
            "paths": {"type": "list", "elements": "path", "default": []},
            "root": {"type": "path", "default": "/"},
            "within": {"type": "str", "default": ""},
        },
        supports_check_mode=True,
    )
    root = module.params["root"]
    paths = [os.path.normpath(path) for path in module.params["paths"]]
    entries = training.read_proc(root, with_maps=bool(paths), within=module.params["within"])
    users = {}
    for uid in {entry["uid"] for entry in entries if entry["uid"] is not None}:
        try:
            users[uid] = pwd.getpwuid(uid).pw_name
        except KeyError:
            users[uid] = str(uid)
    uptime = None
    try:
        with open(os.path.join(root, "proc", "uptime"), encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    jobs = training.group_jobs(
        entries,
        paths=paths,
        own_pid=os.getpid() if root == "/" else None,
        uptime_s=uptime,
        ticks_per_s=os.sysconf("SC_CLK_TCK"),
        users=users,
    )
    module.exit_json(changed=False, jobs=jobs, summaries=[job["summary"] for job in jobs])


if __name__ == "__main__":
    main()
