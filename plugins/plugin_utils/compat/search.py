# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The search: chain the pickers over one candidate (Horovod x framework release x Python x wheel variant), try
candidates in preference order, and rank the conflicts of the ones that failed."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from .pick import build, cudnn, driver, framework, nccl, openmpi, python, toolchain
from .pick import cuda as cuda_pick
from .request import Candidate, Context
from .versions import mm, vtuple

_MAX_CONFLICTS = 8


def _gpu_side(ctx: Context, c: Candidate, fw, hv, variant) -> Dict[str, Any]:
    """CUDA, driver, kernel module, cuDNN and NCCL; or the reasons why there are none."""
    if not ctx.gpus:
        for key in ("cuda", "cudnn", "nccl", "driver_branch"):
            if ctx.pins[key] is not None:
                c.warnings.append(f"{key} is pinned but the cluster has no GPUs: ignored")
        for key in ("cuda", "cudnn", "nccl", "driver_min", "driver_branch", "kernel_module"):
            c.reasons[key] = "no GPUs in the cluster: nothing to install."
        c.reasons["driver_upgrade_required"] = "no GPUs in the cluster."
        none = dict.fromkeys(("cuda", "cudnn", "nccl", "driver_min", "driver_branch", "kernel_module"))
        return {**none, "driver_upgrade_required": False}
    cuda = cuda_pick.pick(ctx, c, fw, hv, variant)
    driver_min, branch, upgrade = driver.pick(ctx, c, cuda)
    kernel = driver.kernel_module(ctx, c, branch)
    return {
        "cuda": cuda,
        "driver_min": driver_min,
        "driver_branch": branch,
        "driver_upgrade_required": upgrade,
        "kernel_module": kernel,
        "cudnn": cudnn.pick(ctx, c, fw, variant, mm(cuda)),
        "nccl": nccl.pick(ctx, c, fw, variant, mm(cuda), hv=hv),
    }


def evaluate(
    ctx: Context,
    hv: Optional[Dict[str, Any]],
    fw: Optional[Dict[str, Any]],
    py_choice: Tuple[str, str],
    variant: Dict[str, Any],
) -> Candidate:
    """Run every picker on one candidate; its ``conflicts`` say whether it is a valid stack."""
    c = Candidate()
    c.horovod = hv["horovod"] if hv else None
    py = python.pick(ctx, c, py_choice)
    if fw is not None:
        python.check_ranges(ctx, c, fw, hv, py)
        if hv is not None:
            framework.check_horovod(ctx, c, fw, hv)
            framework.check_known_max(ctx, c, fw, hv)
            python.check_tested(c, hv, py)
    if ctx.gpus and cuda_pick.pin_mismatch(ctx, c, fw, variant):
        return c
    gpu = _gpu_side(ctx, c, fw, hv, variant)
    tools = toolchain.pick(ctx, c, gpu["cuda"])
    mpi = openmpi.pick(ctx, c)
    framework.reasons(ctx, c, fw, hv, variant)
    patches = build.patches(ctx, c, fw, hv, tools["gcc"] if fw is not None else None)
    env = build.build_env(ctx, c, fw, hv, openmpi=mpi, compiler_env=tools["env"])
    c.reasons["host_compiler_packages"] = (
        "{} from the OS archive (the default GCC does not fit the CUDA release).".format(", ".join(tools["packages"]))
        if tools["packages"]
        else "none: the OS's default compiler is used."
    )
    c.result = {
        "os": ctx.os["os"],
        "gpus": [{"input": g["input"], "model": g["model"], "sm": g["sm"], "arch": g["arch"]} for g in ctx.gpus],
        **gpu,
        "openmpi": mpi,
        "framework": ctx.framework,
        "framework_version": fw["latest"] if fw else None,
        "framework_cuda_variant": (variant["variant"] if fw else None),
        "framework_cxx_standard": fw.get("cxx") if fw else None,
        "python": py,
        "host_gcc": tools["host_gcc"],
        "host_compiler_packages": tools["packages"],
        "horovod": hv["horovod"] if hv else None,
        "horovod_patches": patches,
        "horovod_build_env": env,
        "reasons": c.reasons,
        "warnings": c.warnings,
    }
    return c


def search(ctx: Context) -> Tuple[Optional[Candidate], List[Candidate]]:
    """The first candidate without conflicts (preference order), and every candidate tried before it."""
    tried: List[Candidate] = []
    if ctx.framework == "none":
        hvs: List[Optional[Dict[str, Any]]] = [None]
        fws: List[Optional[Dict[str, Any]]] = [None]
    else:
        hvs = list(framework.horovod_releases(ctx))
        fws = list(framework.releases(ctx))
    for hv in hvs:
        for fw in fws:
            for py in python.candidates(ctx):
                for variant in framework.variants(ctx, fw, hv):
                    cand = evaluate(ctx, hv, fw, py, variant)
                    if not cand.conflicts:
                        return cand, tried
                    tried.append(cand)
    return None, tried


def global_conflicts(ctx: Context) -> List[Dict[str, str]]:
    """Conflicts no candidate can avoid: a bad Open MPI pin, a driver branch or installed driver beyond a GPU's last."""
    out = openmpi.pin_conflicts(ctx)
    bpin = ctx.pins["driver_branch"]
    for g in ctx.gpus:
        last = g.get("last_driver_branch")
        if bpin is not None and last and bpin > last:
            out.append(
                {
                    "constraint": "driver_branch",
                    "source": "GPU {} ({})".format(g["input"], g["arch"]),
                    "message": f"pinned driver_branch {bpin} is newer than R{last}, the last branch supporting "
                    f"GPU {g['input']} ({g['arch']}); use driver_branch {last}",
                }
            )
    if ctx.driver:
        installed = vtuple(ctx.driver)[0]
        for g in ctx.gpus:
            last = g.get("last_driver_branch")
            if last and installed > last:
                out.append(
                    {
                        "constraint": "driver",
                        "source": "GPU {} ({})".format(g["input"], g["arch"]),
                        "message": "installed driver {} is newer than R{}, the last branch supporting GPU {}".format(
                            ctx.driver, last, g["input"]
                        ),
                    }
                )
    return out


def rank_conflicts(ctx: Context, tried: List[Candidate]) -> List[Dict[str, str]]:
    """The closest candidates' conflicts first; ones that differ only in version numbers become one line."""
    if not ctx.pins["horovod"] and tried:
        newest = [c for c in tried if c.horovod == tried[0].horovod]
        tried = newest or tried
    shapes: Dict[Tuple[str, str, str], Dict[str, Any]] = {}
    out: List[Dict[str, Any]] = []
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
    out = out[:_MAX_CONFLICTS]
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
    return out


def resolve_once(
    request: Dict[str, Any], t: Dict[str, Any]
) -> Tuple[Optional[Dict[str, Any]], List[Dict[str, str]], Context]:
    """One resolution without relaxations: (result, [], ctx) or (None, conflicts, ctx)."""
    ctx = Context(request, t)
    conflicts = global_conflicts(ctx)
    if conflicts:
        return None, conflicts, ctx
    best, tried = search(ctx)
    if best is not None:
        return best.result, [], ctx
    return None, rank_conflicts(ctx, tried), ctx
