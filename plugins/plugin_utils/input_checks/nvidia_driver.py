# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the nvidia_driver role: method for this OS, branch, kernel module flavour for the GPUs,
reboot policy, Fabric Manager on NVSwitch hosts, Secure Boot. The decisions are those of
plugin_utils/nvidia_driver/decisions.py (input_problems) (which the role's own preflight also uses)."""

from __future__ import annotations

import re

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import compat as _compat
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.nvidia_driver import decisions as _logic

from ._base import WARNING, Finding, absolute_path, check, positive, set_by_user
from ._gpu_libs import no_gpu

_VARIABLE = re.compile(r"\bnvidia_driver_[a-z0-9_]+")


def _gets_driver(values, ctx) -> bool:
    """What the role's preflight decides (nvidia_driver/decisions.py driver_action, the same function)."""
    return _logic.driver_action(
        values.get("nvidia_driver_gpu_facts") or {},
        ctx.stack,
        force=bool(values.get("nvidia_driver_force")),
        upgrade=bool(values.get("nvidia_driver_upgrade")),
        version=str(values.get("nvidia_driver_version") or ""),
        minimum=str(values.get("nvidia_driver_min") or ""),
    )["active"]


@check(
    "nvidia_driver_method",
    "nvidia_driver_branch",
    "nvidia_driver_kernel_module",
    "nvidia_driver_reboot",
    "nvidia_driver_reboot_throttle",
    "nvidia_driver_mok_signing",
    "nvidia_driver_gpu_facts",
    "nvidia_driver_force",
    "nvidia_driver_upgrade",
    "nvidia_driver_version",
    description=(
        "on a host that gets a driver: a method the role implements on this OS, a known branch (the one the"
        " distribution ships for distro), a kernel module flavour every GPU supports (open for Blackwell,"
        " proprietary before Turing), no reboot of the control node, Fabric Manager available on NVSwitch hosts,"
        " and Secure Boot only with MOK signing"
    ),
)
def _driver_sense(values, ctx):
    if not _gets_driver(values, ctx):
        return
    tables = _compat.load_tables()
    method = values["nvidia_driver_method"]
    distro_branch = ctx.role_vars.get("_nvidia_driver_distro_branch")
    branch = values["nvidia_driver_branch"] or (distro_branch if method == "distro" and distro_branch else "")
    gpu = values["nvidia_driver_gpu_facts"] or {}
    problems = _logic.input_problems(
        ctx.host,
        method=method,
        supported_methods=ctx.role_vars.get("_nvidia_driver_methods") or [],
        os_name=f"{ctx.distribution} {ctx.distribution_major_version}".strip() or "this OS",
        branch=branch,
        known_branches=[row["branch"] for row in tables["cuda_driver"]["branches"]],
        distro_branch=distro_branch,
        kernel_module=values["nvidia_driver_kernel_module"],
        open_min_branch=tables["cuda_driver"].get("open_kernel_module_min_branch", 515),
        gpus=gpu.get("gpus") or [],
        arch_of=lambda name: _compat.gpu_arch(name, tables=tables),
        reboot=values["nvidia_driver_reboot"],
        reboot_throttle=values["nvidia_driver_reboot_throttle"],
        control_node=ctx.control_node,
        secure_boot=gpu.get("secure_boot"),
        mok_signing=bool(values["nvidia_driver_mok_signing"]),
        nvswitch_count=int(gpu.get("nvswitch_count") or 0),
        fabricmanager_methods=ctx.role_vars.get("_nvidia_driver_fabricmanager_methods") or [],
    )
    for problem in problems:
        # The sentence names the variable to change first (the fix), its value and what is valid.
        sentence = problem.removeprefix(f"{ctx.host}: ")
        named = _VARIABLE.search(sentence)
        variable = named.group(0) if named else "nvidia_driver_gpu_facts"
        yield Finding(variable, values.get(variable), "", sentence=sentence)


@check(
    "nvidia_driver_branch",
    "nvidia_driver_kernel_module",
    "nvidia_driver_reboot",
    "nvidia_driver_gpu_facts",
    "nvidia_driver_force",
    "nvidia_driver_upgrade",
    "nvidia_driver_version",
    description=(
        "on a host that gets no driver too (no GPU, or this run does not apply the role there): a known branch when"
        " one is set, a kernel module flavour and a reboot policy that exist"
    ),
)
def _driver_values(values, ctx):
    if _gets_driver(values, ctx):
        return  # _driver_sense judges these with the rest
    tables = _compat.load_tables()
    for problem in _logic.value_problems(
        ctx.host,
        branch=values["nvidia_driver_branch"],
        known_branches=[row["branch"] for row in tables["cuda_driver"]["branches"]],
        kernel_module=values["nvidia_driver_kernel_module"],
        reboot=values["nvidia_driver_reboot"],
    ):
        sentence = problem.removeprefix(f"{ctx.host}: ")
        variable = _VARIABLE.search(sentence).group(0)
        yield Finding(variable, values.get(variable), "", sentence=sentence)


@check(
    "nvidia_driver_method",
    "nvidia_driver_repo_key_sha256",
    description="the repo method needs the sha256 of NVIDIA's repository key (64 hex digits)",
)
def _repo_key(values, ctx):
    key = values["nvidia_driver_repo_key_sha256"] or ""
    if values["nvidia_driver_method"] == "repo" and not re.fullmatch(r"[0-9a-fA-F]{64}", key):
        yield Finding(
            "nvidia_driver_repo_key_sha256",
            key,
            "the repo method installs NVIDIA's repository key only with its checksum",
            "the 64 hex digits of sha256sum of the key file",
        )


@check(
    "nvidia_driver_components",
    "nvidia_driver_method",
    description="warns when components are set for the repo method (it installs NVIDIA's metapackage)",
    level=WARNING,
)
def _components_with_repo(values, ctx):
    if values["nvidia_driver_method"] == "repo" and set_by_user(ctx, "nvidia_driver_components"):
        yield Finding(
            "nvidia_driver_components",
            values["nvidia_driver_components"],
            f"not used on {ctx.host}: the repo method installs NVIDIA's metapackage (cuda-drivers-<branch> or "
            "nvidia-open-<branch>) as NVIDIA's installation guide gives it",
            "nvidia_driver_method: distro for the compute or full set, or drop nvidia_driver_components",
            WARNING,
        )


CHECKS = [
    _driver_sense,
    _driver_values,
    no_gpu("nvidia_driver"),
    _repo_key,
    _components_with_repo,
    positive("nvidia_driver_reboot_timeout", what="seconds"),
    absolute_path("nvidia_driver_mok_key", "nvidia_driver_mok_cert"),
]
