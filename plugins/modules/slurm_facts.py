#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: slurm_facts
short_description: Read the site's Slurm as this host sees it (controller, nodes, MPI plugins, pam_slurm_adopt)
version_added: "0.2.0"
description:
  - Where Slurm's client tools are installed, reads the configuration (C(scontrol show config)), whether the
    controller answers (C(scontrol ping)), the nodes and partitions (C(scontrol -o show node), C(scontrol -o show
    partition)), the MPI plugin types srun offers (C(srun --mpi=list)) and whether the pmix plugin really loads
    (C(srun --mpi=pmix --test-only), which submits nothing), and whether the PAM stack uses C(pam_slurm_adopt).
  - Finds this host among Slurm's nodes by its names (NodeName, NodeHostName or NodeAddr) and says what would break
    launches under Slurm (RV(slurm.problems), RV(slurm.warnings)), for example slurmd running on a host Slurm knows
    under no name, or a pmix plugin that srun lists but cannot load (Debian 12 without libpmix-dev).
  - A host without C(scontrol) has no Slurm (RV(slurm.present) false). Changes nothing; safe in check mode. The
    preflight role publishes the result as the fact C(gpucluster_slurm).
author: gpucluster.horovod contributors (@gpucluster)
options:
  names:
    description:
      - This host's names to look for among Slurm's nodes (NodeName, NodeHostName, NodeAddr). The short host name
        and the fully qualified name are always looked for.
    type: list
    elements: str
    default: []
  probe_pmix:
    description: Check that srun can load the pmix plugin (C(srun --mpi=pmix --test-only -N1 true)) where it lists it.
    type: bool
    default: true
  pam_files:
    description: PAM files read for C(pam_slurm_adopt).
    type: list
    elements: path
    default: [/etc/pam.d/sshd, /etc/pam.d/common-account, /etc/pam.d/system-auth, /etc/pam.d/password-auth]
  timeout:
    description: Seconds each Slurm command may take (a controller that does not answer makes them wait).
    type: int
    default: 20
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
  - The parsers and the rules are in C(plugins/module_utils/_slurm.py), tested on the output of Debian 12's Slurm
    22.05.8 (tests/unit/fixtures/slurm).
"""

EXAMPLES = r"""
- name: Read the site's Slurm
  gpucluster.horovod.slurm_facts:
  register: slurm

- name: Say which node Slurm has this host as
  ansible.builtin.debug:
    msg: "{{ slurm.slurm.node.name if slurm.slurm.node else 'not a Slurm node' }}"
"""

RETURN = r"""
slurm:
  description: The site's Slurm as this host sees it.
  returned: always
  type: dict
  contains:
    present:
      description: Whether Slurm's client tools are installed (C(scontrol) found).
      type: bool
    reason:
      description: Why Slurm counts as absent (only when RV(slurm.present) is false).
      type: str
    cluster:
      description: ClusterName.
      type: str
    version:
      description: Slurm's version.
      type: str
    controllers:
      description: The controllers (SlurmctldHost), primary first.
      type: list
      elements: str
    controller_up:
      description: Whether a controller answers C(scontrol ping) (null when it was not asked).
      type: bool
    mpi_default:
      description: MpiDefault.
      type: str
    mpi_types:
      description: The MPI plugin types C(srun --mpi=list) offers.
      type: list
      elements: str
    pmix_versions:
      description: The specific pmix plugin versions (for example C(pmix_v4)).
      type: list
      elements: str
    pmix_listed:
      description: Whether srun lists the pmix plugin.
      type: bool
    pmix_usable:
      description: >-
        Whether srun loaded it (null when not probed, or when srun failed for another reason - no node available,
        the controller restarting - which says nothing about the plugin).
      type: bool
    pmix_error:
      description: What srun said when it could not load the plugin, or why the probe told nothing.
      type: str
    proctrack:
      description: ProctrackType.
      type: str
    prolog_flags:
      description: PrologFlags.
      type: list
      elements: str
    gres_types:
      description: GresTypes (C(gpu) where the site schedules GPUs).
      type: list
      elements: str
    select_type:
      description: SelectType.
      type: str
    pam_slurm_adopt:
      description: Whether the PAM stack uses pam_slurm_adopt (SSH only into nodes where the user has a job).
      type: bool
    slurmd_running:
      description: Whether a slurmd process runs on this host.
      type: bool
    names:
      description: The names this host was looked for under.
      type: list
      elements: str
    node:
      description: >-
        This host's node (name, address, hostname, state, flags, usable, reason, cpus, gres, gpus, partitions,
        version), or null.
      type: dict
    nodes:
      description: Every node Slurm knows, as RV(slurm.node).
      type: list
      elements: dict
    partitions:
      description: Every partition (name, nodes, default, state).
      type: list
      elements: dict
    default_partition:
      description: The default partition's name, or null.
      type: str
    problems:
      description: What on this host breaks any launch under Slurm (slurmd on a host Slurm knows under no name).
      type: list
      elements: str
    warnings:
      description: >-
        What breaks launches through srun or SSH into the node - the controller does not answer, a pmix plugin
        srun cannot load, pam_slurm_adopt (SSH only inside an allocation) and what it needs, a drained or down node.
      type: list
      elements: str
"""

import os  # noqa: E402 - Ansible modules keep their docs first
import socket  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402

from ansible_collections.gpucluster.horovod.plugins.module_utils import _slurm as slurm  # noqa: E402


def _slurmd_running():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
                if handle.read().strip() == "slurmd":
                    return True
        except OSError:
            continue
    return False


def main():
    module = AnsibleModule(
        argument_spec={
            "names": {"type": "list", "elements": "str", "default": []},
            "probe_pmix": {"type": "bool", "default": True},
            "pam_files": {
                "type": "list",
                "elements": "path",
                "default": [
                    "/etc/pam.d/sshd",
                    "/etc/pam.d/common-account",
                    "/etc/pam.d/system-auth",
                    "/etc/pam.d/password-auth",
                ],
            },
            "timeout": {"type": "int", "default": 20},
        },
        supports_check_mode=True,
    )
    scontrol = module.get_bin_path("scontrol")
    if not scontrol:
        module.exit_json(changed=False, slurm=slurm.absent("scontrol is not installed"))
    timeout = [module.get_bin_path("timeout", required=True), str(module.params["timeout"])]
    env = {"LC_ALL": "C", "SLURM_TIME_FORMAT": "standard"}

    def run(argv):
        return module.run_command(timeout + argv, environ_update=env)

    rc, out, err = run([scontrol, "show", "config"])
    if rc != 0:
        module.exit_json(
            changed=False,
            slurm=slurm.absent("scontrol show config failed: " + ((err or out).strip().splitlines() or [""])[0]),
        )
    config = slurm.parse_config(out)
    _rc, ping_out, _err = run([scontrol, "ping"])
    _rc, nodes_out, _err = run([scontrol, "-o", "show", "node"])
    _rc, parts_out, _err = run([scontrol, "-o", "show", "partition"])
    srun = module.get_bin_path("srun")
    mpi = {"types": [], "pmix_versions": []}
    pmix = (None, None)
    if srun:
        _rc, mpi_out, mpi_err = run([srun, "--mpi=list"])
        mpi = slurm.parse_mpi_list(mpi_out + "\n" + mpi_err)
        if module.params["probe_pmix"] and "pmix" in mpi["types"]:
            rc, p_out, p_err = run([srun, "--mpi=pmix", "--test-only", "-N1", "true"])
            pmix = slurm.pmix_probe(rc, p_err + "\n" + p_out)
    pam = False
    for path in module.params["pam_files"]:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                pam = pam or slurm.pam_slurm_adopt(handle.read())
        except OSError:
            continue
    fqdn = socket.getfqdn()
    names = list(
        dict.fromkeys([*module.params["names"], socket.gethostname().split(".")[0], socket.gethostname(), fqdn])
    )
    summary = slurm.summarize(
        config,
        slurm.parse_ping(ping_out),
        slurm.parse_nodes(nodes_out),
        slurm.parse_partitions(parts_out),
        mpi,
        names=names,
        pam=pam,
        slurmd_running=_slurmd_running(),
        pmix=pmix,
    )
    module.exit_json(changed=False, slurm=summary)


if __name__ == "__main__":
    main()
