# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compatibility engine: resolve one mutually compatible GPU/MPI/framework/Horovod version set.

Pure Python (no Ansible imports) so that it is unit-tested directly. The data lives in versioned
YAML tables under ``data/compat/`` at the collection root; :func:`load_tables` reads them once.
Entry points: :func:`resolve` (the ``compatible_stack`` filter) and the small helpers
:func:`min_driver_for_cuda`, :func:`gpu_arch`, :func:`openmpi_version_ok`.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any, Dict, List, Optional, Tuple

try:
    import yaml

    _Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    HAS_YAML = True
except ImportError:  # pragma: no cover - PyYAML ships with ansible-core
    HAS_YAML = False

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data", "compat")
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
)
FRAMEWORKS = ("pytorch", "tensorflow", "mxnet", "none")
REQUEST_KEYS = (
    "os",
    "gpus",
    "driver",
    "framework",
    "framework_version",
    "python",
    "horovod",
    "cuda",
    "cudnn",
    "nccl",
    "openmpi",
    "driver_branch",
)
PIN_KEYS = ("framework_version", "python", "horovod", "cuda", "cudnn", "nccl", "openmpi", "driver_branch")
RESULT_KEYS = (
    "os",
    "gpus",
    "driver_min",
    "driver_branch",
    "driver_upgrade_required",
    "kernel_module",
    "cuda",
    "cudnn",
    "nccl",
    "openmpi",
    "framework",
    "framework_version",
    "framework_cuda_variant",
    "framework_cxx_standard",
    "python",
    "horovod",
    "horovod_patches",
    "horovod_build_env",
    "reasons",
    "warnings",
)

_TABLE_CACHE: Dict[str, Dict[str, Any]] = {}
_DRIVER_CACHE: Dict[Tuple[str, int], str] = {}


class CompatError(Exception):
    """No compatible set exists, or the request names something unknown.

    ``conflicts`` lists ``{"constraint", "source", "message"}`` dicts; ``alternatives`` lists sentences.
    """

    def __init__(
        self, message: str, conflicts: Optional[List[Dict[str, str]]] = None, alternatives: Optional[List[str]] = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.conflicts = conflicts or []
        self.alternatives = alternatives or []


# --------------------------------------------------------------------------------------------- versions


def vtuple(version: Any) -> Tuple[int, ...]:
    """``"11.8.0"`` -> ``(11, 8, 0)``; non-numeric tails are ignored (``"2.21.5-1+cuda12.4"`` -> (2, 21, 5, 1))."""
    return _vtuple(str(version))


@functools.lru_cache(maxsize=4096)
def _vtuple(version: str) -> Tuple[int, ...]:
    parts = re.findall(r"\d+", str(version).split("+", maxsplit=1)[0])
    return tuple(int(p) for p in parts)


def vcmp(a: Any, b: Any) -> int:
    """Compare two versions on the components both give (``"11.8"`` == ``"11.8.0"``)."""
    ta, tb = vtuple(a), vtuple(b)
    n = max(len(ta), len(tb))
    ta = ta + (0,) * (n - len(ta))
    tb = tb + (0,) * (n - len(tb))
    return (ta > tb) - (ta < tb)


def mm(version: Any) -> str:
    """Major.minor of a version string."""
    t = vtuple(version)
    return f"{t[0]}.{t[1] if len(t) > 1 else 0}"


def vprefix(version: Any, prefix: Any) -> bool:
    """``"2.0.1"`` matches prefix ``"2.0"`` and ``"2"``; ``"2.10"`` does not match ``"2.1"``."""
    tv, tp = vtuple(version), vtuple(prefix)
    return len(tp) > 0 and tv[: len(tp)] == tp


def in_range(version: str, lo: Optional[str], hi: Optional[str]) -> bool:
    """Inclusive range check on major.minor (None = open)."""
    if lo is not None and vcmp(mm(version), lo) < 0:
        return False
    return not (hi is not None and vcmp(mm(version), hi) > 0)


def _s(value: Any) -> Optional[str]:
    if value is None or value == "":
        return None
    return str(value)


# --------------------------------------------------------------------------------------------- data


def load_tables(data_dir: Optional[str] = None) -> Dict[str, Dict[str, Any]]:
    """Read every table once per process (PyYAML's C loader when available)."""
    directory = data_dir or DATA_DIR
    if directory in _TABLE_CACHE:
        return _TABLE_CACHE[directory]
    if not HAS_YAML:
        raise CompatError("compatible_stack: PyYAML is required to read the compatibility tables")
    tables = {}
    for name in TABLE_NAMES:
        path = os.path.join(directory, name + ".yml")
        with open(path, encoding="utf-8") as handle:
            tables[name] = yaml.load(handle, Loader=_Loader)
    _TABLE_CACHE[directory] = tables
    return tables


def _known(values: List[str]) -> str:
    return ", ".join(values)


# --------------------------------------------------------------------------------------------- lookups


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


def _sm_from_text(text: str) -> Optional[str]:
    t = str(text).strip().lower()
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
            known = sorted(r["model"] for r in t["gpu_arch"]["gpu_models"])
            raise CompatError(
                f"compatible_stack: GPU '{gpu}' is unknown (gpu_arch.yml); known models: {_known(known)}; "
                "or give its compute capability, e.g. '8.0'"
            )
    if sm not in archs:
        raise CompatError(
            f"compatible_stack: compute capability '{sm}' (from GPU '{gpu}') is unknown (gpu_arch.yml); "
            f"known: {_known(sorted(archs, key=vtuple))}"
        )
    row = dict(archs[sm])
    row["input"] = str(gpu)
    row["model"] = model["model"] if model else "sm_{}".format(sm.replace(".", ""))
    row["open_module_required"] = bool(model and model.get("open_module_required")) or (
        row.get("kernel_module") == "open_required"
    )
    return row


def _toolkit_rows(cuda: str, t: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = t["cuda_driver"]["toolkits"]
    exact = [r for r in rows if vcmp(r["cuda"], cuda) == 0 and len(vtuple(cuda)) >= len(vtuple(r["cuda"]))]
    if exact and len(vtuple(cuda)) > 2:
        return exact
    return [r for r in rows if vprefix(r["cuda"], mm(cuda))]


def min_driver_for_cuda(cuda: Any, mode: str = "toolkit", tables: Optional[Dict[str, Any]] = None) -> str:
    """Minimum Linux driver for a CUDA version.

    ``mode='toolkit'``: the driver the toolkit needs for all features. For ``"12.6"`` (major.minor) this is the
    newest update of that minor (what the ``cuda-toolkit-12-6`` package installs); for ``"12.6.1"`` that release.
    ``mode='minor_compat'``: the lowest driver running anything built with that CUDA major.
    """
    t = tables or load_tables()
    version = _s(cuda)
    if version is None or not vtuple(version):
        raise CompatError(f"min_driver_for_cuda: '{cuda}' is not a CUDA version")
    if mode == "minor_compat":
        for row in t["cuda_driver"]["minor_compat"]:
            if row["cuda_major"] == vtuple(version)[0]:
                return row["driver_min"]
        known = [str(r["cuda_major"]) for r in t["cuda_driver"]["minor_compat"]]
        raise CompatError(
            f"min_driver_for_cuda: no minor-version-compatibility floor for CUDA {version}; "
            f"known majors: {_known(known)}"
        )
    if mode != "toolkit":
        raise CompatError(f"min_driver_for_cuda: mode '{mode}' unknown; valid: toolkit, minor_compat")
    key = (version, id(t))
    if key in _DRIVER_CACHE:
        return _DRIVER_CACHE[key]
    rows = _toolkit_rows(version, t)
    if not rows:
        raise CompatError(
            f"min_driver_for_cuda: CUDA {version} unknown (cuda_driver.yml); known: {_known(known_cuda(t))}"
        )
    _DRIVER_CACHE[key] = max((r["driver_min"] for r in rows), key=vtuple)
    return _DRIVER_CACHE[key]


def known_cuda(tables: Optional[Dict[str, Any]] = None) -> List[str]:
    """Every CUDA major.minor in the driver table, oldest first."""
    t = tables or load_tables()
    return sorted({mm(r["cuda"]) for r in t["cuda_driver"]["toolkits"]}, key=vtuple)


def openmpi_problem(version: Any, tables: Optional[Dict[str, Any]] = None) -> Optional[str]:
    """A sentence saying why an Open MPI version must not be used with Horovod, or None."""
    t = (tables or load_tables())["openmpi"]
    v = _s(version)
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


# --------------------------------------------------------------------------------------------- resolver


class _Ctx:
    """Validated request plus the tables."""

    def __init__(self, request: Dict[str, Any], t: Dict[str, Any]) -> None:
        self.t = t
        self.request = request
        self.os = _find_os(request.get("os"), t)
        self.gpus = [gpu_arch(g, t) for g in (request.get("gpus") or [])]
        fw = _s(request.get("framework")) or "pytorch"
        if fw not in FRAMEWORKS:
            raise CompatError("compatible_stack: framework '{}' unknown; valid: {}".format(fw, ", ".join(FRAMEWORKS)))
        self.framework = fw
        self.fv = _s(request.get("framework_version"))
        self.python = _s(request.get("python"))
        self.driver = _s(request.get("driver"))
        self.pins = {k: _s(request.get(k)) for k in ("horovod", "cuda", "cudnn", "nccl", "openmpi", "driver_branch")}
        self.pins["driver_branch"] = _norm_branch(self.pins["driver_branch"])
        self._validate_pins()

    def _validate_pins(self) -> None:
        t = self.t
        if self.pins["horovod"]:
            known = [r["horovod"] for r in t["horovod"]["releases"]]
            if not any(vprefix(k, self.pins["horovod"]) for k in known):
                raise CompatError(
                    "compatible_stack: horovod '{}' unknown (horovod.yml); known: {}".format(
                        self.pins["horovod"], _known(known)
                    )
                )
        if self.pins["cuda"] and not _toolkit_rows(self.pins["cuda"], t):
            raise CompatError(
                "compatible_stack: cuda '{}' unknown (cuda_driver.yml); known: {}".format(
                    self.pins["cuda"], _known(known_cuda(t))
                )
            )
        if self.pins["cudnn"] and not _cudnn_rows(self.pins["cudnn"], t):
            known = [r["cudnn"] for r in t["cudnn"]["releases"]]
            raise CompatError(
                "compatible_stack: cudnn '{}' unknown (cudnn.yml); known: {}".format(self.pins["cudnn"], _known(known))
            )
        if self.pins["nccl"] and not _nccl_row(self.pins["nccl"], t):
            known = [r["nccl"] for r in t["nccl"]["releases"]]
            raise CompatError(
                "compatible_stack: nccl '{}' unknown (nccl.yml); known: {}".format(self.pins["nccl"], _known(known))
            )
        if self.pins["driver_branch"] is not None:
            known = [str(b["branch"]) for b in t["cuda_driver"]["branches"]]
            if str(self.pins["driver_branch"]) not in known:
                raise CompatError(
                    "compatible_stack: driver_branch '{}' unknown (cuda_driver.yml); known: {}".format(
                        self.pins["driver_branch"], _known(known)
                    )
                )
        if self.driver is not None and len(vtuple(self.driver)) < 2:
            raise CompatError(f"compatible_stack: driver '{self.driver}' is not a driver version such as 535.183.01")
        if self.fv is not None and self.framework != "none":
            releases = _fw_releases(self.framework, t)
            known = [r["version"] for r in releases]
            if not any(vprefix(r["version"], self.fv) or vprefix(r["latest"], self.fv) for r in releases):
                raise CompatError(
                    f"compatible_stack: framework_version '{self.fv}' unknown for {self.framework} "
                    f"({self.framework}.yml); known: {_known(known)}"
                )


def _norm_branch(value: Optional[str]) -> Optional[int]:
    if value is None:
        return None
    t = vtuple(value)
    if not t:
        raise CompatError(f"compatible_stack: driver_branch '{value}' is not a branch such as 535 or R580")
    return t[0]


def _find_os(name: Any, t: Dict[str, Any]) -> Dict[str, Any]:
    if not name:
        raise CompatError("compatible_stack: request key 'os' is required, e.g. debian12 or ubuntu22.04")
    wanted = str(name).lower().replace("_", "").replace("-", "")
    known = []
    for row in t["os"]["releases"]:
        names = [row["os"], *row.get("aliases", [])]
        known.extend(names)
        if wanted in [n.replace("-", "") for n in names]:
            return row
    raise CompatError(f"compatible_stack: os '{name}' unknown (os.yml); known: {_known(known)}")


def _cudnn_rows(version: str, t: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [r for r in t["cudnn"]["releases"] if vprefix(r["cudnn"], mm(version)) or vprefix(version, r["cudnn"])]


def _nccl_row(version: str, t: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    rows = [r for r in t["nccl"]["releases"] if vprefix(r["nccl"], version) or vprefix(version, r["nccl"])]
    if not rows:
        rows = [r for r in t["nccl"]["releases"] if vprefix(r["nccl"], mm(version))]
    return rows[0] if rows else None


def _fw_releases(framework: str, t: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Framework releases normalised to {version, latest, python, variants, cxx, row}, newest first."""
    out = []
    if framework == "pytorch":
        for r in t["pytorch"]["releases"]:
            out.append(
                {
                    "version": r["torch"],
                    "latest": r["latest"],
                    "python": r["python"],
                    "cxx": r.get("cxx"),
                    "variants": r["variants"],
                    "row": r,
                    "table": "pytorch.yml",
                }
            )
    elif framework == "tensorflow":
        for r in t["tensorflow"]["releases"]:
            variant = {
                "variant": "cu" + mm(r["cuda"]).replace(".", ""),
                "cuda": mm(r["cuda"]),
                "status": "stable",
                "cudnn": r["cudnn"],
                "nccl": r.get("nccl"),
                "sm": None,
            }
            out.append(
                {
                    "version": mm(r["tf"]),
                    "latest": r["tf"],
                    "python": r["python"],
                    "cxx": None,
                    "variants": [variant],
                    "row": r,
                    "table": "tensorflow.yml",
                }
            )
    elif framework == "mxnet":
        for r in t["mxnet"]["releases"]:
            out.append(
                {
                    "version": r["mxnet"],
                    "latest": r["latest"],
                    "python": r["python"],
                    "cxx": None,
                    "variants": r["variants"],
                    "row": r,
                    "table": "mxnet.yml",
                }
            )
    out.sort(key=lambda r: vtuple(r["version"]), reverse=True)
    return out


def _fw_label(framework: str) -> str:
    return {"pytorch": "torch", "tensorflow": "TensorFlow", "mxnet": "MXNet"}.get(framework, framework)


def _sm_covered(sm: str, wheel_sms: Optional[List[str]]) -> bool:
    """SASS for X.y runs on X.z (z >= y); "+PTX" entries JIT-compile for any newer SM."""
    if not wheel_sms:
        return True
    for entry in wheel_sms:
        ptx = entry.endswith("+PTX")
        base = entry.replace("+PTX", "")
        if ptx and vcmp(sm, base) >= 0:
            return True
        if vtuple(base)[0] == vtuple(sm)[0] and vcmp(sm, base) >= 0:
            return True
    return False


class _Candidate:
    def __init__(self) -> None:
        self.conflicts: List[Dict[str, str]] = []
        self.warnings: List[str] = []
        self.reasons: Dict[str, str] = {}
        self.result: Dict[str, Any] = {}
        self.horovod: Optional[str] = None

    def conflict(self, constraint: str, source: str, message: str) -> None:
        self.conflicts.append({"constraint": constraint, "source": source, "message": message})


def _horovod_releases(ctx: _Ctx) -> List[Dict[str, Any]]:
    rows = list(ctx.t["horovod"]["releases"])
    rows.sort(key=lambda r: vtuple(r["horovod"]), reverse=True)
    if ctx.pins["horovod"]:
        rows = [r for r in rows if vprefix(r["horovod"], ctx.pins["horovod"])]
    return rows


def _python_candidates(ctx: _Ctx) -> List[Tuple[str, str]]:
    if ctx.python:
        return [(ctx.python, f"pinned python {ctx.python}")]
    out = [(ctx.os["python"], "{}'s python3 is {}".format(ctx.os["os"], ctx.os["python"]))]
    for p in sorted(ctx.os.get("python_available") or [], key=vtuple, reverse=True):
        out.append((p, "python {} is the newest {} vendor interpreter the framework supports".format(p, ctx.os["os"])))
    return out


def _variants(ctx: _Ctx, fw: Optional[Dict[str, Any]], hv: Optional[Dict[str, Any]]) -> List[Dict[str, Any]]:
    if not ctx.gpus:
        return [{"variant": "cpu", "cuda": None, "status": "stable", "cudnn": None, "nccl": None, "sm": None}]
    if fw is None:
        newest = max(ctx.t["horovod"]["releases"], key=lambda r: vtuple(r["horovod"]))
        cudas = sorted(
            known_cuda(ctx.t), key=lambda v: (vcmp(v, newest["cuda_known_max"]) > 0, tuple(-x for x in vtuple(v)))
        )
        return [
            {"variant": None, "cuda": c, "status": "stable", "cudnn": None, "nccl": None, "sm": None} for c in cudas
        ]
    known_max = hv.get("cuda_known_max") if hv else None

    def rank(v: Dict[str, Any]) -> Tuple[int, int, Tuple[int, ...]]:
        beyond = 1 if known_max and vcmp(v["cuda"], known_max) > 0 else 0
        experimental = 0 if v.get("status") == "stable" else 1
        return (beyond, experimental, tuple(-x for x in vtuple(v["cuda"])))

    return sorted(fw["variants"], key=rank)


def _evaluate(  # noqa: PLR0912, PLR0915 - one readable pass over every constraint of one candidate
    ctx: _Ctx,
    hv: Optional[Dict[str, Any]],
    fw: Optional[Dict[str, Any]],
    python: Tuple[str, str],
    variant: Dict[str, Any],
) -> _Candidate:
    c = _Candidate()
    c.horovod = hv["horovod"] if hv else None
    t = ctx.t
    label = _fw_label(ctx.framework)
    py, py_reason = python
    c.reasons["python"] = py_reason + "."
    if ctx.python and ctx.python != ctx.os["python"] and ctx.python not in (ctx.os.get("python_available") or []):
        c.warnings.append(
            "python {} is not {}'s python3 ({}): the horovod role must find that interpreter".format(
                ctx.python, ctx.os["os"], ctx.os["python"]
            )
        )

    # ---- framework and Horovod
    patches: List[str] = []
    if fw is not None:
        lo, hi = fw["python"]
        if not in_range(py, lo, hi):
            src = "pin python" if ctx.python else "os {}".format(ctx.os["os"])
            c.conflict(
                "python",
                src,
                "{} {} supports Python {}-{}, not {} ({}; {})".format(
                    label, fw["version"], lo, hi, py, fw["table"], src
                ),
            )
        if hv is not None:
            hv_lo, hv_hi = hv["python"]
            if not in_range(py, hv_lo, hv_hi):
                c.conflict(
                    "python",
                    "horovod.yml",
                    "Horovod {} builds with Python {}-{}, not {}".format(hv["horovod"], hv_lo, hv_hi, py),
                )
            rules = hv["frameworks"][ctx.framework]
            fv = fw["version"]
            for brk in t["horovod"]["breakages"]:
                if (
                    brk["framework"] == ctx.framework
                    and vcmp(hv["horovod"], brk["horovod_max"]) <= 0
                    and vcmp(fv, brk["from"]) >= 0
                ):
                    c.conflict(
                        "framework_version",
                        "horovod.yml breakages",
                        "{} {} does not work with Horovod {}: {}; {}".format(
                            label, fv, hv["horovod"], brk["reason"], brk["fix"]
                        ),
                    )
            if vcmp(fv, rules["min"]) < 0:
                c.conflict(
                    "framework_version",
                    "horovod.yml",
                    "Horovod {} needs {} >= {}; {} is older".format(hv["horovod"], label, rules["min"], fv),
                )
            for patch in t["horovod"]["patches"]:
                if (
                    patch["framework"] == ctx.framework
                    and hv["horovod"] in patch["horovod"]
                    and vcmp(fv, patch["framework_min"]) >= 0
                ):
                    patches.append(patch["name"])
                    c.reasons["horovod_patches"] = (
                        "Horovod {} builds its PyTorch extension as C++14 but {} {} needs C++{}: the '{}' build "
                        "change ({}) compiles it with the standard the framework requires "
                        "(framework_cxx_standard).".format(
                            hv["horovod"], label, fv, fw["cxx"], patch["name"], patch["upstream"]
                        )
                    )
            broken = [
                b
                for b in t["horovod"]["breakages"]
                if b["framework"] == ctx.framework
                and vcmp(hv["horovod"], b["horovod_max"]) <= 0
                and vcmp(fv, b["from"]) >= 0
            ]
            if vcmp(fv, rules["known_max"]) > 0 and not broken:
                msg = "{} {} is newer than the newest known to work with Horovod {} ({}; CI-tested {})".format(
                    label, fv, hv["horovod"], rules["known_max"], rules["tested_max"]
                )
                if ctx.fv:
                    c.warnings.append(msg + "; pinned, so it is attempted")
                else:
                    c.conflict("framework_version", "horovod.yml", msg)
            elif vcmp(fv, rules["tested_max"]) > 0:
                c.warnings.append(
                    "{} {} is newer than Horovod {}'s CI-tested {}; known to work up to {}".format(
                        label, fv, hv["horovod"], rules["tested_max"], rules["known_max"]
                    )
                )
            if not (hv_lo <= py and in_range(py, None, (hv.get("python_tested") or [None, None])[1])):
                c.warnings.append(
                    "python {} is outside Horovod {}'s CI-tested Python {}".format(
                        py, hv["horovod"], "-".join(hv.get("python_tested") or [])
                    )
                )

    # ---- CUDA side
    cuda = variant["cuda"]
    cudnn = nccl = driver_min = branch = kernel = None
    upgrade = False
    if ctx.gpus:
        pin = ctx.pins["cuda"]
        if fw is not None and pin and mm(pin) != cuda:
            wheel_cudas = " and ".join(v["cuda"] for v in fw["variants"])
            matching = [
                r["version"] for r in _fw_releases(ctx.framework, t) if any(v["cuda"] == mm(pin) for v in r["variants"])
            ]
            alt = (
                "{} versions with CUDA {} builds: {}".format(label, mm(pin), ", ".join(sorted(matching, key=vtuple)))
                if matching
                else f"no {label} release has CUDA {mm(pin)} builds"
            )
            c.conflict(
                "cuda",
                "pin cuda",
                "{} {} wheels exist for CUDA {}; pinned cuda {} — unpin cuda, or use {}".format(
                    label, fw["version"], wheel_cudas, pin, alt
                ),
            )
            return c
        if pin:
            cuda = pin if len(vtuple(pin)) > 2 else mm(pin)
        cuda_mm = mm(cuda)
        if fw is None and not pin:
            pass
        if fw is not None:
            c.reasons["cuda"] = (
                "{} {} is published for CUDA {} ({} variant {}); the system toolkit matches it so "
                "Horovod's GPU ops build against the same CUDA.".format(
                    label, fw["version"], cuda_mm, variant.get("status"), variant["variant"]
                )
            )
        else:
            c.reasons["cuda"] = (
                (f"pinned cuda {cuda}.")
                if pin
                else (f"CUDA {cuda_mm} is the newest toolkit every GPU and the OS support.")
            )
        if variant.get("status") == "experimental":
            c.warnings.append(
                "{} {}'s {} wheels are marked experimental upstream".format(
                    label, fw["version"] if fw else "", variant["variant"]
                )
            )
        for g in ctx.gpus:
            src = "GPU {} (sm_{}, {})".format(g["input"], g["sm"].replace(".", ""), g["arch"])
            if vcmp(cuda_mm, g["min_cuda"]) < 0:
                c.conflict(
                    "cuda",
                    src,
                    "{} needs CUDA >= {}; CUDA {} cannot target it (gpu_arch.yml)".format(src, g["min_cuda"], cuda_mm),
                )
            if g.get("max_cuda") and vcmp(cuda_mm, g["max_cuda"]) > 0:
                c.conflict(
                    "cuda",
                    src,
                    "{} is supported up to CUDA {}; CUDA {} dropped it (gpu_arch.yml)".format(
                        src, g["max_cuda"], cuda_mm
                    ),
                )
            if not _sm_covered(g["sm"], variant.get("sm")):
                c.conflict(
                    "cuda",
                    src,
                    "{} {} {} wheels carry kernels for sm {} only, not {} ({})".format(
                        label,
                        fw["version"] if fw else "",
                        variant["variant"],
                        ", ".join(variant["sm"]),
                        src,
                        fw["table"] if fw else "",
                    ),
                )
            if ctx.framework == "mxnet" and vcmp(g["sm"], t["mxnet"]["max_sm"]) > 0:
                c.conflict(
                    "framework",
                    src,
                    "no MXNet build targets {} (newest is sm_{}; mxnet.yml)".format(
                        src, t["mxnet"]["max_sm"].replace(".", "")
                    ),
                )
        lo, hi = ctx.os["cuda_repo"]
        if not in_range(cuda_mm, lo, hi) and cuda_mm != ctx.os.get("distro_cuda"):
            c.conflict(
                "cuda",
                "os {} (os.yml)".format(ctx.os["os"]),
                "{} has CUDA {}-{} in NVIDIA's repository{}, not CUDA {}".format(
                    ctx.os["os"],
                    lo,
                    hi or "current",
                    (" and {} from the distribution".format(ctx.os["distro_cuda"]))
                    if ctx.os.get("distro_cuda")
                    else "",
                    cuda_mm,
                ),
            )
        elif not in_range(cuda_mm, lo, hi):
            c.reasons["cuda"] += " {} packages CUDA {} itself (not in NVIDIA's repository for it).".format(
                ctx.os["os"], cuda_mm
            )
        if hv is not None and hv.get("cuda_known_max") and vcmp(cuda_mm, hv["cuda_known_max"]) > 0:
            msg = "CUDA {} is newer than the newest known to build Horovod {} ({}; CI-tested {})".format(
                cuda_mm, hv["horovod"], hv["cuda_known_max"], hv["cuda_tested_max"]
            )
            if pin:
                c.warnings.append(msg + "; pinned, so it is attempted")
            else:
                c.conflict("cuda", "horovod.yml", msg)

        # ---- driver
        driver_min = min_driver_for_cuda(cuda, tables=t)
        required = vtuple(driver_min)[0]
        ceilings = [g for g in ctx.gpus if g.get("last_driver_branch")]
        ceiling = min((g["last_driver_branch"] for g in ceilings), default=None)
        c.reasons["driver_min"] = (
            f"CUDA {cuda} needs driver >= {driver_min} (cuda_driver.yml, NVIDIA toolkit release notes)."
        )
        if ceiling is not None and required > ceiling:
            for g in ceilings:
                if g["last_driver_branch"] < required:
                    c.conflict(
                        "driver_branch",
                        "GPU {} ({})".format(g["input"], g["arch"]),
                        "GPU {} ({}) cannot use a driver newer than R{}, but CUDA {} needs >= {} (R{}); "
                        "use a CUDA <= {} stack".format(
                            g["input"],
                            g["arch"],
                            g["last_driver_branch"],
                            cuda,
                            driver_min,
                            required,
                            _branch_max_cuda(g["last_driver_branch"], t),
                        ),
                    )
        bpin = ctx.pins["driver_branch"]
        if bpin is not None:
            if bpin < required:
                c.conflict(
                    "driver_branch",
                    "pin driver_branch",
                    f"pinned driver_branch {bpin} is older than CUDA {cuda} needs (>= {driver_min}, R{required})",
                )
            branch = bpin
            c.reasons["driver_branch"] = f"pinned driver_branch {bpin}."
        if ctx.driver:
            if vcmp(ctx.driver, driver_min) >= 0:
                if branch is None:
                    branch = vtuple(ctx.driver)[0]
                    c.reasons["driver_branch"] = (
                        f"the installed driver {ctx.driver} already satisfies CUDA {cuda} (>= {driver_min})."
                    )
            else:
                upgrade = True
                c.reasons["driver_upgrade_required"] = (
                    f"the installed driver {ctx.driver} is older than CUDA {cuda} needs ({driver_min})."
                )
        if branch is None:
            branch, why = _pick_branch(required, ceiling, t)
            c.reasons["driver_branch"] = why
            if branch is None:
                branch = required
        row = _branch_row(branch, t)
        if row and row.get("status") == "eol":
            c.warnings.append(f"driver branch R{branch} is end of life at NVIDIA")
        if "driver_upgrade_required" not in c.reasons:
            c.reasons["driver_upgrade_required"] = (
                "no installed driver reported."
                if not ctx.driver
                else f"the installed driver {ctx.driver} is new enough."
            )

        # ---- kernel module
        needs_prop = [g for g in ctx.gpus if g.get("kernel_module") == "proprietary"]
        needs_open = [g for g in ctx.gpus if g.get("open_module_required")]
        if needs_prop and needs_open:
            c.conflict(
                "kernel_module",
                "GPU {} and GPU {}".format(needs_prop[0]["input"], needs_open[0]["input"]),
                "GPU {} ({}) needs the proprietary kernel module and GPU {} ({}) the open one; "
                "split the cluster".format(
                    needs_prop[0]["input"], needs_prop[0]["arch"], needs_open[0]["input"], needs_open[0]["arch"]
                ),
            )
        if needs_prop:
            kernel = "proprietary"
            c.reasons["kernel_module"] = (
                "{} ({}) is older than Turing: the open kernel modules do not support it.".format(
                    needs_prop[0]["input"], needs_prop[0]["arch"]
                )
            )
        elif needs_open:
            kernel = "open"
            c.reasons["kernel_module"] = "{} ({}) must use the open kernel modules.".format(
                needs_open[0]["input"], needs_open[0]["arch"]
            )
        elif branch >= t["cuda_driver"]["open_kernel_module_default_branch"]:
            kernel = "open"
            c.reasons["kernel_module"] = (
                "every GPU is Turing or newer and R{} >= R{}, where the open modules are NVIDIA's default.".format(
                    branch, t["cuda_driver"]["open_kernel_module_default_branch"]
                )
            )
        else:
            kernel = "proprietary"
            c.reasons["kernel_module"] = "R{} predates the open modules being the default (R{}).".format(
                branch,
                t["cuda_driver"]["open_kernel_module_default_branch"],
            )

        # ---- cuDNN
        cudnn = _pick_cudnn(ctx, c, fw, variant, cuda_mm)
        # ---- NCCL
        nccl = _pick_nccl(ctx, c, fw, variant, cuda_mm, hv)
    else:
        for key in ("cuda", "cudnn", "nccl", "driver_branch"):
            if ctx.pins[key] is not None:
                c.warnings.append(f"{key} is pinned but the cluster has no GPUs: ignored")
        for key in ("cuda", "cudnn", "nccl", "driver_min", "driver_branch", "kernel_module"):
            c.reasons[key] = "no GPUs in the cluster: nothing to install."
        c.reasons["driver_upgrade_required"] = "no GPUs in the cluster."

    # ---- Open MPI
    openmpi = ctx.pins["openmpi"]
    if openmpi:
        c.reasons["openmpi"] = f"pinned openmpi {openmpi}."
    else:
        openmpi = ctx.os["openmpi"]
        c.reasons["openmpi"] = "{} packages Open MPI {} (os.yml).".format(ctx.os["os"], openmpi)
        if not openmpi_version_ok(openmpi, t):
            openmpi = t["openmpi"]["recommended"]
            c.reasons["openmpi"] = f"the distribution's Open MPI is unusable; {openmpi} is what Horovod's CI used."
    if vtuple(openmpi)[0] >= t["openmpi"]["warn_from_major"]:
        c.warnings.append(" ".join(t["openmpi"]["v5_warning"].split()))
    elif vcmp(openmpi, t["openmpi"]["recommended_min"]) < 0:
        c.warnings.append(
            "Open MPI {} is older than the recommended >= {}".format(openmpi, t["openmpi"]["recommended_min"])
        )

    # ---- result
    if fw is not None:
        c.reasons["framework"] = f"requested framework {ctx.framework}."
        c.reasons["framework_version"] = (
            "{} {} is the newest {} release that satisfies every constraint (pinned '{}').".format(
                label, fw["latest"], fw["version"], ctx.fv
            )
            if ctx.fv
            else "{} {} is the newest release known to work with Horovod {} and the rest of the stack.".format(
                label, fw["latest"], hv["horovod"] if hv else "-"
            )
        )
        c.reasons["framework_cuda_variant"] = (
            "CPU-only cluster: the cpu wheel."
            if not ctx.gpus
            else "the {} build of {} {} matches CUDA {}.".format(variant["variant"], label, fw["version"], mm(cuda))
        )
        c.reasons["horovod"] = (
            "pinned horovod {}.".format(ctx.pins["horovod"])
            if ctx.pins["horovod"]
            else "Horovod {} is the newest release that works with {} {}.".format(hv["horovod"], label, fw["version"])
        )
    else:
        c.reasons["framework"] = "framework none: no framework and no Horovod build."
    c.reasons.setdefault("horovod_patches", "no build changes are needed.")
    build_env = _build_env(ctx, fw, hv, openmpi)
    c.reasons["horovod_build_env"] = (
        "framework {} on, the others off; MPI and Gloo controllers{}.".format(
            ctx.framework,
            "; NCCL GPU operations for compute capabilities " + build_env.get("HOROVOD_BUILD_CUDA_CC_LIST", "")
            if ctx.gpus
            else "; no GPU operations (CPU-only)",
        )
        if fw is not None
        else "nothing to build."
    )
    c.result = {
        "os": ctx.os["os"],
        "gpus": [{"input": g["input"], "model": g["model"], "sm": g["sm"], "arch": g["arch"]} for g in ctx.gpus],
        "driver_min": driver_min,
        "driver_branch": branch if ctx.gpus else None,
        "driver_upgrade_required": upgrade,
        "kernel_module": kernel,
        "cuda": cuda if ctx.gpus else None,
        "cudnn": cudnn,
        "nccl": nccl,
        "openmpi": openmpi,
        "framework": ctx.framework,
        "framework_version": fw["latest"] if fw else None,
        "framework_cuda_variant": (variant["variant"] if fw else None),
        "framework_cxx_standard": fw.get("cxx") if fw else None,
        "python": py,
        "horovod": hv["horovod"] if hv else None,
        "horovod_patches": patches,
        "horovod_build_env": build_env,
        "reasons": c.reasons,
        "warnings": c.warnings,
    }
    return c


def _branch_row(branch: int, t: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    for row in t["cuda_driver"]["branches"]:
        if row["branch"] == branch:
            return row
    return None


def _branch_max_cuda(branch: int, t: Dict[str, Any]) -> str:
    row = _branch_row(branch, t)
    return row["max_cuda"] if row else "?"


def _pick_branch(required: int, ceiling: Optional[int], t: Dict[str, Any]) -> Tuple[Optional[int], str]:
    rows = [
        r
        for r in t["cuda_driver"]["branches"]
        if r["branch"] >= required and (ceiling is None or r["branch"] <= ceiling)
    ]
    if not rows:
        return None, "no known branch fits."
    for group, why in (
        ([r for r in rows if r.get("status") == "supported" and r.get("type") == "LTSB"], "long-term support"),
        ([r for r in rows if r.get("status") == "supported"], "supported"),
        (rows, "end-of-life but the newest the GPUs allow"),
    ):
        if group:
            best = max(group, key=lambda r: r["branch"])
            limit = f" (the GPUs' last branch is R{ceiling})" if ceiling else ""
            return best["branch"], (
                f"R{best['branch']} is the newest {why} branch that runs the chosen CUDA{limit} (cuda_driver.yml)."
            )
    return None, "no known branch fits."  # pragma: no cover


def _pick_cudnn(
    ctx: _Ctx, c: _Candidate, fw: Optional[Dict[str, Any]], variant: Dict[str, Any], cuda_mm: str
) -> Optional[str]:
    t = ctx.t

    def supports(row: Dict[str, Any]) -> Optional[str]:
        if not any(in_range(cuda_mm, lo, hi) for lo, hi in row["cuda"]):
            return "cuDNN {} is not built for CUDA {} (cudnn.yml)".format(row["cudnn"], cuda_mm)
        for g in ctx.gpus:
            if vcmp(g["sm"], row["sm_min"]) < 0:
                return "cuDNN {} supports sm >= {}; GPU {} is sm_{} (cudnn.yml)".format(
                    row["cudnn"], row["sm_min"], g["input"], g["sm"].replace(".", "")
                )
        return None

    def gpu_limits(version: str) -> Optional[str]:
        for g in ctx.gpus:
            if g.get("max_cudnn") and vcmp(mm(version), g["max_cudnn"]) > 0:
                return "GPU {} ({}) is supported by cuDNN <= {}, not {} (gpu_arch.yml)".format(
                    g["input"], g["arch"], g["max_cudnn"], version
                )
            if g.get("min_cudnn") and vcmp(mm(version), g["min_cudnn"]) < 0:
                return "GPU {} ({}) needs cuDNN >= {}, not {} (gpu_arch.yml)".format(
                    g["input"], g["arch"], g["min_cudnn"], version
                )
        return None

    pin = ctx.pins["cudnn"]
    if pin:
        row = _cudnn_rows(pin, t)[0]
        problem = supports(row) or gpu_limits(pin)
        if problem:
            c.conflict("cudnn", "pin cudnn", f"pinned cudnn {pin}: {problem}")
        if variant.get("cudnn") and mm(variant["cudnn"]) != mm(pin):
            c.warnings.append(
                "pinned cudnn {} differs from the cuDNN {} {} {} was built with".format(
                    pin, variant["cudnn"], _fw_label(ctx.framework), fw["version"] if fw else ""
                )
            )
        c.reasons["cudnn"] = f"pinned cudnn {pin}."
        return pin
    if variant.get("cudnn"):
        chosen = str(variant["cudnn"])
        problem = gpu_limits(chosen)
        if problem:
            c.conflict("cudnn", "{} ({})".format(fw["table"], variant["variant"]), problem)
        c.reasons["cudnn"] = "{} {} ({}) is built and tested with cuDNN {}; the system cuDNN matches it.".format(
            _fw_label(ctx.framework), fw["version"], variant["variant"], chosen
        )
        return chosen
    for row in t["cudnn"]["releases"]:
        if supports(row) is None and gpu_limits(row["cudnn"]) is None:
            c.reasons["cudnn"] = (
                "cuDNN {} is the newest release built for CUDA {} that supports every GPU (cudnn.yml).".format(
                    row["cudnn"], cuda_mm
                )
            )
            return row["cudnn"]
    c.conflict("cudnn", "cudnn.yml", f"no cuDNN release supports CUDA {cuda_mm} and every GPU")
    return None


def _pick_nccl(  # noqa: PLR0917 - private helper mirroring _evaluate's state
    ctx: _Ctx,
    c: _Candidate,
    fw: Optional[Dict[str, Any]],
    variant: Dict[str, Any],
    cuda_mm: str,
    hv: Optional[Dict[str, Any]],
) -> Optional[str]:
    t = ctx.t
    major = vtuple(cuda_mm)[0]
    floor, floor_gpu = None, None
    for g in ctx.gpus:
        if g.get("min_nccl") and (floor is None or vcmp(g["min_nccl"], floor) > 0):
            floor, floor_gpu = g["min_nccl"], g
    pin = ctx.pins["nccl"]
    if pin:
        row = _nccl_row(pin, t)
        if major not in row["cuda_majors"]:
            c.conflict(
                "nccl",
                "pin nccl",
                "pinned nccl {} is built for CUDA {}, not CUDA {} (nccl.yml)".format(
                    pin, "/".join(str(m) for m in row["cuda_majors"]), major
                ),
            )
        if floor and vcmp(pin, floor) < 0:
            c.conflict(
                "nccl",
                "GPU {}".format(floor_gpu["input"]),
                "GPU {} ({}) needs NCCL >= {}; pinned nccl {}".format(
                    floor_gpu["input"], floor_gpu["arch"], floor, pin
                ),
            )
        c.reasons["nccl"] = f"pinned nccl {pin}."
        return pin
    chosen, why = None, ""
    if variant.get("nccl"):
        chosen = str(variant["nccl"])
        why = "{} {} ({}) bundles NCCL {}; the system NCCL Horovod links matches it.".format(
            _fw_label(ctx.framework), fw["version"], variant["variant"], chosen
        )
    else:
        paired = t["nccl"]["paired_with_cuda"]
        keys = [k for k in paired if vtuple(k)[0] == major and vcmp(k, cuda_mm) <= 0]
        if keys:
            key = max(keys, key=vtuple)
            chosen = paired[key]
            why = f"NVIDIA pairs NCCL {chosen} with CUDA {key} (nccl.yml)."
    if chosen is None:
        c.conflict("nccl", "nccl.yml", f"no NCCL release is known for CUDA {cuda_mm}")
        return None
    if floor and vcmp(chosen, floor) < 0:
        ups = sorted(
            (r["nccl"] for r in t["nccl"]["releases"] if major in r["cuda_majors"] and vcmp(r["nccl"], floor) >= 0),
            key=vtuple,
        )
        if not ups:
            c.conflict(
                "nccl",
                "GPU {}".format(floor_gpu["input"]),
                f"GPU {floor_gpu['input']} ({floor_gpu['arch']}) needs NCCL >= {floor}, none is built for CUDA {major}",
            )
            return None
        why = "GPU {} ({}) needs NCCL >= {}, so NCCL {} instead of {}.".format(
            floor_gpu["input"], floor_gpu["arch"], floor, ups[0], chosen
        )
        chosen = ups[0]
    c.reasons["nccl"] = why
    if hv is not None and vcmp(chosen, hv["nccl_tested_max"]) > 0:
        c.warnings.append(
            "NCCL {} is newer than Horovod {}'s CI-tested {}; Horovod links NCCL statically, so "
            "rebuild it whenever NCCL changes".format(chosen, hv["horovod"], hv["nccl_tested_max"])
        )
    return chosen


def _build_env(ctx: _Ctx, fw: Optional[Dict[str, Any]], hv: Optional[Dict[str, Any]], openmpi: str) -> Dict[str, str]:
    if fw is None or hv is None:
        return {}
    spec = ctx.t["horovod"]["build_env"]
    env: Dict[str, str] = {}
    for name in ("pytorch", "tensorflow", "mxnet"):
        if name == ctx.framework:
            env[spec["frameworks"][name]] = "1"
        else:
            env[spec["without"][name]] = "1"
    env["HOROVOD_WITH_MPI"] = "1" if openmpi else "0"
    env["HOROVOD_WITH_GLOO"] = "1"
    if ctx.gpus:
        env.update({k: str(v) for k, v in spec["gpu"].items()})
        env["HOROVOD_BUILD_CUDA_CC_LIST"] = ",".join(sorted({g["sm"].replace(".", "") for g in ctx.gpus}, key=int))
    return dict(sorted(env.items()))


def _search(ctx: _Ctx) -> Tuple[Optional[_Candidate], List[_Candidate]]:
    tried: List[_Candidate] = []
    if ctx.framework == "none":
        hvs: List[Optional[Dict[str, Any]]] = [None]
        fws: List[Optional[Dict[str, Any]]] = [None]
    else:
        hvs = list(_horovod_releases(ctx))
        fws = [
            r
            for r in _fw_releases(ctx.framework, ctx.t)
            if not ctx.fv or vprefix(r["latest"], ctx.fv) or vprefix(r["version"], ctx.fv)
        ]
    for hv in hvs:
        for fw in fws:
            for py in _python_candidates(ctx):
                for variant in _variants(ctx, fw, hv):
                    cand = _evaluate(ctx, hv, fw, py, variant)
                    if not cand.conflicts:
                        return cand, tried
                    tried.append(cand)
    return None, tried


def _global_conflicts(ctx: _Ctx) -> List[Dict[str, str]]:
    out = []
    if ctx.pins["openmpi"]:
        problem = openmpi_problem(ctx.pins["openmpi"], ctx.t)
        if problem:
            out.append({"constraint": "openmpi", "source": "pin openmpi (openmpi.yml)", "message": problem})
    bpin = ctx.pins["driver_branch"]
    if bpin is not None:
        for g in ctx.gpus:
            if g.get("last_driver_branch") and bpin > g["last_driver_branch"]:
                out.append(
                    {
                        "constraint": "driver_branch",
                        "source": "GPU {} ({})".format(g["input"], g["arch"]),
                        "message": "pinned driver_branch {} is newer than R{}, the last branch supporting GPU {} "
                        "({}); use driver_branch {}".format(
                            bpin, g["last_driver_branch"], g["input"], g["arch"], g["last_driver_branch"]
                        ),
                    }
                )
    if ctx.driver and ctx.gpus:
        installed = vtuple(ctx.driver)[0]
        for g in ctx.gpus:
            if g.get("last_driver_branch") and installed > g["last_driver_branch"]:
                out.append(
                    {
                        "constraint": "driver",
                        "source": "GPU {} ({})".format(g["input"], g["arch"]),
                        "message": "installed driver {} is newer than R{}, the last branch supporting GPU {}".format(
                            ctx.driver, g["last_driver_branch"], g["input"]
                        ),
                    }
                )
    return out


def summarize(result: Dict[str, Any]) -> str:
    """One line naming the main versions of a resolved stack."""
    parts = []
    if result.get("framework_version"):
        parts.append(
            "{} {} ({})".format(
                _fw_label(result["framework"]), result["framework_version"], result["framework_cuda_variant"]
            )
        )
    if result.get("cuda"):
        parts.append("CUDA {}".format(result["cuda"]))
    if result.get("driver_branch"):
        parts.append("driver R{}".format(result["driver_branch"]))
    if result.get("horovod"):
        hv = "Horovod {}".format(result["horovod"])
        if result.get("horovod_patches"):
            hv += " + " + ", ".join(result["horovod_patches"])
        parts.append(hv)
    parts.append("Python {}".format(result["python"]))
    return ", ".join(parts)


def _resolve(request: Dict[str, Any], t: Dict[str, Any]) -> Tuple[Optional[Dict[str, Any]], List[Dict[str, str]], _Ctx]:
    ctx = _Ctx(request, t)
    conflicts = _global_conflicts(ctx)
    if conflicts:
        return None, conflicts, ctx
    best, tried = _search(ctx)
    if best is not None:
        return best.result, [], ctx
    # The closest candidates (fewest conflicts, then preference order) first. Conflicts that differ only in
    # version numbers are one line ("... (and N similar)"), so the message stays short.
    if not ctx.pins["horovod"] and tried:
        newest = [c for c in tried if c.horovod == tried[0].horovod]
        tried = newest or tried
    shapes: Dict[Tuple[str, str, str], Dict[str, Any]] = {}
    out: List[Dict[str, str]] = []
    ranked = sorted(enumerate(tried), key=lambda pair: (len(pair[1].conflicts), pair[0]))
    for _index, cand in ranked:
        for conf in cand.conflicts:
            shape = (
                conf["constraint"],
                re.sub(r"\d+(\.\d+)*", "#", conf["source"]),
                re.sub(r"\d+(\.\d+)*", "#", conf["message"]),
            )
            if shape in shapes:
                if conf["message"] != shapes[shape]["message"]:
                    shapes[shape]["similar"] = shapes[shape].get("similar", 0) + 1
                continue
            entry = dict(conf)
            shapes[shape] = entry
            out.append(entry)
    out = out[:8]
    for entry in out:
        similar = entry.pop("similar", 0)
        if similar:
            entry["message"] += f" (and {similar} similar)"
    if not tried:
        out.append(
            {
                "constraint": "framework_version",
                "source": "request",
                "message": f"no {ctx.framework} release matches the request",
            }
        )
    return None, out, ctx


def resolve(request: Dict[str, Any], tables: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:  # noqa: PLR0912 - tries each relaxation
    """Resolve a request (see the ``compatible_stack`` filter's documentation) or raise :class:`CompatError`."""
    t = tables or load_tables()
    if not isinstance(request, dict):
        raise CompatError(
            f"compatible_stack: the request must be a dict with at least 'os'; got {type(request).__name__}"
        )
    unknown = sorted(set(request) - set(REQUEST_KEYS))
    if unknown:
        raise CompatError(
            "compatible_stack: unknown request key(s) {}; valid: {}".format(", ".join(unknown), ", ".join(REQUEST_KEYS))
        )
    if request.get("gpus") is not None and not isinstance(request.get("gpus"), list):
        raise CompatError("compatible_stack: gpus must be a list of GPU models or compute capabilities")
    result, conflicts, ctx = _resolve(request, t)
    if result is not None:
        return result
    alternatives = []
    for key in (*PIN_KEYS, "driver"):
        if request.get(key) in (None, ""):
            continue
        relaxed = {k: v for k, v in request.items() if k != key}
        try:
            alt, _conf, _ctx = _resolve(relaxed, t)
        except CompatError:
            alt = None
        if alt is not None:
            alternatives.append(f"unpin {key} ({request[key]}): {summarize(alt)}")
    tries: List[Tuple[str, Dict[str, Any]]] = []
    if not request.get("python"):
        tries += [
            (f"use Python {p} (install it next to the OS's python3)", {"python": p})
            for p in ("3.12", "3.11", "3.10", "3.9")
            if p != ctx.os["python"]
        ]
    if not request.get("framework_version"):
        tries += [(f"use framework {f}", {"framework": f}) for f in ("pytorch", "tensorflow") if f != ctx.framework]
    if ctx.gpus and not any(request.get(k) for k in ("cuda", "framework_version")):
        tries += [
            (f"use OS {r['os']}", {"os": r["os"]})
            for r in t["os"]["releases"]
            if r["family"] == ctx.os["family"] and r["os"] != ctx.os["os"]
        ]
    python_found = False
    for label, change in tries:
        if python_found and "python" in change:
            continue
        try:
            alt, _conf, _ctx = _resolve(dict(request, **change), t)
        except CompatError:
            alt = None
        if alt is not None:
            alternatives.append(f"{label}: {summarize(alt)}")
            if "python" in change:
                python_found = True
    what = "{} on {} with {}".format(ctx.framework, ctx.os["os"], ", ".join(g["input"] for g in ctx.gpus) or "no GPUs")
    lines = [f"compatible_stack: no compatible version set for {what}:"]
    lines.extend("  - {} [{}]".format(c["message"], c["source"]) for c in conflicts)
    if alternatives:
        lines.append("Nearest valid alternatives:")
        lines.extend("  - " + a for a in alternatives)
    raise CompatError("\n".join(lines), conflicts, alternatives)


def resolve_or_conflicts(request: Dict[str, Any], tables: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Like :func:`resolve` but returns ``{"ok": False, "msg", "conflicts", "alternatives"}`` instead of raising."""
    try:
        result = resolve(request, tables)
    except CompatError as exc:
        return {"ok": False, "msg": exc.message, "conflicts": exc.conflicts, "alternatives": exc.alternatives}
    out = dict(result)
    out["ok"] = True
    return out


TABLE_KEYS = (
    "framework",
    "framework_version",
    "framework_cuda_variant",
    "python",
    "horovod",
    "horovod_patches",
    "cuda",
    "cudnn",
    "nccl",
    "driver_min",
    "driver_branch",
    "driver_upgrade_required",
    "kernel_module",
    "openmpi",
)


def render_table(result: Dict[str, Any]) -> List[str]:
    """A resolved stack as aligned text lines: key, value, reason; then build env and warnings."""

    def show(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, list):
            return ", ".join(str(v) for v in value) or "-"
        return str(value)

    width = max(len(show(result.get(k))) for k in TABLE_KEYS)
    lines = [f"{'key':<24} {'value':<{width}}  why"]
    for key in TABLE_KEYS:
        lines.append(f"{key:<24} {show(result.get(key)):<{width}}  {result.get('reasons', {}).get(key, '')}")
    for name, value in sorted((result.get("horovod_build_env") or {}).items()):
        lines.append(f"{'horovod_build_env':<24} {name}={value}")
    for warning in result.get("warnings") or []:
        lines.append(f"{'warning':<24} {warning}")
    return lines


# --------------------------------------------------------------------------------------------- cluster

CLUSTER_KEYS = ("framework", "framework_version", "horovod", "cuda", "nccl", "cudnn")


def os_from_facts(facts: Dict[str, Any]) -> str:
    """Ansible facts -> the engine's OS id (``ubuntu22.04``, ``debian12``, ``rhel9`` for RHEL/Rocky/Alma)."""
    dist = str(facts.get("distribution", "")).lower()
    major = str(facts.get("distribution_major_version", ""))
    if dist == "ubuntu":
        return "ubuntu" + str(facts.get("distribution_version", major))
    if dist in ("redhat", "rocky", "almalinux", "centos", "oraclelinux"):
        return "rhel" + major
    return dist + major


def cluster_gpus(gpu_facts: Optional[Dict[str, Any]]) -> List[str]:
    """GPU names (or compute capabilities when the name is unknown) from one host's gpu_facts."""
    out = []
    for gpu in (gpu_facts or {}).get("gpus") or []:
        name = gpu.get("name")
        try:
            gpu_arch(name)
            out.append(name)
        except CompatError:
            out.append(gpu.get("compute_cap") or name)
    return out


def resolve_cluster(  # noqa: PLR0912 - grouping hosts by OS and pinning later groups reads best in one place
    hosts: Dict[str, Dict[str, Any]], request: Dict[str, Any], tables: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """One stack for a cluster: ``hosts`` maps host -> {"os", "gpus", "driver"}; ``request`` holds framework and pins.

    Every host gets the same framework, Horovod, CUDA, cuDNN and NCCL, chosen to satisfy every GPU of every host;
    Python and Open MPI follow each host's OS. Returns ``{"ok", "stacks", "msg", "conflicts", "alternatives"}``
    and never raises for conflicts.
    """
    t = tables or load_tables()
    if not hosts:
        return {
            "ok": False,
            "stacks": {},
            "msg": "stack_facts: no hosts to resolve for",
            "conflicts": [],
            "alternatives": [],
        }
    all_gpus: List[str] = []
    where: Dict[str, List[str]] = {}
    for host in sorted(hosts):
        for gpu in hosts[host].get("gpus") or []:
            where.setdefault(str(gpu), []).append(host)
            if gpu not in all_gpus:
                all_gpus.append(gpu)
    drivers = [h.get("driver") for h in hosts.values() if h.get("driver")]
    by_os: Dict[str, List[str]] = {}
    for host in sorted(hosts):
        by_os.setdefault(str(hosts[host].get("os")), []).append(host)
    located = "; ".join("GPU {} on {}".format(g, ", ".join(hs)) for g, hs in where.items()) or "no GPUs on any host"
    stacks_by_os: Dict[str, Dict[str, Any]] = {}
    first: Optional[Dict[str, Any]] = None
    for os_name, members in sorted(by_os.items(), key=lambda kv: -len(kv[1])):
        req = dict(request)
        req.update({"os": os_name, "gpus": all_gpus})
        if drivers:
            req["driver"] = min(drivers, key=vtuple)
        if first is not None:
            # Later OSes must take the cluster-wide versions chosen for the largest group.
            for key in ("framework_version", "horovod", "cuda", "nccl", "cudnn"):
                if first.get(key) and not request.get(key):
                    req[key] = first[key]
        try:
            stacks_by_os[os_name] = resolve(req, t)
        except CompatError as exc:
            return {
                "ok": False,
                "stacks": {},
                "msg": "{}\nHosts affected: {} ({}). {}.".format(exc.message, ", ".join(members), os_name, located),
                "conflicts": [dict(c, hosts=members) for c in exc.conflicts],
                "alternatives": exc.alternatives,
            }
        if first is None:
            first = stacks_by_os[os_name]
    stacks = {}
    for host, info in hosts.items():
        stack = dict(stacks_by_os[str(info.get("os"))])
        if stack.get("driver_min") and info.get("driver"):
            stack["driver_upgrade_required"] = vcmp(info["driver"], stack["driver_min"]) < 0
        elif stack.get("driver_min"):
            stack["driver_upgrade_required"] = False
        stacks[host] = stack
    return {
        "ok": True,
        "stacks": stacks,
        "msg": f"resolved: {summarize(first or {})}",
        "conflicts": [],
        "alternatives": [],
    }
