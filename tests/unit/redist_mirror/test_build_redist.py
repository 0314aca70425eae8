"""tests/redist_mirror/build-redist.py: NVIDIA's redist layout from a wheel, read back by the roles' manifest filter."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import gpu_libs

SCRIPT = Path(__file__).resolve().parents[2] / "redist_mirror" / "build-redist.py"


def _wheel(tmp_path: Path) -> Path:
    wheel = tmp_path / "nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("nvidia/cu13/include/cuda_runtime_api.h", "#define CUDART_VERSION 13000\n")
        zf.writestr("nvidia/cu13/lib/libcudart.so.13", b"\x7fELF")
        zf.writestr("nvidia/cu13/lib/__init__.py", "")
        zf.writestr("nvidia_cuda_runtime-13.0.96.dist-info/METADATA", "Name: nvidia-cuda-runtime\n")
    return wheel


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=True, capture_output=True, text=True)


def test_layout_manifest_and_tampered_copy(tmp_path):
    good, bad = tmp_path / "good", tmp_path / "bad"
    _run("--out", good, "--tampered", bad, "--release", "13.0.2", "--component", f"cuda_cudart={_wheel(tmp_path)}")
    manifest = json.loads((good / "redistrib_13.0.2.json").read_text())
    entry = gpu_libs.redist_entry(manifest, "cuda_cudart", "linux-x86_64")
    assert entry["relative_path"] == "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-13.0.96-archive.tar.xz"
    assert entry["version"] == "13.0.96"
    archive = good / entry["relative_path"]
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == entry["sha256"]
    with tarfile.open(archive) as tar:
        names = {m.name: m for m in tar.getmembers()}
    top = gpu_libs.archive_dir(entry["relative_path"])
    assert f"{top}/include/cuda_runtime_api.h" in names
    assert f"{top}/lib/libcudart.so.13" in names
    assert names[f"{top}/lib/libcudart.so"].linkname == "libcudart.so.13"  # the development link NVIDIA ships
    assert f"{top}/lib/__init__.py" not in names
    # The tampered mirror: the same manifest, an archive whose sha256 is not the manifest's.
    assert (bad / "redistrib_13.0.2.json").read_text() == (good / "redistrib_13.0.2.json").read_text()
    assert hashlib.sha256((bad / entry["relative_path"]).read_bytes()).hexdigest() != entry["sha256"]


def test_per_cuda_variant_and_subset(tmp_path):
    out = tmp_path / "cudnn"
    wheel = _wheel(tmp_path)
    _run("--out", out, "--release", "9.13.0", "--product", "cudnn", "--variant", "cuda13", "--only", "include/*",
         "--component", f"cudnn={wheel}")  # fmt: skip
    manifest = json.loads((out / "redistrib_9.13.0.json").read_text())
    entry = gpu_libs.redist_entry(manifest, "cudnn", "linux-x86_64", "cuda13")
    assert entry["relative_path"].endswith("-13.0.96_cuda13-archive.tar.xz")
    with tarfile.open(out / entry["relative_path"]) as tar:
        assert not [n for n in tar.getnames() if "/lib/" in n]
