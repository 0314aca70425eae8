"""GPU library filters: facts to OS ids, the engine's tables reach the cuda plan, errors name the filter."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter import gpu_libs as f

DEBIAN12 = {"distribution": "Debian", "distribution_major_version": "12", "architecture": "x86_64"}
DEBIAN13 = {"distribution": "Debian", "distribution_major_version": "13", "architecture": "x86_64"}
UBUNTU = {"distribution": "Ubuntu", "distribution_major_version": "22", "distribution_version": "22.04"}


def test_filters_are_registered_and_documented():
    names = set(f.FilterModule().filters())
    assert names == {
        "cuda_install_plan",
        "cuda_header_wheels",
        "cudnn_install_plan",
        "nccl_install_plan",
        "nccl_location",
        "gpu_lib_version_ok",
        "gpu_lib_version",
        "redist_archive",
        "gpu_stack_applies",
    }
    for name in names:
        assert (Path(f.__file__).parent / f"{name}.yml").is_file(), name


def test_cuda_plan_reads_os_and_releases_from_the_engine_tables():
    plan = f.cuda_install_plan("12.4", "redist", DEBIAN12, components=["cuda_cudart"])
    assert plan["redist"]["manifest"] == "redistrib_12.4.1.json"
    assert f.cuda_install_plan("12.4", "repo", UBUNTU)["repo_distro"] == "ubuntu2204"
    assert f.cuda_install_plan("11.8", "distro", DEBIAN12)["packages"] == ["nvidia-cuda-toolkit"]


@pytest.mark.parametrize(
    ("call", "phrase"),
    [
        (lambda: f.cuda_install_plan("12.4", "distro", DEBIAN12), "cuda_install_plan: debian12 packages CUDA 11.8"),
        (lambda: f.cudnn_install_plan("9.1.0.70", "distro", "12.4", DEBIAN13), "cudnn_install_plan: the distributions"),
        (lambda: f.nccl_install_plan("2.21.5", "distro", "12.4", DEBIAN12), "nccl_install_plan: debian12 packages no"),
        (lambda: f.gpu_lib_version("x", "nccl"), "gpu_lib_version: 'x' is not a version code"),
        (lambda: f.gpu_lib_version(1, "cublas"), "unknown library 'cublas'"),
        (lambda: f.redist_archive({}, "cuda_nvcc", "linux-x86_64"), "redist_archive: the manifest has no component"),
    ],
)
def test_errors_name_the_filter(call, phrase):
    with pytest.raises(AnsibleFilterError) as info:
        call()
    assert phrase in str(info.value)


def test_version_helpers():
    assert f.gpu_lib_version("22203", "nccl") == "2.22.3"
    assert f.gpu_lib_version(12040, "cudart") == "12.4"
    assert f.gpu_lib_version(90100, "cudnn") == "9.1.0"
    assert f.gpu_lib_version_ok("12.4", "12.4.1") is True
    assert f.gpu_lib_version_ok("garbage", "12.4") is False


def test_nccl_pip_plan_through_the_filter():
    plan = f.nccl_install_plan("2.21.5", "pip", "12.4", DEBIAN12, prefix="/opt/x")
    assert plan["home"] == "/opt/x/nccl-2.21.5-cu12/nvidia/nccl"


@pytest.mark.parametrize(
    ("facts", "forces", "applies"),
    [
        ({"gpu_count": 8}, [], True),
        ({"gpu_count": 0}, [], False),
        ({"gpu_count": "0"}, [False, "no", "false"], False),
        ({"gpu_count": 0}, [False, "yes"], True),  # an image builder: one GPU role forced
        ({"gpu_count": 0}, [True], True),
        ({}, [], True),  # gpu_facts could not count: the roles decide on the host
        (None, [], True),
        ({"gpu_count": None}, [], True),
    ],
)
def test_gpu_stack_applies_is_site_yml_group_rule(facts, forces, applies):
    assert f.gpu_stack_applies(facts, forces) is applies
