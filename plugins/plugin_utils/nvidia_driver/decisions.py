# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decisions of the nvidia_driver role as pure functions (controller side, no Ansible imports).

- ``select_packages``: which packages, at which version, pinned and held, for an OS's package table
  (the role's ``vars/<os>.yml`` ``_nvidia_driver_packages``), a method, a branch and a kernel-module flavour.
- ``target_version``: the exact version to install: an explicit one, else the installed one (kept unless an
  upgrade is asked for), else the repository's candidate.
- ``input_problems``: the semantic input checks (method vs OS, reboot policy, unknown branch, the distribution's
  branch, module flavour vs GPU generation, Secure Boot), each problem one sentence naming the host, the variable,
  the bad value and what would be valid.
- ``version_problem``: the version about to be installed is older than the stack needs.
- ``rpm_newest`` / ``rpm_lock_names``: the dnf path's newest available version of the driver package and the
  installed driver packages to lock at their version (dnf versionlock, the counterpart of apt's pin and hold).
- ``reboot_decision``: after an install, what brings the loaded module in step with the userspace
  (nothing, reload the modules, reboot, or fail with the command to run).

The filter plugin ``gpucluster.horovod.nvidia_driver`` exposes them to the role; the unit tests call them directly.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from ..versions import vcmp, vtuple

METHODS = ("distro", "repo")
KERNEL_MODULES = ("open", "proprietary")
REBOOT_POLICIES = ("never", "if_needed", "always")
# The driver's own daemons hold /dev/nvidia* while they run; they are stopped for a module reload and started after
# it (systemd unit names; their processes' names, as /proc/PID/comm gives them, cut to 15 characters).
OWN_DAEMON_UNITS = ("nvidia-persistenced", "nvidia-fabricmanager")
OWN_DAEMONS = ("nvidia-persistenced", "nv-fabricmanager")


def _fmt(template: str, branch: Any, kernel_module: str, server: bool) -> str:
    return template.format(
        branch=branch if branch is not None else "",
        open="-open" if kernel_module == "open" else "",
        server="-server" if server else "",
        flavour=kernel_module,
        stream="open" if kernel_module == "open" else "dkms",
    )


def select_packages(
    table: Mapping[str, Any],
    method: str,
    branch: Any,
    kernel_module: str,
    version: Optional[str] = None,
    *,
    server: bool = False,
    fabricmanager: bool = False,
) -> Dict[str, Any]:
    """Packages for one host.

    ``table`` is the role's per-OS ``_nvidia_driver_packages``: for each method a dict with
    ``packages`` (templates with ``{branch}``, ``{open}``, ``{server}``, ``{stream}``: ``open`` or ``dkms``),
    ``module_packages`` (per flavour),
    ``unversioned`` (packages with their own version line, installed without ``=version``) and optionally
    ``module_stream`` (dnf module, RHEL family) and ``fabricmanager`` (the Fabric Manager package, added with
    ``fabricmanager=True`` - hosts with NVSwitches - at the driver's version).

    Returns ``{"names", "version_probe", "install", "pins", "hold", "module_stream"}``: names to install; the
    package whose version is the driver's; ``install`` with
    ``=version`` where a version is known (apt syntax; dnf takes ``name-version``); the apt pins; the
    packages to hold; the dnf module stream or None.
    """
    if method not in METHODS:
        raise ValueError(f"method {method!r} unknown; valid: {', '.join(METHODS)}")
    if kernel_module not in KERNEL_MODULES:
        raise ValueError(f"kernel_module {kernel_module!r} unknown; valid: {', '.join(KERNEL_MODULES)}")
    spec = (table or {}).get(method)
    if not spec:
        raise ValueError(f"method {method!r} has no package data for this OS")
    names = [_fmt(t, branch, kernel_module, server) for t in spec.get("packages") or []]
    module_pkg = (spec.get("module_packages") or {}).get(kernel_module)
    if module_pkg:
        names.append(_fmt(module_pkg, branch, kernel_module, server))
    if fabricmanager:
        if not spec.get("fabricmanager"):
            raise ValueError(f"method {method!r} has no Fabric Manager package on this OS")
        names.append(_fmt(spec["fabricmanager"], branch, kernel_module, server))
    unversioned = {_fmt(t, branch, kernel_module, server) for t in spec.get("unversioned") or []}
    names += [u for u in sorted(unversioned) if u not in names]
    sep = spec.get("version_separator", "=")
    versioned = [n for n in names if n not in unversioned]
    install = [f"{n}{sep}{version}" if version and n in versioned else n for n in names]
    pins = [{"package": n, "version": version} for n in versioned] if version and spec.get("pin", True) else []
    stream = spec.get("module_stream")
    return {
        "names": names,
        # The package whose installed/candidate version is the driver's (the kernel module package).
        "version_probe": _fmt(module_pkg, branch, kernel_module, server) if module_pkg else (versioned or names)[0],
        "install": install,
        "pins": pins,
        "hold": list(names) if spec.get("hold", True) else [],
        "module_stream": _fmt(stream, branch, kernel_module, server) if stream else None,
    }


def version_branch(version: Optional[str]) -> Optional[int]:
    """``535.261.03-1`` -> 535 (epoch and Debian revision ignored); None when not a driver version."""
    if not version:
        return None
    m = re.match(r"^(?:\d+:)?(\d+)\.", str(version).strip())
    return int(m.group(1)) if m else None


def upstream_version(version: Optional[str]) -> Optional[str]:
    """``535.261.03-1`` -> ``535.261.03``."""
    if not version:
        return None
    m = re.match(r"^(?:\d+:)?(\d+(?:\.\d+)*)", str(version).strip())
    return m.group(1) if m else None


def target_version(
    requested: Optional[str], installed: Optional[str], candidate: Optional[str], upgrade: bool
) -> Optional[str]:
    """The exact package version to install and pin.

    An explicit ``requested`` version wins. Otherwise an installed driver stays where it is (the pin and hold keep
    it; an unattended upgrade must not move it) unless ``upgrade`` is true, which moves it to the candidate.
    Nothing installed: the candidate.
    """
    if requested:
        return str(requested)
    if installed and not upgrade:
        return installed
    return candidate or installed or None


def version_problem(host: str, version: Optional[str], driver_min: Optional[str], cuda: Optional[str]) -> str:
    """Empty when ``version`` satisfies ``driver_min``; else the sentence saying what to change."""
    up = upstream_version(version)
    if not up or not driver_min:
        return ""
    if vcmp(up, driver_min) >= 0:
        return ""
    need = f"CUDA {cuda} needs driver >= {driver_min}" if cuda else f"nvidia_driver_min is {driver_min}"
    return (
        f"{host}: the driver to install is {version}, but {need}. Pin a CUDA that this driver runs "
        f"(gpucluster_pins: {{cuda: ...}} with driver_branch {version_branch(version)}), set "
        f"nvidia_driver_method: repo for a newer branch, or set nvidia_driver_version to a version >= {driver_min}."
    )


def rpm_newest(versions: Iterable[str]) -> Optional[str]:
    """The newest of ``version-release`` strings (``dnf repoquery --qf '%{version}-%{release}'`` lines), by the
    numbers in them (``580.95.05-1.el9`` > ``580.82.07-1.el9``); None when there is none."""
    found = [v.strip() for v in versions or [] if v and re.match(r"^\d+\.", v.strip())]
    return max(found, key=vtuple) if found else None


def rpm_lock_names(rpm_qa: str, version: Optional[str]) -> List[str]:
    """The installed packages of one driver version, to lock with dnf versionlock.

    ``rpm_qa`` is the output of ``rpm -qa --qf '%{NAME} %{VERSION}\\n'``. A package belongs to the driver when its
    VERSION is the driver's upstream version and its name is NVIDIA's (``*nvidia*``, ``cuda-drivers*``): the
    kernel module, the libraries, nvidia-persistenced, nvidia-settings, Fabric Manager and the metapackage all
    carry the driver's version. Sorted, without duplicates (several architectures)."""
    up = upstream_version(version)
    if not up:
        return []
    names = set()
    for line in (rpm_qa or "").splitlines():
        parts = line.split()
        if len(parts) != 2:
            continue
        name, ver = parts
        if ver == up and ("nvidia" in name or name.startswith("cuda-drivers")):
            names.add(name)
    return sorted(names)


def deb_lock_pins(dpkg_query: str, version: Optional[str], exclude: Iterable[str] = ()) -> List[Dict[str, str]]:
    """The installed packages of one driver version, to pin and hold with apt (the repo method):
    ``[{"package": name, "version": its installed version}]``.

    ``dpkg_query`` is the output of ``dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev}\\n'``. NVIDIA's
    metapackages (``cuda-drivers-550``, ``nvidia-open-570``) depend on the driver's packages with ``>=``, so a pin
    and hold of the metapackage alone lets an upgrade move the libraries and the kernel module under a running
    driver ("Driver/library version mismatch"). A package belongs to the driver when it is installed, its upstream
    version is the driver's and its name is NVIDIA's (``*nvidia*``, ``cuda-drivers*``, ``libcuda*``, ``libnv*``).
    ``exclude``: names pinned elsewhere (the metapackages; ``name=version`` is accepted). Sorted by name, one entry
    per name (several architectures)."""
    up = upstream_version(version)
    if not up:
        return []
    skip = {str(e).split("=", maxsplit=1)[0] for e in exclude}
    pins: Dict[str, str] = {}
    for name, ver, _held in _dpkg_driver_rows(dpkg_query):
        if upstream_version(ver) == up and name not in skip:
            pins.setdefault(name, ver)
    return [{"package": n, "version": pins[n]} for n in sorted(pins)]


def _dpkg_driver_rows(dpkg_query: str) -> Iterable[tuple]:
    """(name, version, held) of the installed packages with an NVIDIA driver name, from ``dpkg-query -W -f '${Package}
    ${Version} ${db:Status-Abbrev}\\n'`` (the architecture qualifier dropped)."""
    for line in (dpkg_query or "").splitlines():
        parts = line.split()
        if len(parts) < 3 or parts[2][1:2] != "i":
            continue
        name = parts[0].split(":")[0]
        if _nvidia_deb_name(name):
            yield name, parts[1], parts[2][:1] == "h"


def _nvidia_deb_name(name: str) -> bool:
    return "nvidia" in name or name.startswith(("cuda-drivers", "libcuda", "libnv"))


def deb_release_names(dpkg_query: str, version: Optional[str]) -> List[str]:
    """The held packages of another driver version, whose holds are released before the driver moves to ``version``:
    apt changes or removes no held package it is not asked for by name, so the old version's libraries and kernel
    module (the same branch's, or another branch's that the new one replaces) would block the move. Held, NVIDIA's
    name (as ``deb_lock_pins``) and a driver version (branch 300 or newer, not ``version``): the container toolkit's
    ``1.17.8`` and other NVIDIA products keep their holds. Sorted, without duplicates."""
    up = upstream_version(version)
    names = set()
    for name, ver, held in _dpkg_driver_rows(dpkg_query):
        branch = version_branch(ver)
        if held and branch is not None and branch >= 300 and upstream_version(ver) != up:
            names.add(name)
    return sorted(names)


_DKMS_LINE = re.compile(
    r"^(?P<module>[^,/\s]+)(?:/|,\s*)(?P<version>[^,\s]+),\s*(?P<kernel>[^,\s]+)(?:,\s*(?P<arch>[^:\s]+))?"
    r"\s*:\s*(?P<state>[a-z-]+)"
)


def dkms_installed_kernels(status: str, module: Optional[str] = None) -> List[str]:
    """The kernels ``dkms status`` shows the module *installed* for, in both formats.

    DKMS 3: ``nvidia-current/535.261.03, 6.1.0-28-amd64, x86_64: installed``; DKMS 2 (Ubuntu 22.04):
    ``nvidia, 535.183.01, 5.15.0-91-generic, x86_64: installed``. A note after the state (``installed (WARNING!
    Diff between built and installed module!)``) is allowed; ``added``/``built`` lines and lines of other
    modules (when ``module`` is given) are not counted."""
    kernels: List[str] = []
    for line in (status or "").splitlines():
        m = _DKMS_LINE.match(line.strip())
        if not m or m.group("state") != "installed":
            continue
        if module and m.group("module") != module:
            continue
        if m.group("kernel") not in kernels:
            kernels.append(m.group("kernel"))
    return kernels


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
