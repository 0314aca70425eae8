# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What to install for each framework of a Horovod venv (pure; the horovod_frameworks filters and the
horovod role's input checks use it)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

FRAMEWORKS = {
    "pytorch": {"package": "torch", "module": "torch", "flag": "PYTORCH"},
    "tensorflow": {"package": "tensorflow", "module": "tensorflow", "flag": "TENSORFLOW"},
    "mxnet": {"package": "mxnet", "module": "mxnet", "flag": "MXNET"},
}

_CUDA_VARIANT = re.compile(r"^cu\d+$")


def _version_tuple(version: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:2])


def framework_plan(spec: Mapping[str, Any], default_variant: str = "") -> Dict[str, Any]:
    """The install plan of one framework spec (pure; raises ValueError on bad input)."""
    if not isinstance(spec, Mapping):
        raise ValueError(f"a framework spec must be a dict with name and version, got {spec!r}")
    name = str(spec.get("name") or "").strip().lower()
    if name not in FRAMEWORKS:
        raise ValueError(f"unknown framework {name!r}; known: {', '.join(FRAMEWORKS)}")
    version = str(spec.get("version") or "").strip()
    if not version:
        raise ValueError(f"framework {name} has no version")
    variant = str((spec["variant"] if "variant" in spec else default_variant) or "").strip()
    info = FRAMEWORKS[name]
    distribution = info["package"]
    local_label = False
    if name == "pytorch":
        requirement = f"torch=={version}" + (f"+{variant}" if variant else "")
        local_label = bool(variant)
    elif name == "tensorflow":
        if variant == "cpu":
            distribution = "tensorflow-cpu"
            requirement = f"tensorflow-cpu=={version}"
        elif _CUDA_VARIANT.match(variant) and _version_tuple(version) >= (2, 14):
            requirement = f"tensorflow[and-cuda]=={version}"
        else:
            requirement = f"tensorflow=={version}"
    else:
        if _CUDA_VARIANT.match(variant):
            distribution = f"mxnet-{variant}"
        requirement = f"{distribution}=={version}"
    return {
        "name": name,
        "version": version,
        "variant": variant,
        "distribution": distribution,
        "requirement": requirement,
        "local_label": local_label,
        "module": info["module"],
        "flag": f"HOROVOD_WITH_{info['flag']}",
        "without_flag": f"HOROVOD_WITHOUT_{info['flag']}",
    }


def frameworks_plan(specs: Sequence[Mapping[str, Any]], default_variant: str = "") -> List[Dict[str, Any]]:
    plans = [framework_plan(s, default_variant) for s in specs]
    names = [p["name"] for p in plans]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"framework(s) listed more than once: {', '.join(twice)}")
    return plans


def _release(version: str) -> tuple:
    base = version.split("+", 1)[0]
    parts = [int(x) for x in re.findall(r"\d+", base)]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def satisfied(plan: Mapping[str, Any], have: Optional[str]) -> bool:
    """Whether the installed version ``have`` satisfies the plan's requirement (PEP 440 ==, local label)."""
    if not have:
        return False
    if _release(have) != _release(plan["version"]):
        return False
    if plan["local_label"]:
        label = have.split("+", 1)[1] if "+" in have else ""
        return label.lower() == str(plan["variant"]).lower()
    return True
