"""tests/standin_repo/wheel-tree.py: a stand-in package's tree from the real files of a wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "standin_repo" / "wheel-tree.py"


def _wheel(tmp_path: Path) -> Path:
    wheel = tmp_path / "nvidia_nccl_cu12-2.21.5-py3-none-manylinux2014_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("nvidia/nccl/include/nccl.h", "#define NCCL_MAJOR 2\n")
        zf.writestr("nvidia/nccl/include/__init__.py", "")
        zf.writestr("nvidia/nccl/lib/libnccl.so.2", b"\x7fELF")
    return wheel


def _run(*args, check=True):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=check, capture_output=True, text=True)


def test_files_at_the_package_paths_and_links(tmp_path):
    wheel, dest = _wheel(tmp_path), tmp_path / "libnccl-dev"
    _run("--dest", dest, "--wheel", wheel, "--put", "include/*=usr/include", "--put", "lib/*=usr/lib/x86_64-linux-gnu",
         "--link", "usr/lib/x86_64-linux-gnu/libnccl.so=libnccl.so.2")  # fmt: skip
    assert (dest / "usr/include/nccl.h").read_text() == "#define NCCL_MAJOR 2\n"
    assert not (dest / "usr/include/__init__.py").exists()
    assert (dest / "usr/lib/x86_64-linux-gnu/libnccl.so.2").read_bytes() == b"\x7fELF"
    assert os.readlink(dest / "usr/lib/x86_64-linux-gnu/libnccl.so") == "libnccl.so.2"


def test_a_put_that_matches_nothing_is_an_error(tmp_path):
    result = _run("--dest", tmp_path / "t", "--wheel", _wheel(tmp_path), "--put", "bin/*=usr/bin", check=False)
    assert result.returncode != 0
    assert "no file of" in result.stderr
