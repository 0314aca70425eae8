"""The site's Slurm from its tools' output (module_utils/_slurm.py), on the output of Debian 12's Slurm 22.05.8
captured in tests/unit/fixtures/slurm/debian12-22.05.8 (see the README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.module_utils import _slurm as slurm

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "slurm"
D12 = FIX / "debian12-22.05.8"


def _read(name):
    return (D12 / name).read_text()


def test_config_of_a_real_slurm():
    config = slurm.parse_config(_read("show-config.txt"))
    assert config["ClusterName"] == "lab" and config["SLURM_VERSION"] == "22.05.8"
    assert config["SlurmctldHosts"] == ["vm"]
    assert (config["MpiDefault"], config["ProctrackType"], config["PrologFlags"]) == (
        "pmix",
        "proctrack/linuxproc",
        "Alloc,Contain",
    )
    # (null) is no value; the MPI plugins' section is read too
    assert config["MpiParams"] is None and config["PMIxDirectConn"] == "yes"
    # the banner and the ping line are not settings
    assert not any(k.startswith(("Configuration", "Slurmctld(")) for k in config)


def test_nodes_of_a_real_slurm():
    nodes = {n["name"]: n for n in slurm.parse_nodes(_read("show-node.txt"))}
    assert sorted(nodes) == ["gpu01", "gpu02", "gpu03", "n2", "vm"]
    vm = nodes["vm"]
    assert (vm["state"], vm["flags"], vm["usable"], vm["cpus"], vm["gpus"]) == ("IDLE", [], True, 2, 0)
    assert vm["partitions"] == ["gpu", "debug"] and vm["version"] == "22.05.8"
    n2 = nodes["n2"]
    # a value with spaces and brackets is read whole; a node without a slurmd is not usable
    assert n2["reason"] == "NO NETWORK ADDRESS FOUND [slurm@2026-11-29T00:13:43]"
    assert (n2["state"], n2["usable"], n2["address"], n2["gpus"]) == ("UNKNOWN", False, "192.0.2.99", 2)
    assert nodes["gpu02"]["gpus"] == 8 and nodes["gpu02"]["address"] == "192.0.2.12"


def test_partitions_of_a_real_slurm_expand_the_host_list():
    parts = slurm.parse_partitions(_read("show-partition.txt"))
    assert [(p["name"], p["default"], p["state"]) for p in parts] == [("gpu", True, "UP"), ("debug", False, "UP")]
    assert parts[0]["nodes"] == ["gpu01", "gpu02", "gpu03", "n2", "vm"]


@pytest.mark.parametrize(
    ("expression", "names"),
    [
        ("gpu[01-03],n2,vm", ["gpu01", "gpu02", "gpu03", "n2", "vm"]),
        ("node[1-2,10]", ["node1", "node2", "node10"]),
        ("rack[1-2]-gpu[01-02]", ["rack1-gpu01", "rack1-gpu02", "rack2-gpu01", "rack2-gpu02"]),
        ("", []),
        ("single", ["single"]),
    ],
)
def test_host_lists(expression, names):
    # what `scontrol show hostnames` prints for the same expressions
    assert slurm.expand_hostlist(expression) == names


@pytest.mark.parametrize(
    ("state", "base", "flags", "usable"),
    [
        ("IDLE", "IDLE", [], True),
        ("MIXED", "MIXED", [], True),
        ("IDLE+DRAIN", "IDLE", ["DRAIN"], False),
        ("DOWN*", "DOWN", ["NOT_RESPONDING"], False),
        ("ALLOCATED+COMPLETING", "ALLOCATED", ["COMPLETING"], True),
    ],
)
def test_node_states(state, base, flags, usable):
    node = slurm.parse_nodes(f"NodeName=x State={state} Partitions=p")[0]
    assert (node["state"], node["flags"], node["usable"]) == (base, flags, usable)


@pytest.mark.parametrize(
    ("gres", "gpus"),
    [("gpu:8", 8), ("gpu:h100:8(S:0-1)", 8), ("gpu:a100:4,nic:1", 4), ("gpu:a100:2,gpu:v100:2", 4), (None, 0)],
)
def test_gres_gpus(gres, gpus):
    assert slurm.gres_gpus(gres) == gpus


def test_ping_up_and_down():
    assert slurm.parse_ping(_read("ping.txt")) == [{"role": "primary", "host": "vm", "up": True}]
    assert slurm.parse_ping(_read("ping-down.txt")) == [{"role": "primary", "host": "vm", "up": False}]


def test_mpi_list_of_a_real_srun():
    assert slurm.parse_mpi_list(_read("mpi-list.txt")) == {
        "types": ["pmix", "none", "cray_shasta", "pmi2"],
        "pmix_versions": ["pmix_v4"],
    }


def test_pmix_probe_of_a_real_srun_without_libpmix_so():
    # Debian 12's mpi/pmix_v4 opens libpmix.so, which only libpmix-dev installs: srun lists pmix but cannot load it
    usable, detail = slurm.pmix_probe(1, _read("srun-pmix-broken.txt"))
    assert usable is False and detail.startswith("mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:195")
    assert slurm.pmix_probe(0, _read("srun-pmix-test-only.txt")) == (True, None)


def test_pmix_probe_that_failed_for_another_reason_says_nothing_about_the_plugin():
    # found in molecule: right after slurmctld restarted, the probe failed without a word about the plugin, and the
    # fact said "pmix does not load"
    usable, detail = slurm.pmix_probe(1, _read("srun-test-only-unavailable.txt"))
    assert usable is None
    assert (
        detail
        == "srun --mpi=pmix --test-only failed: allocation failure: Requested node configuration is not available"
    )


def test_pam_slurm_adopt():
    assert slurm.pam_slurm_adopt((FIX / "pam.d-sshd-adopt").read_text())
    assert not slurm.pam_slurm_adopt("# account required pam_slurm_adopt.so\n@include common-account\n")
    assert slurm.pam_slurm_adopt("account sufficient /usr/lib/security/pam_slurm_adopt.so\n")
    assert not slurm.pam_slurm_adopt("account required pam_slurm.so\n")


def _summary(**overrides):
    args = {
        "config": slurm.parse_config(_read("show-config.txt")),
        "ping": slurm.parse_ping(_read("ping.txt")),
        "nodes": slurm.parse_nodes(_read("show-node.txt")),
        "partitions": slurm.parse_partitions(_read("show-partition.txt")),
        "mpi": slurm.parse_mpi_list(_read("mpi-list.txt")),
        "names": ["vm"],
        "pam": False,
        "slurmd_running": True,
        "pmix": (True, None),
    }
    args.update(overrides)
    return slurm.summarize(**args)


def test_summary_of_the_real_node():
    s = _summary()
    assert (s["present"], s["cluster"], s["controller_up"], s["node"]["name"], s["default_partition"]) == (
        True,
        "lab",
        True,
        "vm",
        "gpu",
    )
    assert (s["pmix_listed"], s["pmix_usable"], s["problems"], s["warnings"]) == (True, True, [], [])


def test_summary_finds_the_node_by_its_address():
    assert _summary(names=["192.0.2.12"], slurmd_running=False)["node"]["name"] == "gpu02"


def test_slurmd_on_a_host_slurm_does_not_know_is_a_problem():
    s = _summary(names=["node7", "node7.lab"])
    assert s["node"] is None
    assert s["problems"] == [
        "slurmd runs here but Slurm knows no node named node7 or node7.lab (its nodes: gpu01, gpu02, gpu03, n2, vm)"
    ]


def test_warnings_pmix_that_does_not_load_adopt_without_cgroup_controller_down_node_not_usable():
    s = _summary(
        pmix=(False, "mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:195: pmi/pmix: can not load PMIx library"),
        pam=True,
        ping=slurm.parse_ping(_read("ping-down.txt")),
        names=["n2"],
    )
    assert s["problems"] == []
    text = " | ".join(s["warnings"])
    assert "the Slurm controller (vm) does not answer" in text
    assert "cannot load it: mpi/pmix_v4" in text and "install libpmix-dev" in text
    assert "SSH into this node as a user without a job here is refused" in text
    assert "ProctrackType is proctrack/linuxproc" in text
    assert "node n2 in state UNKNOWN (NO NETWORK ADDRESS FOUND" in text


def test_absent():
    assert slurm.absent("scontrol is not installed")["present"] is False
