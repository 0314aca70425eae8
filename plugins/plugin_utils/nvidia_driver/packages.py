# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the nvidia_driver role installs and locks: the packages per OS, method, branch and flavour, the exact
version to install (explicit, installed or candidate) and whether it is new enough, the dnf and apt locks of the
installed driver packages, the kernels DKMS built the module for. Pure Python, no Ansible imports."""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Mapping, Optional

from ..versions import vcmp, vtuple
from .constants import COMPONENTS, KERNEL_MODULES, METHODS


def _fmt(template: str, branch: Any, kernel_module: str, server: bool) -> str:
    return template.format(
        branch=branch if branch is not None else "",
        open="-open" if kernel_module == "open" else "",
        server="-server" if server else "",
        flavour=kernel_module,
        stream="open" if kernel_module == "open" else "dkms",
    )


def _branch_number(branch: Any) -> Optional[int]:
    try:
        return int(str(branch).strip())
    except (TypeError, ValueError):
        return None


def _component_names(spec: Mapping[str, Any], components: str, branch: Any, desktop_installed: bool) -> List[Any]:
    """The templates of the driver's own packages for ``components`` (``compute`` or ``full``).

    ``compute`` takes ``compute_packages`` where the OS has them (the CUDA, NVML and PTX JIT libraries, nvidia-smi,
    the GSP firmware: what a GPU server that drives no display runs CUDA and containers with), else ``packages``.
    An entry is a template or ``{name, from_branch}`` (a library the branch has from that branch on). A host that
    has the full set installed keeps it (``desktop_installed``): the role removes nothing, and the full set's
    metapackage depends on the libraries at one exact version, so it moves with them."""
    if components not in COMPONENTS:
        raise ValueError(f"components {components!r} unknown; valid: {', '.join(COMPONENTS)}")
    if components == "full" or desktop_installed or not spec.get("compute_packages"):
        return list(spec.get("packages") or [])
    number = _branch_number(branch)
    names = []
    for entry in spec["compute_packages"]:
        if isinstance(entry, Mapping):
            if number is None or number >= int(entry.get("from_branch", 0)):
                names.append(entry["name"])
        else:
            names.append(entry)
    return names


def select_packages(
    table: Mapping[str, Any],
    method: str,
    branch: Any,
    kernel_module: str,
    version: Optional[str] = None,
    *,
    server: bool = False,
    fabricmanager: bool = False,
    components: str = "full",
    desktop_installed: bool = False,
) -> Dict[str, Any]:
    """Packages for one host.

    ``table`` is the role's per-OS ``_nvidia_driver_packages``: for each method a dict with
    ``packages`` (templates with ``{branch}``, ``{open}``, ``{server}``, ``{stream}``: ``open`` or ``dkms``),
    ``module_packages`` (per flavour),
    ``unversioned`` (packages with their own version line, installed without ``=version``), optionally
    ``compute_packages`` (what ``components="compute"`` installs instead of ``packages``: no X server, OpenGL,
    Vulkan or video libraries; see ``_component_names``) and optionally
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
    names = [
        _fmt(t, branch, kernel_module, server) for t in _component_names(spec, components, branch, desktop_installed)
    ]
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
        # The full set's metapackage (its first package), whose presence keeps the full set on a host; None where
        # the OS has no compute set.
        "desktop_probe": (
            _fmt(spec["packages"][0], branch, kernel_module, server)
            if spec.get("compute_packages") and spec.get("packages")
            else None
        ),
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
