"""Shared pieces of the GPU library install plans: version agreement, version codes, manifest lookup, apt builds."""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs as g
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.gpu_libs._base import pick_apt_build


@pytest.mark.parametrize(
    ("resolved", "found", "ok"),
    [
        ("12.4", "12.4", True),
        ("12.4", "12.4.131", True),
        ("12.4.1", "12.4", True),  # cudaRuntimeGetVersion reports major.minor only
        ("12.4", "12.6", False),
        ("11.8", "12.4", False),
        ("9.1.0.70", "9.1.0", True),  # cudnnGetVersion reports three components
        ("9.1.0.70", "9.1.1", False),
        ("8.9", "8.9.7", True),
        ("2.21.5", "2.21.5", True),
        ("2.21.5", "2.22.3", False),
        ("12", "12.4", False),  # one component agrees on nothing worth checking
    ],
)
def test_version_matches(resolved, found, ok):
    assert g.version_matches(resolved, found) is ok


def test_version_matches_refuses_non_versions():
    with pytest.raises(g.PlanError, match="not a version"):
        g.version_matches("12.x", "12.4")


@pytest.mark.parametrize(
    ("code", "version"),
    [(12040, "12.4"), (11080, "11.8"), (13000, "13.0"), (12060, "12.6")],
)
def test_decode_cudart(code, version):
    assert g.decode_cudart(code) == version


@pytest.mark.parametrize(
    ("code", "version"),
    # CUDNN_VERSION: 9.x M*10000+m*100+p (cudnn_version.h of 9.1.0: 90100); 8.x M*1000+m*100+p (8907 = 8.9.7).
    [(90100, "9.1.0"), (91002, "9.10.2"), (90300, "9.3.0"), (8907, "8.9.7"), (8500, "8.5.0")],
)
def test_decode_cudnn(code, version):
    assert g.decode_cudnn(code) == version


@pytest.mark.parametrize(
    ("code", "version"),
    # NCCL_VERSION_CODE: from 2.9 M*10000+m*100+p (22105 = 2.21.5), before M*1000+m*100+p (2804 = 2.8.4).
    [(22105, "2.21.5"), (22203, "2.22.3"), (22703, "2.27.3"), (2804, "2.8.4"), (20903, "2.9.3")],
)
def test_decode_nccl(code, version):
    assert g.decode_nccl(code) == version


# The shape of NVIDIA's redistrib_<release>.json: CUDA components hold the archive under the platform,
# cuDNN under the platform and a CUDA-major variant.
SHA = "a" * 64
MANIFEST = {
    "release_label": "12.4.1",
    "cuda_cudart": {
        "name": "CUDA Runtime (cudart)",
        "version": "12.4.127",
        "linux-x86_64": {
            "relative_path": "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.4.127-archive.tar.xz",
            "sha256": SHA,
        },
    },
    "cudnn": {
        "version": "9.1.0.70",
        "linux-x86_64": {
            "cuda12": {
                "relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz",
                "sha256": SHA,
            },
            "cuda11": {
                "relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda11-archive.tar.xz",
                "sha256": SHA,
            },
        },
    },
    "nosha": {"version": "1", "linux-x86_64": {"relative_path": "x/y.tar.xz", "md5": "0"}},
}


def test_redist_entry_flat_and_per_cuda_variant():
    entry = g.redist_entry(MANIFEST, "cuda_cudart", "linux-x86_64")
    assert entry == {
        "relative_path": "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.4.127-archive.tar.xz",
        "sha256": SHA,
        "version": "12.4.127",
    }
    assert g.archive_dir(entry["relative_path"]) == "cuda_cudart-linux-x86_64-12.4.127-archive"
    assert g.redist_entry(MANIFEST, "cudnn", "linux-x86_64", "cuda12")["relative_path"].endswith(
        "_cuda12-archive.tar.xz"
    )


@pytest.mark.parametrize(
    ("component", "platform", "variant", "phrase"),
    [
        ("cuda_nvcc", "linux-x86_64", None, "no component cuda_nvcc (it has: cuda_cudart, cudnn, nosha)"),
        ("cuda_cudart", "linux-sbsa", None, "no archive for linux-sbsa (it has: linux-x86_64)"),
        ("cudnn", "linux-x86_64", "cuda13", "built per CUDA major (cuda11, cuda12), not for cuda13"),
        ("nosha", "linux-x86_64", None, "no sha256"),
    ],
)
def test_redist_entry_refusals(component, platform, variant, phrase):
    with pytest.raises(g.PlanError) as info:
        g.redist_entry(MANIFEST, component, platform, variant)
    assert phrase in str(info.value)


AVAILABLE = ["2.21.5-1+cuda12.4", "2.21.5-1+cuda12.2", "2.21.5-1+cuda11.0", "2.20.5-1+cuda12.4", "2.23.4-1+cuda12.6"]


@pytest.mark.parametrize(
    ("version", "cuda", "chosen"),
    [
        ("2.21.5", "12.4", "2.21.5-1+cuda12.4"),  # the build for the CUDA minor
        ("2.21.5", "12.3", "2.21.5-1+cuda12.2"),  # none for 12.3: the newest older 12.x build
        ("2.21.5", "11.8", "2.21.5-1+cuda11.0"),
        ("2.20.5", "12.6", "2.20.5-1+cuda12.4"),
    ],
)
def test_pick_apt_build(version, cuda, chosen):
    assert pick_apt_build("libnccl2", version, cuda, AVAILABLE) == chosen


def test_pick_apt_build_lists_what_the_repository_has():
    with pytest.raises(g.PlanError) as info:
        pick_apt_build("libnccl2", "2.23.4", "12.4", AVAILABLE)
    assert "no libnccl2 2.23.4 built for CUDA 12.4 or an older 12.x" in str(info.value)
    assert "2.23.4-1+cuda12.6" in str(info.value)
