# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The python_env probe's parser: which distribution provides a framework, and which CUDA its build carries."""

from __future__ import annotations

import json

import pytest

from ansible_collections.gpucluster.horovod.plugins.module_utils._python_env import (
    PythonEnvParseError,
    cuda_variant,
    framework_distribution,
    parse_probe,
)


@pytest.mark.parametrize(
    ("framework", "info", "dist", "variant"),
    [
        ("pytorch", {"cuda": "13.0"}, "torch", "cu130"),
        ("pytorch", {"cuda": "12.8"}, "torch", "cu128"),
        ("pytorch", {"cuda": None}, "torch", "cpu"),
        ("pytorch", {"cuda": None, "hip": "6.1.40091"}, "torch", "rocm6.1"),
        ("tensorflow", {"cuda": "12.2"}, "tensorflow", "cu122"),
        ("tensorflow", {"cuda": None}, "tensorflow-cpu", "cpu"),
        ("mxnet", {"cuda": "unknown"}, "mxnet-cu112", "cu112"),
        ("mxnet", {"cuda": "unknown"}, "mxnet", "cuda"),
        ("mxnet", {"cuda": None}, "mxnet", "cpu"),
    ],
)
def test_cuda_variant(framework, info, dist, variant):
    assert cuda_variant(framework, info, dist) == variant


def test_framework_distribution():
    assert framework_distribution("tensorflow", {"tensorflow-cpu": "2.15.0", "numpy": "1"}) == "tensorflow-cpu"
    assert framework_distribution("tensorflow", {"tensorflow": "2.15.0"}) == "tensorflow"
    assert framework_distribution("mxnet", {"mxnet-cu112": "1.9.1"}) == "mxnet-cu112"
    assert framework_distribution("pytorch", {"torchvision": "0.28.0"}) is None


def _line(data):
    return "GPUCLUSTER-PYTHON-ENV " + json.dumps(data)


def test_parse_probe_ignores_other_output_and_normalizes_names():
    data = {
        "python_version": "3.12.3",
        "executable": "/opt/torch/.venv/bin/python",
        "prefix": "/opt/torch/.venv",
        "base_prefix": "/usr",
        "conda": False,
        "pip": "24.0",
        "distributions": {"torch": "2.13.0", "Typing_Extensions": "4.16.0", "nvidia-nccl-cu13": "2.29.7"},
        "frameworks": {"pytorch": {"module_version": "2.13.0+cu130", "cuda": "13.0", "hip": None, "nccl": "2.29.7"}},
    }
    out = parse_probe("W1124 a framework's warning\n" + _line(data) + "\n")
    assert out["python_series"] == "3.12" and out["kind"] == "venv" and out["pip"] == "24.0"
    assert out["distributions"]["typing-extensions"] == "4.16.0"
    fw = out["frameworks"]["pytorch"]
    # the index's torch 2.13.0: no label in its metadata, a CUDA 13.0 build by its module
    assert (fw["version"], fw["module_version"]) == ("2.13.0", "2.13.0+cu130")
    assert (fw["variant"], fw["imported"]) == ("cu130", True)


def test_parse_probe_conda_and_failed_import():
    data = {
        "python_version": "3.11.9",
        "prefix": "/opt/conda",
        "base_prefix": "/opt/conda",
        "conda": True,
        "distributions": {"torch": "2.4.0"},
        "frameworks": {"pytorch": {"error": "OSError: libcudnn.so.9: cannot open shared object file"}},
    }
    out = parse_probe(_line(data))
    assert out["kind"] == "conda"
    assert out["frameworks"]["pytorch"]["variant"] is None
    assert "libcudnn" in out["frameworks"]["pytorch"]["error"]


def test_parse_probe_without_result_line():
    with pytest.raises(PythonEnvParseError, match="no result line"):
        parse_probe("Traceback (most recent call last):\n  ...\n")
