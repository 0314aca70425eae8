# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decisions of the nvidia_driver role as pure functions (controller side, no Ansible imports), by responsibility:

- ``packages``: ``select_packages`` (which packages, at which version, pinned and held, for an OS's package table, a
  method, a branch and a kernel-module flavour), ``target_version``, ``version_problem``, the dnf and apt locks
  (``rpm_newest``, ``rpm_lock_names``, ``deb_lock_pins``, ``deb_release_names``), ``dkms_installed_kernels``;
- ``inputs``: ``input_problems`` and ``value_problems``, the semantic input checks;
- here: ``driver_action`` (whether the role works on a host, and why), ``parse_gpu_holders``, ``reload_command`` and
  ``reboot_decision`` (after an install, what brings the loaded module in step with the userspace).

This module re-exports the other two, so the filter plugin ``gpucluster.horovod.nvidia_driver`` and the input checks
reach every decision through it; the unit tests call them directly.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional

from ..versions import vcmp
from .constants import KERNEL_MODULES, METHODS, OWN_DAEMON_UNITS, OWN_DAEMONS, REBOOT_POLICIES
from .inputs import input_problems, value_problems
from .packages import (
    deb_lock_pins,
    deb_release_names,
    dkms_installed_kernels,
    rpm_lock_names,
    rpm_newest,
    select_packages,
    target_version,
    upstream_version,
    version_branch,
    version_problem,
)

__all__ = [
    "KERNEL_MODULES",
    "METHODS",
    "OWN_DAEMONS",
    "OWN_DAEMON_UNITS",
    "REBOOT_POLICIES",
    "deb_lock_pins",
    "deb_release_names",
    "dkms_installed_kernels",
    "driver_action",
    "input_problems",
    "parse_gpu_holders",
    "reboot_decision",
    "reload_command",
    "rpm_lock_names",
    "rpm_newest",
    "select_packages",
    "target_version",
    "upstream_version",
    "value_problems",
    "version_branch",
    "version_problem",
]


def driver_action(
    gpu_facts: Optional[Mapping[str, Any]],
    stack: Optional[Mapping[str, Any]] = None,
    *,
    force: bool = False,
    upgrade: bool = False,
    version: str = "",
    minimum: str = "",
) -> Dict[str, Any]:
    """Whether the role works on this host, and why: ``{"active": bool, "reason": str}``.

    Active on a host with an NVIDIA GPU (or with ``force``), unless the loaded driver already satisfies the stack
    (``driver_upgrade_required`` false) and neither an upgrade nor an exact version is asked for. A loaded module that
    differs from the installed userspace (gpu_facts ``driver_mismatch``) is never left alone: the role brings them
    in step even when the loaded version would satisfy the stack. Without a resolved stack (the role run on its own)
    the loaded driver is compared with ``minimum`` (nvidia_driver_min) or, failing that, with the stack's driver_min.
    """
    gpu = gpu_facts or {}
    stack = stack or {}
    if not (gpu.get("gpus") or force):
        return {
            "active": False,
            "reason": "gpu_facts found no NVIDIA GPU; nvidia_driver skipped"
            " (nvidia_driver_force: true installs anyway)",
        }
    loaded = gpu.get("driver_version")
    nvml = gpu.get("nvml_error") or "Driver/library version mismatch"
    library = gpu.get("nvml_library_version") or "(another version)"
    need = stack.get("driver_min") or minimum or "a newer one"
    if "driver_upgrade_required" in stack:
        too_old = bool(stack.get("driver_upgrade_required"))
    else:
        floor = upstream_version(minimum or stack.get("driver_min"))
        too_old = bool(loaded and floor and vcmp(loaded, floor) < 0)
    # (applies, why the role works on the host), first match wins
    rules = (
        (
            gpu.get("driver_mismatch"),
            f"the loaded module {loaded} and the installed userspace {library} differ ({nvml})",
        ),
        (loaded is None, "no NVIDIA driver is loaded"),
        (too_old, f"driver {loaded} does not satisfy the stack (it needs {need})"),
        (upgrade, f"driver {loaded} satisfies the stack; nvidia_driver_upgrade is true"),
        (version, f"driver {loaded} satisfies the stack; nvidia_driver_version asks for {version}"),
    )
    for applies, reason in rules:
        if applies:
            return {"active": True, "reason": reason}
    return {
        "active": False,
        "reason": f"driver {loaded} already satisfies the stack; nothing to change"
        " (nvidia_driver_upgrade: true or nvidia_driver_version moves it)",
    }


def parse_gpu_holders(listing: str, own_daemons: Iterable[str] = OWN_DAEMONS) -> List[str]:
    """``PID COMM`` lines of the processes that hold an NVIDIA device, without the driver's own daemons (the role
    stops and restarts those around a reload): ``["4242 python3"]``."""
    out = []
    for line in (listing or "").splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0].isdigit() and not any(parts[1].startswith(d[:15]) for d in own_daemons):
            out.append(f"{parts[0]} {parts[1].strip()}")
    return out


# The kernel's names of the NVIDIA modules (/proc/modules), users first. Debian's packages rename the modules to
# nvidia-current*.ko (nvidia-current-open*.ko), which the kernel lists as nvidia_current_uvm and so on.
MODULE_SUFFIXES_USERS_FIRST = ("_uvm", "_drm", "_modeset", "_peermem", "")
MODULE_BASE_RE = "nvidia(_current(_open)?)?"


def reload_command(modules_file: str = "/proc/modules") -> str:
    """The shell command (POSIX sh) that reloads the NVIDIA modules: stop the driver's own daemons, unload the NVIDIA
    modules that are loaded (users first, under their kernel names: ``nvidia_uvm`` or Debian's
    ``nvidia_current_uvm``), load ``nvidia`` (modprobe's alias finds Debian's module) and then again the others that
    were loaded. A module that cannot be unloaded (a console on nvidia_drm, ib_core on nvidia_peermem) ends it with
    exit status 1, the modules unloaded so far loaded back and the enabled daemons started again."""
    daemons = " ".join(OWN_DAEMON_UNITS)
    suffixes = " ".join(f"'{x}'" for x in MODULE_SUFFIXES_USERS_FIRST)
    restart = f"for u in {daemons}; do systemctl is-enabled --quiet $u 2>/dev/null && systemctl start $u; done"
    return (
        f"systemctl stop {daemons} 2>/dev/null; r=; "
        f"for s in {suffixes}; do "
        f'for m in $(awk -v s="$s" \'$1 ~ ("^{MODULE_BASE_RE}" s "$") {{print $1}}\' {modules_file}); do '
        f'modprobe -r "$m" || {{ echo "cannot unload $m" >&2; modprobe nvidia; '
        f'for x in $r; do modprobe "$x"; done; {restart}; exit 1; }}; '
        f'r="$m $r"; done; done; '
        f"modprobe nvidia && for m in $r; do "
        f'case "$m" in nvidia|nvidia_current|nvidia_current_open) ;; *) modprobe "$m" || exit 1 ;; esac; done'
    )


def reboot_decision(  # noqa: PLR0911 - one return per row of the decision table, read top to bottom
    *,
    policy: str,
    gpu_present: bool,
    installed_version: Optional[str],
    loaded_version: Optional[str],
    changed: bool = False,
    nouveau_loaded: bool = False,
    gpu_in_use: bool = False,
    control_node: bool = False,
    gpu_holders: Iterable[str] = (),
    reload_error: str = "",
) -> Dict[str, Any]:
    """What to do after the install so that the loaded kernel module matches the userspace.

    Returns ``{"action": none|load|reload|reboot|fail, "reboot_required": bool, "reason": str, "command": str}``.
    ``load``/``reload``: modprobe (after unloading the old modules), possible when no process but the driver's own
    daemons holds the GPU (``gpu_holders``, "PID COMM" lines, or ``gpu_in_use``); the reload stops those daemons first.
    ``reboot``: the policy allows it. ``fail``: a reboot is needed and not allowed (policy never, or the
    control node); ``command`` says what to run. ``reload_error``: the load or reload was tried and failed with this
    (a module that cannot be unloaded): then a reboot by the policy, or ``fail``.
    """
    inst = upstream_version(installed_version)
    loaded = upstream_version(loaded_version)
    reload_cmd = reload_command()
    holders = list(gpu_holders)
    gpu_in_use = gpu_in_use or bool(holders)
    held = f" ({', '.join(holders[:5])}{', ...' if len(holders) > 5 else ''})" if holders else ""

    def _reboot(reason: str) -> Dict[str, Any]:
        if policy == "never" or control_node:
            who = "the control node is never rebooted by the role" if control_node else "nvidia_driver_reboot is never"
            return {
                "action": "fail",
                "reboot_required": True,
                "reason": f"{reason}; a reboot is needed but {who}",
                "command": "reboot",
            }
        return {"action": "reboot", "reboot_required": True, "reason": reason, "command": "reboot"}

    if not gpu_present:
        return {
            "action": "none",
            "reboot_required": False,
            "reason": "no NVIDIA GPU on this host: nothing to load (installed for image building)",
            "command": "",
        }
    if policy == "always" and changed:
        return _reboot("the driver changed and nvidia_driver_reboot is always")
    if not inst:
        return {"action": "none", "reboot_required": False, "reason": "no driver installed", "command": ""}
    if nouveau_loaded:
        return _reboot("nouveau is loaded and holds the GPU (now blacklisted)")
    if loaded == inst:
        return {"action": "none", "reboot_required": False, "reason": f"module {loaded} matches", "command": ""}
    if loaded is None:
        if reload_error:
            return _reboot(f"no NVIDIA module loaded; driver {inst} installed; the reload failed ({reload_error})")
        return {
            "action": "load",
            "reboot_required": False,
            "reason": f"no NVIDIA module loaded; driver {inst} installed",
            "command": "modprobe nvidia",
        }
    reason = f"loaded module {loaded} differs from the installed userspace {inst} (Driver/library version mismatch)"
    if not gpu_in_use:
        if reload_error:
            return _reboot(f"{reason}; the reload failed ({reload_error})")
        return {"action": "reload", "reboot_required": False, "reason": reason, "command": reload_cmd}
    if policy == "never" or control_node:
        out = _reboot(reason + " and processes hold the GPU" + held)
        out["command"] = (
            "stop the processes using /dev/nvidia* (fuser -v /dev/nvidia*), then run the play again (it reloads the"
            f" module: {reload_cmd}); or reboot"
        )
        return out
    return _reboot(reason + " and processes hold the GPU" + held)
