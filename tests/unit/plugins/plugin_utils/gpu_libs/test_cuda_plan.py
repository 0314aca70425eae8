"""cuda install plan: package names, pins and refusals per method, OS and version."""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import compat
from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs as g
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat.tables import find_os

TABLES = compat.load_tables()
RELEASES = [r["cuda"] for r in TABLES["cuda_driver"]["toolkits"]]
COMPONENTS = ["cuda_cudart", "cuda_nvcc", "cuda_cccl"]


def _plan(method, version, os_id, **kw):
    kw.setdefault("os_row", find_os(os_id, TABLES))
    return g.cuda_plan(method, version, os_id, known_releases=RELEASES, components=COMPONENTS, **kw)


@pytest.mark.parametrize(
    ("version", "os_id", "package", "pin"),
    [
        ("12.4", "ubuntu22.04", "cuda-toolkit-12-4", "12.4.*"),
        ("12.4.1", "ubuntu22.04", "cuda-toolkit-12-4", "12.4.1-*"),
        ("12.6", "debian12", "cuda-toolkit-12-6", "12.6.*"),
        ("13.0", "debian13", "cuda-toolkit-13-0", "13.0.*"),
        ("12.2", "rhel9", "cuda-toolkit-12-2", "12.2.*"),
    ],
)
def test_repo_installs_the_toolkit_package_never_the_cuda_meta_package(version, os_id, package, pin):
    plan = _plan("repo", version, os_id)
    assert plan["packages"] == [package]
    assert "cuda" not in plan["packages"]
    assert plan["pins"] == [{"package": package, "version": pin}]
    assert plan["hold"] == [package]
    assert plan["home"] == f"/usr/local/cuda-{version[:4]}"


def test_repo_names_the_repository_distro():
    assert _plan("repo", "12.4", "ubuntu22.04")["repo_distro"] == "ubuntu2204"
    assert _plan("repo", "12.6", "debian12")["repo_distro"] == "debian12"


def test_repo_refuses_a_cuda_the_repository_lacks_and_points_at_the_distro_package():
    with pytest.raises(g.PlanError) as info:
        _plan("repo", "11.8", "debian12")
    text = str(info.value)
    assert "NVIDIA's repository for debian12 has CUDA 12.2-current, not 11.8" in text
    assert "debian12 packages CUDA 11.8 itself (cuda_install_method: distro)" in text


@pytest.mark.parametrize(
    ("os_id", "version", "apt"),
    [("debian12", "11.8", "11.8.89~11.8.0-5~deb12u1"), ("debian13", "12.4", "12.4.131~12.4.1-2")],
)
def test_distro_is_debians_nvidia_cuda_toolkit(os_id, version, apt):
    plan = _plan("distro", version, os_id)
    assert plan["packages"] == ["nvidia-cuda-toolkit"]
    assert plan["pins"] == [{"package": "nvidia-cuda-toolkit", "version": f"{version}.*"}]
    assert plan["hold"] == ["nvidia-cuda-toolkit"]
    assert apt in plan["note"]
    assert plan["home"] == f"/usr/local/cuda-{version}"
    assert apt.startswith(version + ".")  # the pin's glob matches Debian's version string


@pytest.mark.parametrize(
    ("os_id", "version", "phrase"),
    [
        ("debian12", "12.4", "debian12 packages CUDA 11.8 (nvidia-cuda-toolkit 11.8.89~11.8.0-5~deb12u1), not 12.4"),
        ("debian13", "11.8", "debian13 packages CUDA 12.4"),
        ("rhel9", "12.4", "rhel9 packages no CUDA toolkit of its own"),
    ],
)
def test_distro_refusals_name_what_the_os_has(os_id, version, phrase):
    with pytest.raises(g.PlanError) as info:
        _plan("distro", version, os_id)
    assert phrase in str(info.value)


@pytest.mark.parametrize(
    ("version", "release"),
    [("12.4", "12.4.1"), ("11.8", "11.8.0"), ("12.6", "12.6.3"), ("12.4.0", "12.4.0"), ("12.9", "12.9.1")],
)
def test_redist_reads_the_newest_release_manifest_of_the_minor(version, release):
    plan = _plan("redist", version, "debian12")
    assert plan["redist"] == {
        "release": release,
        "manifest": f"redistrib_{release}.json",
        "platform": "linux-x86_64",
        "components": COMPONENTS,
    }
    assert plan["packages"] == [] and plan["hold"] == []
    assert plan["home"] == f"/usr/local/cuda-{version[:4]}"


def test_redist_cuda13_adds_the_crt_headers_nvcc_no_longer_carries():
    plan = _plan("redist", "13.0", "debian13")
    assert plan["redist"]["components"] == [*COMPONENTS, "cuda_crt"]
    assert _plan("redist", "12.4", "debian13")["redist"]["components"] == COMPONENTS


def test_redist_platform_follows_the_machine():
    assert _plan("redist", "12.4", "debian12", arch="aarch64")["redist"]["platform"] == "linux-sbsa"
    with pytest.raises(g.PlanError, match="no CUDA redistributables for riscv64"):
        _plan("redist", "12.4", "debian12", arch="riscv64")


def test_redist_refuses_an_unknown_minor_without_a_patch_and_no_components():
    with pytest.raises(g.PlanError, match="set cuda_version to the full release"):
        _plan("redist", "12.7", "debian12")
    with pytest.raises(g.PlanError, match="cuda_redist_components is empty"):
        g.cuda_plan("redist", "12.4", "debian12", known_releases=RELEASES, components=[])


@pytest.mark.parametrize(
    ("method", "version", "phrase"),
    [("apt", "12.4", "unknown install method 'apt'"), ("repo", "", "no CUDA version"), ("repo", "12", "major.minor")],
)
def test_bad_requests(method, version, phrase):
    with pytest.raises(g.PlanError, match=phrase):
        _plan(method, version, "debian12")


def test_side_by_side_homes_follow_the_prefix():
    assert _plan("repo", "12.6", "debian12", prefix="/opt/")["home"] == "/opt/cuda-12.6"


@pytest.mark.parametrize(
    ("version", "wheels"),
    [
        (
            "12.4",
            ["nvidia-cuda-runtime-cu12==12.4.*", "nvidia-cuda-nvcc-cu12==12.4.*", "nvidia-cuda-cccl-cu12==12.4.*"],
        ),
        (
            "11.8.0",
            ["nvidia-cuda-runtime-cu11==11.8.*", "nvidia-cuda-nvcc-cu11==11.8.*", "nvidia-cuda-cccl-cu11==11.8.*"],
        ),
        ("13.0", ["nvidia-cuda-runtime==13.0.*", "nvidia-cuda-crt==13.0.*", "nvidia-cuda-cccl==13.0.*"]),
    ],
)
def test_header_wheels_for_compiling_without_a_toolkit(version, wheels):
    # nccl.h includes cuda_runtime.h (runtime wheel), which needs crt/host_defines.h (nvcc wheel), and
    # cuda_fp16.h, which needs <nv/target> (cccl wheel): checked by compiling against the 12.4 wheels.
    assert g.cuda_header_wheels(version) == wheels
