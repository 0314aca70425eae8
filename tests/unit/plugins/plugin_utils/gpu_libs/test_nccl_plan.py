"""nccl install plan: the +cudaX.Y apt version, Debian 13's package, the wheel per CUDA major."""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs as g


@pytest.mark.parametrize(
    ("version", "cuda", "apt"),
    [
        ("2.21.5", "12.4", "2.21.5-1+cuda12.4"),
        ("2.15.5", "11.8", "2.15.5-1+cuda11.8"),
        ("2.21.5", "12.4.1", "2.21.5-1+cuda12.4"),
    ],
)
def test_repo_pins_the_whole_version_string_and_holds(version, cuda, apt):
    plan = g.nccl_plan("repo", version, cuda, "ubuntu22.04")
    assert plan["packages"] == [f"libnccl2={apt}", f"libnccl-dev={apt}"]
    assert plan["pins"] == [{"package": "libnccl2", "version": apt}, {"package": "libnccl-dev", "version": apt}]
    assert plan["hold"] == ["libnccl2", "libnccl-dev"]
    assert plan["home"] == "/usr"


def test_repo_takes_a_near_cuda_minor_build_when_the_exact_one_is_missing():
    # The seeds' lab: NCCL built only for some CUDA minors; a build for an older minor of the major runs.
    available = ["2.21.5-1+cuda12.2", "2.21.5-1+cuda12.4", "2.21.5-1+cuda11.0"]
    assert g.nccl_plan("repo", "2.21.5", "12.3", "debian12", available=available)["apt_version"] == "2.21.5-1+cuda12.2"
    with pytest.raises(g.PlanError, match=r"no libnccl2 2\.21\.5 built for CUDA 12\.1"):
        g.nccl_plan("repo", "2.21.5", "12.1", "debian12", available=available)


def test_repo_rpm_names():
    plan = g.nccl_plan("repo", "2.21.5", "12.4", "rhel9")
    assert plan["packages"] == ["libnccl-2.21.5-1+cuda12.4", "libnccl-devel-2.21.5-1+cuda12.4"]


def test_distro_is_debian13s_libnccl2():
    plan = g.nccl_plan("distro", "2.22.3", "12.4", "debian13")
    assert plan["packages"] == ["libnccl2=2.22.3-1-1", "libnccl-dev=2.22.3-1-1"]
    assert plan["hold"] == ["libnccl2", "libnccl-dev"]


@pytest.mark.parametrize(
    ("version", "cuda", "os_id", "phrase"),
    [
        ("2.22.3", "12.4", "debian12", "debian12 packages no NCCL (known: debian13 (2.22.3))"),
        ("2.21.5", "12.4", "debian13", "debian13 packages NCCL 2.22.3 (libnccl2 2.22.3-1-1), not 2.21.5"),
        ("2.22.3", "13.0", "debian13", "built for CUDA 12, not CUDA 13"),
    ],
)
def test_distro_refusals(version, cuda, os_id, phrase):
    with pytest.raises(g.PlanError) as info:
        g.nccl_plan("distro", version, cuda, os_id)
    assert phrase in str(info.value)


@pytest.mark.parametrize(
    ("version", "cuda", "requirement", "home"),
    [
        ("2.21.5", "12.4", "nvidia-nccl-cu12==2.21.5", "/opt/gpucluster/nccl-2.21.5-cu12/nvidia/nccl"),
        ("2.21.5", "11.8", "nvidia-nccl-cu11==2.21.5", "/opt/gpucluster/nccl-2.21.5-cu11/nvidia/nccl"),
        ("2.27.7", "13.0", "nvidia-nccl-cu13==2.27.7", "/opt/gpucluster/nccl-2.27.7-cu13/nvidia/nccl"),
    ],
)
def test_pip_wheel_and_the_home_horovod_links(version, cuda, requirement, home):
    plan = g.nccl_plan("pip", version, cuda, "debian12")
    assert plan["pip"] == requirement
    assert plan["home"] == home
    assert plan["target"] == home.rsplit("/nvidia/nccl", 1)[0]
    assert plan["packages"] == []


@pytest.mark.parametrize(
    ("version", "cuda", "phrase"),
    [
        ("2.22.3", "11.8", "nvidia-nccl-cu11 wheels exist for NCCL 2.0.0 .. 2.21.5, not 2.22.3"),
        ("2.15.5", "12.4", "nvidia-nccl-cu12 wheels exist for NCCL 2.16.2 .. current"),
        ("2.21.5", "10.2", "no nvidia-nccl wheel is published for CUDA 10"),
    ],
)
def test_pip_refusals(version, cuda, phrase):
    with pytest.raises(g.PlanError) as info:
        g.nccl_plan("pip", version, cuda, "debian12")
    assert phrase in str(info.value)


@pytest.mark.parametrize(
    ("method", "version", "cuda", "phrase"),
    [
        ("conda", "2.21.5", "12.4", "unknown install method"),
        ("pip", "2.21", "12.4", "three components"),
        ("pip", "", "12.4", "no NCCL or CUDA version"),
        ("repo", "2.21.5", "", "no NCCL or CUDA version"),
    ],
)
def test_bad_requests(method, version, cuda, phrase):
    with pytest.raises(g.PlanError, match=phrase):
        g.nccl_plan(method, version, cuda, "debian12")
