# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""python_env_facts: the probe runs with a real environment's interpreter (a venv made here, with stand-in
framework packages whose metadata and version attributes are those of the real builds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpucluster.horovod.plugins.modules import python_env_facts


def _dist(site: Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Path:
    """A venv (no pip) with a torch 2.11.0+cu130 stand-in, a TensorFlow whose import fails, and numpy."""
    root = tmp_path_factory.mktemp("env") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = next(root.glob("lib/python3.*/site-packages"))
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text(
        "__version__ = '2.11.0+cu130'\n"
        "class version:\n    cuda = '13.0'\n    hip = None\n"
        "class cuda:\n    class nccl:\n        @staticmethod\n        def version():\n            return (2, 28, 9)\n"
    )
    _dist(site, "torch", "2.11.0+cu130")
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(
        "raise ImportError('libcudart.so.12: cannot open shared object file: No such file or directory')\n"
    )
    _dist(site, "tensorflow-cpu", "2.15.0")
    (site / "numpy").mkdir()
    (site / "numpy" / "__init__.py").write_text("__version__ = '2.4.6'\n")
    _dist(site, "numpy", "2.4.6")
    return root


def _run(capsys, args):
    with patch_module_args(args), pytest.raises(SystemExit):
        python_env_facts.main()
    return json.loads(capsys.readouterr().out)


def test_reads_python_frameworks_and_their_cuda(env, capsys):
    out = _run(capsys, {"path": str(env)})["python_env"]
    assert out["exists"] is True and out["error"] is None
    assert out["python_series"] == f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert out["kind"] == "venv"
    # --without-pip: no pip in the environment
    assert out["pip"] is None
    assert out["distributions"]["numpy"] == "2.4.6"
    torch = out["frameworks"]["pytorch"]
    assert (torch["distribution"], torch["version"], torch["cuda"], torch["variant"], torch["nccl"]) == (
        "torch",
        "2.11.0+cu130",
        "13.0",
        "cu130",
        "2.28.9",
    )
    tf = out["frameworks"]["tensorflow"]
    assert tf["distribution"] == "tensorflow-cpu" and tf["variant"] is None
    assert "libcudart.so.12" in tf["error"]
    assert "mxnet" not in out["frameworks"]
    # nothing written into the environment
    assert not list(env.rglob("__pycache__"))


def test_versions_only_without_imports(env, capsys):
    out = _run(capsys, {"path": str(env), "import_frameworks": False})["python_env"]
    assert out["frameworks"]["pytorch"]["imported"] is False
    assert out["frameworks"]["pytorch"]["variant"] is None
    assert out["frameworks"]["pytorch"]["version"] == "2.11.0+cu130"


def test_missing_environment_is_reported_not_failed(tmp_path, capsys):
    out = _run(capsys, {"path": str(tmp_path / "nothing")})
    assert out.get("failed") is not True
    assert out["python_env"]["exists"] is False
    assert "does not exist" in out["python_env"]["error"]
