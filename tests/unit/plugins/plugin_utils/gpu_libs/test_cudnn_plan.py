"""cudnn install plan: package names and versions per method and cuDNN/CUDA version; the distro refusal."""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs as g


@pytest.mark.parametrize(
    ("version", "cuda", "packages", "pin"),
    [
        ("9.1.0.70", "12.4", ["libcudnn9-cuda-12=9.1.0.70-1", "libcudnn9-dev-cuda-12=9.1.0.70-1"], "9.1.0.70-1"),
        ("9.10.2.21", "12.6", ["libcudnn9-cuda-12=9.10.2.21-1", "libcudnn9-dev-cuda-12=9.10.2.21-1"], "9.10.2.21-1"),
        ("9.12.0.46", "13.0", ["libcudnn9-cuda-13=9.12.0.46-1", "libcudnn9-dev-cuda-13=9.12.0.46-1"], "9.12.0.46-1"),
        ("9.1.0", "12.4", ["libcudnn9-cuda-12", "libcudnn9-dev-cuda-12"], "9.1.0.*"),
    ],
)
def test_repo_cudnn9_packages_per_cuda_major(version, cuda, packages, pin):
    plan = g.cudnn_plan("repo", version, cuda, "ubuntu22.04")
    assert plan["packages"] == packages
    major = cuda.split(".")[0]
    assert {p["package"] for p in plan["pins"]} == {
        f"libcudnn9-cuda-{major}",
        f"libcudnn9-dev-cuda-{major}",
        f"libcudnn9-headers-cuda-{major}",
    }
    assert {p["version"] for p in plan["pins"]} == {pin}
    assert plan["hold"] == [f"libcudnn9-cuda-{major}", f"libcudnn9-dev-cuda-{major}"]


def test_repo_cudnn8_is_built_per_cuda_minor():
    plan = g.cudnn_plan("repo", "8.9.7.29", "12.2", "ubuntu22.04")
    assert plan["packages"] == ["libcudnn8=8.9.7.29-1+cuda12.2", "libcudnn8-dev=8.9.7.29-1+cuda12.2"]
    available = ["8.9.7.29-1+cuda12.2", "8.9.7.29-1+cuda11.8", "8.9.6.50-1+cuda12.2"]
    plan = g.cudnn_plan("repo", "8.9", "12.4", "ubuntu22.04", available=available)
    assert plan["packages"] == ["libcudnn8=8.9.7.29-1+cuda12.2", "libcudnn8-dev=8.9.7.29-1+cuda12.2"]
    with pytest.raises(g.PlanError, match="full version"):
        g.cudnn_plan("repo", "8.9", "12.2", "ubuntu22.04")


def test_repo_rpm_names():
    plan = g.cudnn_plan("repo", "9.1.0.70", "12.4", "rhel9")
    assert plan["packages"] == ["libcudnn9-cuda-12", "libcudnn9-devel-cuda-12"]


@pytest.mark.parametrize(
    ("version", "cuda", "requirement"),
    [
        ("9.1.0.70", "12.4", "nvidia-cudnn-cu12==9.1.0.70"),
        ("9.10.2.21", "11.8", "nvidia-cudnn-cu11==9.10.2.21"),
        ("8.9", "12.2", "nvidia-cudnn-cu12==8.9.*"),
        ("9.12.0.46", "13.0", "nvidia-cudnn-cu13==9.12.0.46"),
    ],
)
def test_pip_wheel_per_cuda_major(version, cuda, requirement):
    plan = g.cudnn_plan("pip", version, cuda, "debian12", venv="/opt/gpucluster/venv")
    assert plan["pip"] == requirement
    assert plan["packages"] == []


def test_redist_manifest_and_variant():
    plan = g.cudnn_plan("redist", "9.1.0.70", "12.4", "debian12")
    assert plan["redist"] == {
        "release": "9.1.0",
        "manifest": "redistrib_9.1.0.json",
        "component": "cudnn",
        "variant": "cuda12",
        "platform": "linux-x86_64",
    }
    assert plan["home"] == "/usr/local/cudnn-9.1.0.70-cuda12"


@pytest.mark.parametrize("os_id", ["debian12", "debian13", "ubuntu22.04"])
def test_distro_is_refused_with_the_reason(os_id):
    with pytest.raises(g.PlanError) as info:
        g.cudnn_plan("distro", "9.1.0.70", "12.4", os_id)
    text = str(info.value)
    assert "nvidia-cudnn is an installer script that downloads cuDNN from NVIDIA while apt runs" in text
    assert "whole CUDA toolkit" in text
    assert "use cudnn_install_method: pip, redist or repo" in text


@pytest.mark.parametrize(
    ("method", "version", "cuda", "kw", "phrase"),
    [
        ("repo", "9.11.0.98", "11.8", {}, "has no CUDA 11 build (the last is 9.10.2)"),
        ("pip", "9.1.0.70", "12.4", {"venv": "venv"}, "absolute path"),
        ("pip", "9.1.0.70", "10.2", {"venv": "/v"}, "no nvidia-cudnn wheel is published for CUDA 10"),
        ("redist", "9.1", "12.4", {}, "name a release (9.1.0)"),
        ("repo", "7.6.5.32", "10.2", {}, "older than the repository's packaging"),
        ("repo", "", "12.4", {}, "no cuDNN or CUDA version"),
        ("conda", "9.1.0.70", "12.4", {}, "unknown install method 'conda'"),
    ],
)
def test_refusals(method, version, cuda, kw, phrase):
    with pytest.raises(g.PlanError) as info:
        g.cudnn_plan(method, version, cuda, "ubuntu22.04", **kw)
    assert phrase in str(info.value)
