# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What to install for each framework of a Horovod venv (pure; the horovod_frameworks filters and the
horovod role's input checks use it)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..gpu_libs import version_matches
from ..versions import mm, vcmp

FRAMEWORKS = {
    "pytorch": {"package": "torch", "module": "torch", "flag": "PYTORCH"},
    "tensorflow": {"package": "tensorflow", "module": "tensorflow", "flag": "TENSORFLOW"},
    "mxnet": {"package": "mxnet", "module": "mxnet", "flag": "MXNET"},
}

_CUDA_VARIANT = re.compile(r"^cu\d+$")


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
        elif _CUDA_VARIANT.match(variant) and vcmp(mm(version), "2.14") >= 0:
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


def satisfied(plan: Mapping[str, Any], have: Optional[str]) -> bool:
    """Whether the installed version ``have`` satisfies the plan's requirement (PEP 440 ==, local label)."""
    if not have:
        return False
    if vcmp(have, plan["version"]) != 0:
        return False
    if plan["local_label"]:
        label = have.split("+", 1)[1] if "+" in have else ""
        return label.lower() == str(plan["variant"]).lower()
    return True


_LABELS = {"pytorch": "PyTorch", "tensorflow": "TensorFlow", "mxnet": "MXNet"}


def _variant_ok(plan: Mapping[str, Any], found: Optional[str]) -> bool:
    """Whether a build of variant ``found`` serves the plan's variant."""
    want = str(plan.get("variant") or "")
    if not want or want == "cpu":
        # no variant: the index's plain build, whatever it carries; cpu: a CUDA build runs on the CPU too
        return True
    if not found or found == "cpu":
        return False
    if plan["name"] == "pytorch":
        # Horovod is compiled with the stack's nvcc against torch's CUDA headers: the CUDA must be the same
        return found == want
    # TensorFlow and MXNet bring their own CUDA libraries: a CUDA build is enough
    return True


def env_nccl(env: Mapping[str, Any], framework: str) -> tuple:
    """The NCCL release a PyTorch environment runs with, and where that was read: NVIDIA's ``nvidia-nccl-cuN`` wheel
    (the library torch loads at run time, and the one a Horovod build against the wheel compiles with), else the NCCL
    torch was compiled with (``torch.cuda.nccl.version()``). ``("", "")`` for other frameworks and CPU builds."""
    if framework != "pytorch":
        return "", ""
    for name, version in sorted((env.get("distributions") or {}).items()):
        if re.fullmatch(r"nvidia-nccl-cu\d+", name) and version:
            m = re.match(r"\d+(\.\d+){0,2}", str(version))
            if m:
                return m.group(0), f"the {name} wheel"
    fw = (env.get("frameworks") or {}).get(framework) or {}
    if fw.get("nccl"):
        return str(fw["nccl"]), "the NCCL PyTorch was compiled with"
    return "", ""


def existing_env_problems(
    env: Mapping[str, Any],
    plans: Sequence[Mapping[str, Any]],
    python: str,
    runtime_packages: Sequence[str] = (),
    will_install: Sequence[str] = (),
    *,
    nccl: str = "",
) -> List[str]:
    """Why an existing Python environment cannot take Horovod for the planned frameworks (empty: it can).

    ``env`` is the python_env_facts module's python_env; ``plans`` the horovod_frameworks plans (the stack's framework
    first); ``python`` the stack's Python (major.minor); ``runtime_packages`` what every Horovod venv needs besides
    the frameworks (numpy); ``will_install`` distributions the user asked to install anyway (horovod_pip_packages);
    ``nccl`` the stack's NCCL (empty: a CPU build), which a framework's own NCCL must be.
    Each problem names what was found, what the stack wants and the variable that fixes it.
    """
    path = env.get("path") or "?"
    if not env.get("exists"):
        return [
            f"there is no Python environment at {path} ({path}/bin/python does not exist); horovod_venv_mode: existing "
            "builds Horovod into an environment that is already there: correct horovod_venv, or set "
            "horovod_venv_mode: create to have the role create one"
        ]
    if env.get("error"):
        return [f"its interpreter cannot be read: {env['error']}"]
    problems = []
    series = str(env.get("python_series") or "")
    if python and series != str(python):
        problems.append(
            f"it has Python {env.get('python_version')}, the stack was resolved for Python {python}: set "
            f"gpucluster_python: '{series}' (the preflight role resolves the stack for it; horovod_python_version "
            "when the role runs alone)"
        )
    if not env.get("pip"):
        problems.append(
            f"it has no pip, which installs Horovod into it (a uv venv has none): add it with "
            f"`uv pip install --python {path}/bin/python pip` or `{path}/bin/python -m ensurepip`"
        )
    found = env.get("frameworks") or {}
    for plan in plans:
        label = _LABELS.get(plan["name"], plan["name"])
        fw = found.get(plan["name"])
        if not fw:
            problems.append(
                f"it has no {label} (the stack wants {plan['requirement']}); horovod_venv_mode: existing installs no "
                "framework: install it there, or set horovod_venv_mode: create"
            )
            continue
        if fw.get("error"):
            problems.append(f"importing {plan['module']} fails: {fw['error']}")
            continue
        have = str(fw.get("version") or "")
        if vcmp(have, plan["version"]) != 0:
            problems.append(
                f"it has {fw.get('distribution')} {have}, the stack is {label} {plan['version']}: set "
                f"gpucluster_framework_version: '{have.split('+', 1)[0]}' so the stack is resolved around it "
                "(horovod_framework_version when the role runs alone)"
            )
        elif not _variant_ok(plan, fw.get("variant")):
            cuda = fw.get("cuda")
            fix = f"pin gpucluster_pins: {{cuda: '{cuda}'}}" if cuda else "install a CUDA build of it there"
            problems.append(
                f"its {label} {fw.get('module_version') or have} is a {fw.get('variant')} build, the stack wants the "
                f"{plan['variant']} build (training would "
                + ("not find the GPUs" if not cuda else "load a CUDA that Horovod was not compiled for")
                + f"): {fix}"
            )
        have_nccl, nccl_source = env_nccl(env, plan["name"])
        if nccl and have_nccl and not version_matches(nccl, have_nccl):
            problems.append(
                f"it has NCCL {have_nccl} ({nccl_source}), the stack resolved NCCL {nccl}; Horovod links NCCL as "
                f"libnccl.so.2, and in a training process the copy {label} loaded serves both, so Horovod must be "
                f"built against NCCL {have_nccl}: pin gpucluster_pins: {{nccl: '{have_nccl}'}} (the preflight role "
                f"resolves the stack around it), or set horovod_nccl_version: '{have_nccl}' when the horovod role "
                "runs alone"
            )
    have_dists = env.get("distributions") or {}
    wanted = {re.sub(r"[-_.]+", "-", str(n)).lower() for n in will_install}
    lacking = [p for p in runtime_packages if re.sub(r"[-_.]+", "-", p).lower() not in have_dists]
    lacking = [p for p in lacking if re.sub(r"[-_.]+", "-", p).lower() not in wanted]
    if lacking:
        problems.append(
            f"it lacks {', '.join(lacking)}, which Horovod's object collectives need; horovod_venv_mode: existing "
            "installs nothing but Horovod: install it there, or list it in horovod_pip_packages"
        )
    return problems


def existing_env_distributions(env: Mapping[str, Any], plans: Sequence[Mapping[str, Any]]) -> List[str]:
    """The framework builds found in an existing environment that differ from the plans' requirements, as
    ``dist==version`` (part of the build key: a torch 2.11.0 without label is not torch==2.11.0+cu130's build)."""
    out = []
    found = env.get("frameworks") or {}
    for plan in plans:
        fw = found.get(plan["name"]) or {}
        if not fw.get("version"):
            continue
        exact = f"{fw.get('distribution')}=={fw['version']}"
        if exact.replace("[and-cuda]", "") != str(plan["requirement"]).replace("[and-cuda]", ""):
            out.append(exact)
    return out
