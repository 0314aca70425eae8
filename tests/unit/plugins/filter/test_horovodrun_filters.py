"""horovodrun filters: names in errors, hostvars read as Ansible passes them, and the FilterModule map."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter import horovodrun as f


class _HostVars(dict):
    """Stands in for Ansible's HostVars: a mapping of host name to a mapping of variables."""


def test_filters_are_registered():
    assert set(f.FilterModule().filters()) == {
        "horovodrun_hosts",
        "horovodrun_worker_counts",
        "horovodrun_hosts_arg",
        "horovodrun_argv",
        "nccl_tests_argv",
        "self_resolution_problem",
    }


def test_hosts_reads_only_the_published_facts():
    hv = _HostVars(
        n1={"ansible_facts": {"hostname": "n1", "gpucluster_gpu": {"gpu_count": 4}}, "secret": "x"},
        n2={"ansible_facts": {"hostname": "n2"}, "horovod_slots": 2},
    )
    hosts = f.horovodrun_hosts(["n1", "n2"], "n2", hv)
    assert [(h["name"], h["slots"]) for h in hosts] == [("n2", 2), ("n1", 4)]


def test_errors_carry_the_filter_name():
    with pytest.raises(AnsibleFilterError, match=r"^horovodrun_hosts: ghost is not a host of the inventory"):
        f.horovodrun_hosts(["ghost"], "ghost", _HostVars())
    with pytest.raises(AnsibleFilterError, match=r"^horovodrun_hosts_arg: 3 workers do not fit the 1 slots"):
        f.horovodrun_hosts_arg([{"address": "a", "slots": 1}], 3)


def test_argv_passes_options():
    argv = f.horovodrun_argv([{"address": "a", "slots": 1}], 1, "hr", ["p"], ssh_port=2222, controller="mpi")
    assert argv[argv.index("-p") + 1] == "2222"
    assert "--mpi" in argv


def test_nccl_tests_argv_names_itself_in_errors():
    argv = f.nccl_tests_argv([{"address": "a", "slots": 2}], 2, "/p", "1M", ssh_port=2222)
    assert argv[argv.index("-H") + 1] == "a:2"
    with pytest.raises(AnsibleFilterError, match=r"^nccl_tests_argv: 'lots' of the sizes 'lots' is not a size"):
        f.nccl_tests_argv([{"address": "a", "slots": 2}], 2, "/p", "lots")


def test_self_resolution_problem_filter_takes_getent_output_first():
    assert f.self_resolution_problem("127.0.1.1 STREAM vm\n", "vm", "vm", None) == ""
    assert "n1: its host name n1 does not resolve" in f.self_resolution_problem("", "n1", "n1", ["10.0.0.1"])
