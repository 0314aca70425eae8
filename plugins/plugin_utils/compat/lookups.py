# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Single-table answers used by the pickers and by the small filters: GPU architecture, driver floor for a CUDA,
Open MPI usability, HOROVOD_BUILD_CUDA_CC_LIST."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from .tables import known_cuda, load_tables, toolkit_rows
from .versions import CompatError, known, text, vcmp, vtuple

_DRIVER_CACHE: Dict[Tuple[str, int], str] = {}


def normalize_gpu_name(name: str) -> str:
    """Upper-case a GPU name and drop vendor/brand prefixes so nvidia-smi and lspci names match the table."""
    n = " ".join(str(name).strip().upper().split())
    changed = True
    while changed:
        changed = False
        for prefix in ("NVIDIA ", "TESLA ", "GEFORCE "):
            if n.startswith(prefix):
                n = n[len(prefix) :]
                changed = True
    return n


def _sm_from_text(value: str) -> Optional[str]:
    t = str(value).strip().lower()
    m = re.fullmatch(r"(?:sm_?|compute_?)?(\d{1,2})\.(\d)", t)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    m = re.fullmatch(r"(?:sm_?|compute_?)?(\d{2,3})", t)
    if m:
        digits = m.group(1)
        return f"{int(digits[:-1])}.{int(digits[-1])}"
    return None


def gpu_arch(gpu: Any, tables: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """GPU model name or compute capability -> its architecture row plus ``model`` and ``sm``."""
    t = tables or load_tables()
    archs = {a["sm"]: a for a in t["gpu_arch"]["architectures"]}
    sm = _sm_from_text(gpu) if not isinstance(gpu, dict) else None
    model = None
    if sm is None:
        wanted = normalize_gpu_name(gpu)
        rows = sorted(t["gpu_arch"]["gpu_models"], key=lambda r: -len(r["model"]))
        for row in rows:
            key = normalize_gpu_name(row["model"])
            if wanted == key or wanted.startswith(key + " ") or wanted.startswith(key + "-"):
                sm, model = row["cc"], row
                break
        if sm is None:
            models = sorted(r["model"] for r in t["gpu_arch"]["gpu_models"])
            raise CompatError(
                f"GPU '{gpu}' is unknown (gpu_arch.yml); known models: {known(models)}; "
                "or give its compute capability, e.g. '8.0'"
            )
    if sm not in archs:
        raise CompatError(
            f"compute capability '{sm}' (from GPU '{gpu}') is unknown (gpu_arch.yml); "
            f"known: {known(sorted(archs, key=vtuple))}"
        )
    row = dict(archs[sm])
    row["input"] = str(gpu)
    row["model"] = model["model"] if model else "sm_{}".format(sm.replace(".", ""))
    row["open_module_required"] = bool(model and model.get("open_module_required")) or (
        row.get("kernel_module") == "open_required"
    )
    return row


def min_driver_for_cuda(cuda: Any, mode: str = "toolkit", tables: Optional[Dict[str, Any]] = None) -> str:
    """Minimum Linux driver for a CUDA version.

    ``mode='toolkit'``: the driver the toolkit needs for all features. For ``"12.6"`` (major.minor) this is the
    newest update of that minor (what the ``cuda-toolkit-12-6`` package installs); for ``"12.6.1"`` that release.
    ``mode='minor_compat'``: the lowest driver running anything built with that CUDA major.
    """
    t = tables or load_tables()
    version = text(cuda)
    if version is None or not vtuple(version):
        raise CompatError(f"'{cuda}' is not a CUDA version")
    if mode == "minor_compat":
        for row in t["cuda_driver"]["minor_compat"]:
            if row["cuda_major"] == vtuple(version)[0]:
                return row["driver_min"]
        majors = [str(r["cuda_major"]) for r in t["cuda_driver"]["minor_compat"]]
        raise CompatError(f"no minor-version-compatibility floor for CUDA {version}; known majors: {known(majors)}")
    if mode != "toolkit":
        raise CompatError(f"mode '{mode}' unknown; valid: toolkit, minor_compat")
    key = (version, id(t))
    if key in _DRIVER_CACHE:
        return _DRIVER_CACHE[key]
    rows = toolkit_rows(version, t)
    if not rows:
        raise CompatError(f"CUDA {version} unknown (cuda_driver.yml); known: {known(known_cuda(t))}")
    _DRIVER_CACHE[key] = max((r["driver_min"] for r in rows), key=vtuple)
    return _DRIVER_CACHE[key]


def openmpi_problem(version: Any, tables: Optional[Dict[str, Any]] = None) -> Optional[str]:
    """A sentence saying why an Open MPI version must not be used with Horovod, or None."""
    t = (tables or load_tables())["openmpi"]
    v = text(version)
    if v is None or not vtuple(v):
        return f"'{version}' is not an Open MPI version"
    for bad in t["known_bad"]:
        if vcmp(v, bad["version"]) == 0:
            return "Open MPI {} is known bad: {}; {}".format(v, bad["reason"], bad["fix"])
    if vcmp(v, t["min_supported"]) < 0:
        return "Open MPI {} is older than {}, the oldest Horovod builds with; use >= {}".format(
            v, t["min_supported"], t["recommended_min"]
        )
    return None


def openmpi_version_ok(version: Any, tables: Optional[Dict[str, Any]] = None) -> bool:
    """True when Horovod can use this Open MPI version."""
    return openmpi_problem(version, tables) is None


def cuda_cc_list(gpus: List[Any], tables: Optional[Dict[str, Any]] = None) -> str:
    """``["A100", "H100"]`` -> ``"80,90"`` (HOROVOD_BUILD_CUDA_CC_LIST format)."""
    sms = sorted({gpu_arch(g, tables)["sm"] for g in gpus}, key=vtuple)
    return ",".join(s.replace(".", "") for s in sms)
