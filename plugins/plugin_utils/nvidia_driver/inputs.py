# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver role's semantic input checks: method vs OS, the branch (known, the distribution's), the kernel
module flavour vs the GPU generation and the branch, the reboot policy, Fabric Manager on NVSwitch hosts, Secure
Boot; each problem one sentence naming the host, the variable, the bad value and what would be valid. Pure Python."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from .constants import KERNEL_MODULES, REBOOT_POLICIES


def _gpu_rows(gpus: Iterable[Mapping[str, Any]], arch_of) -> List[Dict[str, Any]]:
    rows = []
    for gpu in gpus or []:
        name = gpu.get("name") or gpu.get("compute_cap") or gpu.get("pci_id") or "unknown GPU"
        row = None
        for key in (gpu.get("name"), gpu.get("compute_cap")):
            if not key or arch_of is None:
                continue
            try:
                row = arch_of(key)
                break
            except Exception:  # an unknown model is not a problem of the driver role
                continue
        row = row or {}
        rows.append({"name": name, "arch": row.get("arch"), "kernel_module": row.get("kernel_module")})
    return rows


def _branch_int(branch: Any) -> Optional[int]:
    """None for empty, -1 for something that is not a number."""
    if branch in (None, ""):
        return None
    try:
        return int(branch)
    except (TypeError, ValueError):
        return -1


def _method_branch_problems(
    host: str,
    *,
    method: str,
    supported_methods: Sequence[str],
    os_name: str,
    branch: Any,
    b: Optional[int],
    known_branches: Sequence[int],
    distro_branch: Optional[int],
) -> List[str]:
    out = []
    known = sorted({int(k) for k in known_branches})
    if method not in supported_methods:
        out.append(
            f"{host}: nvidia_driver_method {method!r} is not available on {os_name}; "
            f"valid here: {', '.join(supported_methods) or 'none (OS not supported)'}."
        )
    if b is None:
        out.append(
            f"{host}: nvidia_driver_branch is empty (no GPU stack resolved for this host); set it, for example "
            f"nvidia_driver_branch: {distro_branch or (known[-1] if known else 580)}."
        )
    elif b not in known:
        out.append(
            f"{host}: nvidia_driver_branch {branch!r} is not a known NVIDIA driver branch; "
            f"known: {', '.join(str(k) for k in known)}."
        )
    elif method == "distro" and distro_branch is not None and b != distro_branch:
        out.append(
            f"{host}: nvidia_driver_branch {b} is not what {os_name} ships (R{distro_branch}) and "
            f"nvidia_driver_method is distro; set nvidia_driver_branch: {distro_branch} (with a CUDA it runs) "
            f"or nvidia_driver_method: repo."
        )
    return out


def _module_problems(
    host: str, kernel_module: Optional[str], b: Optional[int], open_min_branch: int, rows: List[Dict[str, Any]]
) -> List[str]:
    if kernel_module not in KERNEL_MODULES:
        return [
            f"{host}: nvidia_driver_kernel_module {kernel_module!r} is not valid; valid: {', '.join(KERNEL_MODULES)}."
        ]
    out = []
    if kernel_module == "proprietary":
        need_open = [r for r in rows if r["kernel_module"] == "open_required"]
        if need_open:
            out.append(
                f"{host}: nvidia_driver_kernel_module proprietary cannot drive {need_open[0]['name']} "
                f"({need_open[0]['arch']}), which needs the open kernel module; set nvidia_driver_kernel_module: open."
            )
        return out
    need_prop = [r for r in rows if r["kernel_module"] == "proprietary"]
    if need_prop:
        out.append(
            f"{host}: nvidia_driver_kernel_module open does not support {need_prop[0]['name']} "
            f"({need_prop[0]['arch']}, older than Turing); set nvidia_driver_kernel_module: proprietary."
        )
    if isinstance(b, int) and 0 < b < open_min_branch:
        out.append(
            f"{host}: nvidia_driver_kernel_module open needs branch >= R{open_min_branch}; "
            f"nvidia_driver_branch is {b}. Set nvidia_driver_kernel_module: proprietary or a newer branch."
        )
    return out


def value_problems(
    host: str, *, branch: Any, known_branches: Sequence[int], kernel_module: Any, reboot: Any
) -> List[str]:
    """What input_problems finds without the host: a branch that is not one (when one is set), a kernel module
    flavour or a reboot policy that does not exist. Checked on every host, also one that gets no driver."""
    out: List[str] = []
    b = _branch_int(branch)
    known = sorted({int(k) for k in known_branches})
    if b is not None and b not in known:
        out.append(
            f"{host}: nvidia_driver_branch {branch!r} is not a known NVIDIA driver branch; "
            f"known: {', '.join(str(k) for k in known)}."
        )
    if kernel_module not in KERNEL_MODULES:
        out.append(
            f"{host}: nvidia_driver_kernel_module {kernel_module!r} is not valid; valid: {', '.join(KERNEL_MODULES)}."
        )
    if reboot not in REBOOT_POLICIES:
        out.append(f"{host}: nvidia_driver_reboot {reboot!r} is not valid; valid: {', '.join(REBOOT_POLICIES)}.")
    return out


def input_problems(
    host: str,
    *,
    method: str,
    supported_methods: Sequence[str],
    os_name: str,
    branch: Any,
    known_branches: Sequence[int],
    distro_branch: Optional[int] = None,
    kernel_module: Optional[str] = None,
    open_min_branch: int = 515,
    gpus: Iterable[Mapping[str, Any]] = (),
    arch_of=None,
    reboot: str = "if_needed",
    reboot_throttle: int = 1,
    control_node: bool = False,
    secure_boot: Optional[bool] = None,
    mok_signing: bool = False,
    nvswitch_count: int = 0,
    fabricmanager_methods: Sequence[str] = (),
) -> List[str]:
    """Every semantic problem of the role's input for one host (empty list when none)."""
    out: List[str] = []
    b = _branch_int(branch)
    out += _method_branch_problems(
        host,
        method=method,
        supported_methods=supported_methods,
        os_name=os_name,
        branch=branch,
        b=b,
        known_branches=known_branches,
        distro_branch=distro_branch,
    )
    out += _module_problems(host, kernel_module, b, open_min_branch, _gpu_rows(gpus, arch_of))
    if reboot not in REBOOT_POLICIES:
        out.append(f"{host}: nvidia_driver_reboot {reboot!r} is not valid; valid: {', '.join(REBOOT_POLICIES)}.")
    elif reboot != "never" and control_node:
        out.append(
            f"{host}: is the control node (local connection) and nvidia_driver_reboot is {reboot}; the role never "
            f"reboots the control node. Set nvidia_driver_reboot: never for this host and reboot it yourself."
        )
    try:
        throttle_ok = int(reboot_throttle) >= 1
    except (TypeError, ValueError):
        throttle_ok = False
    if not throttle_ok:
        out.append(f"{host}: nvidia_driver_reboot_throttle {reboot_throttle!r} must be an integer >= 1.")
    if int(nvswitch_count or 0) > 0 and method not in fabricmanager_methods:
        out.append(
            f"{host}: has {nvswitch_count} NVSwitch devices, which need Fabric Manager of the driver's version, and "
            f"nvidia_driver_method {method} has no Fabric Manager package on {os_name}; valid here: "
            f"{', '.join(fabricmanager_methods) or 'none'} (nvidia_driver_method: repo)."
        )
    if secure_boot and not mok_signing:
        out.append(
            f"{host}: Secure Boot is on and the DKMS-built NVIDIA module would be unsigned, so the kernel would "
            f"refuse to load it. Either enroll a Machine Owner Key (mokutil --import /var/lib/dkms/mok.pub, "
            f"confirm at the next boot, then set nvidia_driver_mok_signing: true so DKMS signs with it), or "
            f"turn Secure Boot off in the firmware."
        )
    return out
