# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A resolved stack as text: one summary line, or an aligned key/value/reason table."""

from __future__ import annotations

from typing import Any, Dict, List

from .tables import fw_label

TABLE_KEYS = (
    "framework",
    "framework_version",
    "framework_cuda_variant",
    "python",
    "horovod",
    "horovod_patches",
    "host_gcc",
    "host_compiler_packages",
    "cuda",
    "cudnn",
    "nccl",
    "driver_min",
    "driver_branch",
    "driver_upgrade_required",
    "kernel_module",
    "openmpi",
)


def summarize(result: Dict[str, Any]) -> str:
    """One line naming the main versions of a resolved stack."""
    parts = []
    if result.get("framework_version"):
        parts.append(
            "{} {} ({})".format(
                fw_label(result["framework"]), result["framework_version"], result["framework_cuda_variant"]
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


def _show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "-"
    return str(value)


def render_table(result: Dict[str, Any]) -> List[str]:
    """A resolved stack as aligned text lines: key, value, reason; then build env and warnings."""
    width = max(len(_show(result.get(k))) for k in TABLE_KEYS)
    lines = [f"{'key':<24} {'value':<{width}}  why"]
    for key in TABLE_KEYS:
        lines.append(f"{key:<24} {_show(result.get(key)):<{width}}  {result.get('reasons', {}).get(key, '')}")
    for name, value in sorted((result.get("horovod_build_env") or {}).items()):
        lines.append(f"{'horovod_build_env':<24} {name}={value}")
    for warning in result.get("warnings") or []:
        lines.append(f"{'warning':<24} {warning}")
    return lines
