"""Cluster resolution: one set for every host, per-host Python/Open MPI/driver flags, conflicts as data."""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    cluster_gpus,
    os_from_facts,
    resolve_cluster,
)


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        ({"distribution": "Debian", "distribution_major_version": "12", "distribution_version": "12.7"}, "debian12"),
        (
            {"distribution": "Ubuntu", "distribution_major_version": "22", "distribution_version": "22.04"},
            "ubuntu22.04",
        ),
        ({"distribution": "Rocky", "distribution_major_version": "9", "distribution_version": "9.4"}, "rhel9"),
        ({"distribution": "RedHat", "distribution_major_version": "8", "distribution_version": "8.10"}, "rhel8"),
    ],
)
def test_os_from_facts(facts, expected):
    assert os_from_facts(facts) == expected


def test_cluster_gpus_falls_back_to_compute_capability_for_unknown_names():
    facts = {
        "gpus": [
            {"name": "NVIDIA A100-SXM4-80GB", "compute_cap": "8.0"},
            {"name": "NVIDIA Future X9", "compute_cap": "9.0"},
        ]
    }
    assert cluster_gpus(facts) == ["NVIDIA A100-SXM4-80GB", "9.0"]
    assert cluster_gpus({}) == []


def test_cpu_cluster_same_stack_everywhere():
    hosts = {"n1": {"os": "debian12", "gpus": []}, "n2": {"os": "debian12", "gpus": []}}
    answer = resolve_cluster(hosts, {"framework": "pytorch", "framework_version": "2.13"})
    assert answer["ok"], answer["msg"]
    assert answer["stacks"]["n1"] == answer["stacks"]["n2"]
    assert answer["stacks"]["n1"]["framework_cuda_variant"] == "cpu"


def test_mixed_os_shares_framework_and_horovod_but_not_python():
    hosts = {
        "n1": {"os": "debian12", "gpus": []},
        "n2": {"os": "debian13", "gpus": []},
        "n3": {"os": "debian12", "gpus": []},
    }
    answer = resolve_cluster(hosts, {"framework": "pytorch"})
    assert answer["ok"], answer["msg"]
    s1, s2 = answer["stacks"]["n1"], answer["stacks"]["n2"]
    for key in ("framework_version", "horovod"):
        assert s1[key] == s2[key]
    # The framework's build change is shared; the compiler's follows each OS (Debian 13's GCC 14 needs gcc13-headers).
    assert s1["horovod_patches"] == ["cxx17"]
    assert s2["horovod_patches"] == ["cxx17", "gcc13-headers", "gcc14-flatbuffers-span"]
    assert (s1["host_gcc"], s2["host_gcc"]) == ("12", "14")
    assert (s1["python"], s2["python"]) == ("3.11", "3.13")
    assert (s1["openmpi"], s2["openmpi"]) == ("4.1.4", "5.0.7")


def test_mixed_gpus_satisfy_every_host_and_flag_old_drivers_per_host():
    hosts = {
        "a": {"os": "ubuntu22.04", "gpus": ["V100"], "driver": "470.82.01"},
        "b": {"os": "ubuntu22.04", "gpus": ["H100"], "driver": "570.86.15"},
    }
    answer = resolve_cluster(hosts, {"framework": "pytorch"})
    assert answer["ok"], answer["msg"]
    assert answer["stacks"]["a"]["cuda"] == answer["stacks"]["b"]["cuda"] == "12.6"
    assert answer["stacks"]["a"]["driver_upgrade_required"] is True
    assert answer["stacks"]["b"]["driver_upgrade_required"] is False


def test_conflicts_are_data_and_name_the_hosts():
    hosts = {"old": {"os": "ubuntu22.04", "gpus": ["K80"]}, "new": {"os": "ubuntu22.04", "gpus": ["B200"]}}
    answer = resolve_cluster(hosts, {"framework": "pytorch"})
    assert answer["ok"] is False
    assert answer["stacks"] == {}
    assert "GPU K80 on old" in answer["msg"]
    assert "GPU B200 on new" in answer["msg"]
    assert answer["conflicts"] and all(c["hosts"] == ["new", "old"] for c in answer["conflicts"])


def test_bad_pin_is_reported_not_raised():
    answer = resolve_cluster({"n1": {"os": "debian12", "gpus": []}}, {"openmpi": "3.1.3"})
    assert answer["ok"] is False
    assert "Open MPI 3.1.3 is known bad" in answer["msg"]
    assert "Hosts affected: n1 (debian12)" in answer["msg"]


def test_no_hosts():
    assert resolve_cluster({}, {})["ok"] is False
