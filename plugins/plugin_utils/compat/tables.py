# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Table loading, one normaliser per framework table, and row lookups."""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from .versions import CompatError, known, mm, vcmp, vprefix, vtuple

try:
    import yaml

    _Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    HAS_YAML = True
except ImportError:  # pragma: no cover - PyYAML ships with ansible-core
    HAS_YAML = False

# plugins/plugin_utils/compat/tables.py -> collection root -> data/compat
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA_DIR = os.path.join(_ROOT, "data", "compat")
TABLE_NAMES = (
    "cuda_driver",
    "gpu_arch",
    "cudnn",
    "nccl",
    "tensorflow",
    "pytorch",
    "mxnet",
    "horovod",
    "openmpi",
    "os",
    "host_compiler",
)
FRAMEWORKS = ("pytorch", "tensorflow", "mxnet", "none")

_TABLE_CACHE: Dict[str, Dict[str, Any]] = {}


def load_tables(data_dir: Optional[str] = None) -> Dict[str, Dict[str, Any]]:
    """Read every table once per process (PyYAML's C loader when available)."""
    directory = data_dir or DATA_DIR
    if directory in _TABLE_CACHE:
        return _TABLE_CACHE[directory]
    if not HAS_YAML:
        raise CompatError("PyYAML is required to read the compatibility tables")
    tables = {}
    for name in TABLE_NAMES:
        path = os.path.join(directory, name + ".yml")
        with open(path, encoding="utf-8") as handle:
            tables[name] = yaml.load(handle, Loader=_Loader)
    _TABLE_CACHE[directory] = tables
    return tables


# --------------------------------------------------------------------------------------------- frameworks
# Each framework table has its own shape; a normaliser turns one row into
# {version, latest, python, cxx, variants, row, table} so the pickers never look at the raw shape.


def _pytorch(r: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "version": r["torch"],
        "latest": r["latest"],
        "python": r["python"],
        "cxx": r.get("cxx"),
        "variants": r["variants"],
        "row": r,
        "table": "pytorch.yml",
    }


def _tensorflow(r: Dict[str, Any]) -> Dict[str, Any]:
    variant = {
        "variant": "cu" + mm(r["cuda"]).replace(".", ""),
        "cuda": mm(r["cuda"]),
        "status": "stable",
        "cudnn": r["cudnn"],
        "nccl": r.get("nccl"),
        "sm": None,
    }
    return {
        "version": mm(r["tf"]),
        "latest": r["tf"],
        "python": r["python"],
        "cxx": None,
        "variants": [variant],
        "row": r,
        "table": "tensorflow.yml",
    }


def _mxnet(r: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "version": r["mxnet"],
        "latest": r["latest"],
        "python": r["python"],
        "cxx": None,
        "variants": r["variants"],
        "row": r,
        "table": "mxnet.yml",
    }


NORMALISERS: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {
    "pytorch": _pytorch,
    "tensorflow": _tensorflow,
    "mxnet": _mxnet,
}


_FW_CACHE: Dict[str, Tuple[Any, List[Dict[str, Any]]]] = {}


def fw_releases(framework: str, t: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Framework releases normalised to {version, latest, python, variants, cxx, row}, newest first.

    Normalised once per table set (the search asks for them for every candidate); callers must not mutate them.
    """
    table = t.get(framework)
    cached = _FW_CACHE.get(framework)
    if cached is None or cached[0] is not table:
        normalise = NORMALISERS.get(framework)
        out = [normalise(r) for r in table["releases"]] if normalise and table else []
        out.sort(key=lambda r: vtuple(r["version"]), reverse=True)
        cached = _FW_CACHE[framework] = (table, out)
    return cached[1]


def fw_label(framework: str) -> str:
    """The name a framework goes by in messages."""
    return {"pytorch": "torch", "tensorflow": "TensorFlow", "mxnet": "MXNet"}.get(framework, framework)


# --------------------------------------------------------------------------------------------- lookups


def toolkit_rows(cuda: str, t: Dict[str, Any]) -> List[Dict[str, Any]]:
    """cuda_driver.yml toolkit rows for a CUDA version (an exact update, or every update of a minor)."""
    rows = t["cuda_driver"]["toolkits"]
    exact = [r for r in rows if vcmp(r["cuda"], cuda) == 0 and len(vtuple(cuda)) >= len(vtuple(r["cuda"]))]
    if exact and len(vtuple(cuda)) > 2:
        return exact
    return [r for r in rows if vprefix(r["cuda"], mm(cuda))]


def known_cuda(tables: Optional[Dict[str, Any]] = None) -> List[str]:
    """Every CUDA major.minor in the driver table, oldest first."""
    t = tables or load_tables()
    return sorted({mm(r["cuda"]) for r in t["cuda_driver"]["toolkits"]}, key=vtuple)


def cudnn_rows(version: str, t: Dict[str, Any]) -> List[Dict[str, Any]]:
    """cudnn.yml rows matching a cuDNN version or series."""
    return [r for r in t["cudnn"]["releases"] if vprefix(r["cudnn"], mm(version)) or vprefix(version, r["cudnn"])]


def nccl_row(version: str, t: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The nccl.yml row of an NCCL version (exact, else its major.minor)."""
    rows = [r for r in t["nccl"]["releases"] if vprefix(r["nccl"], version) or vprefix(version, r["nccl"])]
    if not rows:
        rows = [r for r in t["nccl"]["releases"] if vprefix(r["nccl"], mm(version))]
    return rows[0] if rows else None


def branch_row(branch: int, t: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The cuda_driver.yml row of a driver branch."""
    for row in t["cuda_driver"]["branches"]:
        if row["branch"] == branch:
            return row
    return None


def branch_max_cuda(branch: int, t: Dict[str, Any]) -> str:
    """The newest CUDA a driver branch runs, or '?'."""
    row = branch_row(branch, t)
    return row["max_cuda"] if row else "?"


def find_os(name: Any, t: Dict[str, Any]) -> Dict[str, Any]:
    """The os.yml row of an OS id or alias."""
    if not name:
        raise CompatError("request key 'os' is required, e.g. debian12 or ubuntu22.04")
    wanted = str(name).lower().replace("_", "").replace("-", "")
    names_seen = []
    for row in t["os"]["releases"]:
        names = [row["os"], *row.get("aliases", [])]
        names_seen.extend(names)
        if wanted in [n.replace("-", "") for n in names]:
            return row
    raise CompatError(f"os '{name}' unknown (os.yml); known: {known(names_seen)}")


def host_gcc_range(cuda: str, t: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The host_compiler.yml row of a CUDA major.minor: {cuda, gcc_min, gcc_max, ...}, or None."""
    for row in t["host_compiler"]["cuda"]:
        if vcmp(row["cuda"], mm(cuda)) == 0:
            return row
    return None
