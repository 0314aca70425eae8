# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The request (keys, validation against the tables) and the candidate a resolution pass fills in."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .lookups import gpu_arch
from .tables import FRAMEWORKS, cudnn_rows, find_os, fw_releases, known_cuda, nccl_row, toolkit_rows
from .versions import CompatError, known, text, vprefix, vtuple

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
    "host_gcc",
    "host_compiler_packages",
    "horovod",
    "horovod_patches",
    "horovod_build_env",
    "reasons",
    "warnings",
)


def check_shape(request: Any) -> None:
    """Refuse a request that is not a dict of known keys."""
    if not isinstance(request, dict):
        raise CompatError(f"the request must be a dict with at least 'os'; got {type(request).__name__}")
    unknown = sorted(set(request) - set(REQUEST_KEYS))
    if unknown:
        raise CompatError("unknown request key(s) {}; valid: {}".format(", ".join(unknown), ", ".join(REQUEST_KEYS)))
    if request.get("gpus") is not None and not isinstance(request.get("gpus"), list):
        raise CompatError("gpus must be a list of GPU models or compute capabilities")


def norm_branch(value: Optional[str]) -> Optional[int]:
    """'R580' / '580' / '580.65' -> 580."""
    if value is None:
        return None
    t = vtuple(value)
    if not t:
        raise CompatError(f"driver_branch '{value}' is not a branch such as 535 or R580")
    return t[0]


class Context:
    """Validated request plus the tables."""

    def __init__(self, request: Dict[str, Any], t: Dict[str, Any]) -> None:
        self.t = t
        self.request = request
        self.os = find_os(request.get("os"), t)
        self.gpus = [gpu_arch(g, t) for g in (request.get("gpus") or [])]
        fw = text(request.get("framework")) or "pytorch"
        if fw not in FRAMEWORKS:
            raise CompatError("framework '{}' unknown; valid: {}".format(fw, ", ".join(FRAMEWORKS)))
        self.framework = fw
        self.fv = text(request.get("framework_version"))
        self.python = text(request.get("python"))
        self.driver = text(request.get("driver"))
        self.pins = {k: text(request.get(k)) for k in ("horovod", "cuda", "cudnn", "nccl", "openmpi", "driver_branch")}
        self.pins["driver_branch"] = norm_branch(self.pins["driver_branch"])
        self._validate_pins()

    def _unknown(self, key: str, table: str, values: List[str]) -> CompatError:
        return CompatError(f"{key} '{self.pins[key]}' unknown ({table}); known: {known(values)}")

    def _validate_pins(self) -> None:
        t, pins = self.t, self.pins
        if pins["horovod"]:
            versions = [r["horovod"] for r in t["horovod"]["releases"]]
            if not any(vprefix(k, pins["horovod"]) for k in versions):
                raise self._unknown("horovod", "horovod.yml", versions)
        if pins["cuda"] and not toolkit_rows(pins["cuda"], t):
            raise self._unknown("cuda", "cuda_driver.yml", known_cuda(t))
        if pins["cudnn"] and not cudnn_rows(pins["cudnn"], t):
            raise self._unknown("cudnn", "cudnn.yml", [r["cudnn"] for r in t["cudnn"]["releases"]])
        if pins["nccl"] and not nccl_row(pins["nccl"], t):
            raise self._unknown("nccl", "nccl.yml", [r["nccl"] for r in t["nccl"]["releases"]])
        if pins["driver_branch"] is not None:
            branches = [str(b["branch"]) for b in t["cuda_driver"]["branches"]]
            if str(pins["driver_branch"]) not in branches:
                raise self._unknown("driver_branch", "cuda_driver.yml", branches)
        if self.driver is not None and len(vtuple(self.driver)) < 2:
            raise CompatError(f"driver '{self.driver}' is not a driver version such as 535.183.01")
        if self.fv is not None and self.framework != "none":
            releases = fw_releases(self.framework, t)
            if not any(vprefix(r["version"], self.fv) or vprefix(r["latest"], self.fv) for r in releases):
                raise CompatError(
                    f"framework_version '{self.fv}' unknown for {self.framework} "
                    f"({self.framework}.yml); known: {known([r['version'] for r in releases])}"
                )


class Candidate:
    """One combination under evaluation: its conflicts, warnings, reasons and (when complete) result."""

    def __init__(self) -> None:
        self.conflicts: List[Dict[str, str]] = []
        self.warnings: List[str] = []
        self.reasons: Dict[str, str] = {}
        self.result: Dict[str, Any] = {}
        self.horovod: Optional[str] = None

    def conflict(self, constraint: str, source: str, message: str) -> None:
        self.conflicts.append({"constraint": constraint, "source": source, "message": message})
