# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an existing Python environment holds (pure; the python_env_facts module runs PROBE_SCRIPT with the
environment's own interpreter and parses its output here)."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, Optional

# Frameworks Horovod builds for, the distributions that provide each (PyPI names, normalized) and its module.
FRAMEWORK_DISTRIBUTIONS = {
    "pytorch": ("torch",),
    "tensorflow": (
        "tensorflow",
        "tensorflow-cpu",
        "tensorflow-gpu",
        "tensorflow-intel",
        "intel-tensorflow",
        "tf-nightly",
        "tf-nightly-cpu",
    ),
    "mxnet": ("mxnet", "mxnet-mkl", "mxnet-native"),
}
FRAMEWORK_MODULES = {"pytorch": "torch", "tensorflow": "tensorflow", "mxnet": "mxnet"}
_MXNET_CUDA_DIST = re.compile(r"^mxnet-cu\d+[a-z]*$")

# Run as `<env>/bin/python -c PROBE_SCRIPT <framework>...`: prints one JSON object. Imports each named framework
# (the distribution metadata alone cannot tell which CUDA a build carries: the package index's torch 2.13.0 is a
# CUDA 13.0 build whose metadata version has no +cu130 label). Runs on Python 3.8 and later.
PROBE_SCRIPT = r"""
import json, os, re, sys
out = {"python_version": "%d.%d.%d" % sys.version_info[:3], "executable": sys.executable,
       "prefix": sys.prefix, "base_prefix": getattr(sys, "base_prefix", sys.prefix),
       "conda": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
       "distributions": {}, "frameworks": {}, "pip": None}
try:
    from importlib import metadata
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            out["distributions"][re.sub(r"[-_.]+", "-", name).lower()] = dist.version
except Exception as exc:
    out["distributions_error"] = "%s: %s" % (type(exc).__name__, exc)
try:
    import pip
    out["pip"] = pip.__version__
except Exception:
    pass

def _err(exc):
    return ("%s: %s" % (type(exc).__name__, exc)).strip().splitlines()[-1][:500]

def _torch():
    import torch
    info = {"module_version": torch.__version__, "cuda": torch.version.cuda,
            "hip": getattr(torch.version, "hip", None), "nccl": None}
    if torch.version.cuda:
        try:
            v = torch.cuda.nccl.version()
            info["nccl"] = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
        except Exception:
            pass
    return info

def _tensorflow():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    build = dict(tf.sysconfig.get_build_info())
    cuda = build.get("cuda_version") if build.get("is_cuda_build") else None
    return {"module_version": tf.__version__, "cuda": cuda, "cudnn": build.get("cudnn_version")}

def _mxnet():
    import mxnet
    cuda = None
    try:
        cuda = "unknown" if mxnet.runtime.Features().is_enabled("CUDA") else None
    except Exception:
        pass
    return {"module_version": mxnet.__version__, "cuda": cuda}

import importlib.util
for name in sys.argv[1:]:
    if importlib.util.find_spec({"pytorch": "torch"}.get(name, name)) is None:
        continue
    try:
        out["frameworks"][name] = {"pytorch": _torch, "tensorflow": _tensorflow, "mxnet": _mxnet}[name]()
    except Exception as exc:
        out["frameworks"][name] = {"error": _err(exc)}
print("GPUCLUSTER-PYTHON-ENV " + json.dumps(out))
"""

_MARK = "GPUCLUSTER-PYTHON-ENV "


class PythonEnvParseError(ValueError):
    """The probe printed no result line."""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", str(name)).lower()


def framework_distribution(framework: str, distributions: Dict[str, str]) -> Optional[str]:
    """The installed distribution that provides ``framework`` (torch, tensorflow-cpu, mxnet-cu112, ...), or None."""
    names = [_norm(d) for d in FRAMEWORK_DISTRIBUTIONS.get(framework, ())]
    for name in names:
        if name in distributions:
            return name
    if framework == "mxnet":
        return next((d for d in sorted(distributions) if _MXNET_CUDA_DIST.match(d)), None)
    return None


def cuda_variant(framework: str, info: Dict[str, Any], distribution: Optional[str] = None) -> str:
    """The wheel variant the framework build carries: cu130 (CUDA 13.0), rocm6.1, cuda (MXNet), or cpu."""
    cuda = info.get("cuda")
    if framework == "pytorch" and info.get("hip"):
        return "rocm" + ".".join(str(info["hip"]).split(".")[:2])
    if cuda and cuda != "unknown":
        parts = re.findall(r"\d+", str(cuda))[:2]
        if len(parts) == 2:
            return f"cu{parts[0]}{parts[1]}"
    if framework == "mxnet" and distribution and _MXNET_CUDA_DIST.match(distribution):
        return distribution.split("-", 1)[1]
    return "cuda" if cuda else "cpu"


def frameworks_to_import(distributions: Dict[str, str]) -> list:
    """The frameworks the environment has a distribution of (what the probe imports)."""
    return [fw for fw in FRAMEWORK_DISTRIBUTIONS if framework_distribution(fw, distributions)]


def parse_probe(stdout: str) -> Dict[str, Any]:
    """Parse PROBE_SCRIPT's output (other lines, such as a framework's import messages, are ignored)."""
    for line in reversed((stdout or "").splitlines()):
        if line.startswith(_MARK):
            try:
                data = json.loads(line[len(_MARK) :])
            except ValueError as exc:
                raise PythonEnvParseError(f"the probe's result line is not JSON: {exc}") from exc
            break
    else:
        raise PythonEnvParseError("the probe printed no result line")
    distributions = {_norm(k): str(v) for k, v in (data.get("distributions") or {}).items()}
    frameworks = {}
    for fw in FRAMEWORK_DISTRIBUTIONS:
        dist = framework_distribution(fw, distributions)
        if not dist:
            continue
        info = dict((data.get("frameworks") or {}).get(fw) or {})
        entry = {
            "distribution": dist,
            "version": distributions[dist],
            "module_version": info.get("module_version"),
            "cuda": info.get("cuda") if info.get("cuda") != "unknown" else None,
            "nccl": info.get("nccl"),
            "error": info.get("error"),
            "imported": fw in (data.get("frameworks") or {}),
        }
        entry["variant"] = None if entry["error"] or not entry["imported"] else cuda_variant(fw, info, dist)
        frameworks[fw] = entry
    version = str(data.get("python_version") or "")
    kind = "venv" if data.get("prefix") != data.get("base_prefix") else "prefix"
    return {
        "python_version": version,
        "python_series": ".".join(version.split(".")[:2]),
        "executable": data.get("executable"),
        "prefix": data.get("prefix"),
        "kind": "conda" if data.get("conda") else kind,
        "pip": data.get("pip"),
        "distributions": distributions,
        "frameworks": frameworks,
    }
