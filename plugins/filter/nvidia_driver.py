# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the nvidia_driver role: nvidia_driver_packages, nvidia_driver_target_version,
nvidia_driver_version_problem, nvidia_driver_action, nvidia_driver_reboot_decision, nvidia_driver_gpu_holders,
nvidia_driver_rpm_newest, nvidia_driver_rpm_lock_names, nvidia_driver_deb_lock_pins,
nvidia_driver_deb_release_names, nvidia_driver_dkms_installed.

Documented in the matching <name>.yml files; the logic is in plugin_utils/nvidia_driver/decisions.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_logic = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.nvidia_driver.decisions")


def nvidia_driver_packages(  # noqa: PLR0917 - Jinja passes filter arguments positionally
    table,
    method,
    branch,
    kernel_module,
    version=None,
    server=False,
    fabricmanager=False,
    components="full",
    desktop_installed=False,
):
    """Packages, pins and holds for one host."""
    try:
        return _logic.select_packages(
            dict(table or {}),
            method,
            branch,
            kernel_module,
            version or None,
            server=bool(server),
            fabricmanager=bool(fabricmanager),
            components=str(components or "full"),
            desktop_installed=boolean(desktop_installed, strict=False),
        )
    except ValueError as exc:
        raise AnsibleFilterError(f"nvidia_driver_packages: {exc}") from exc


def nvidia_driver_target_version(requested, installed=None, candidate=None, upgrade=False):
    """The exact version to install and pin."""
    return _logic.target_version(requested or None, installed or None, candidate or None, bool(upgrade)) or ""


def nvidia_driver_version_problem(version, host, driver_min=None, cuda=None):
    """Why ``version`` is too old for the stack, or an empty string."""
    return _logic.version_problem(str(host), version or None, driver_min or None, cuda or None)


def nvidia_driver_action(gpu_facts, stack=None, force=False, upgrade=False, version="", minimum=""):  # noqa: PLR0917
    """Whether the role works on this host, and why."""
    return _logic.driver_action(
        dict(gpu_facts or {}),
        dict(stack or {}),
        force=bool(force),
        upgrade=bool(upgrade),
        version=str(version or ""),
        minimum=str(minimum or ""),
    )


def nvidia_driver_gpu_holders(listing):
    """The "PID COMM" lines of the processes holding the GPU, without the driver's own daemons."""
    return _logic.parse_gpu_holders(str(listing or ""))


def nvidia_driver_reboot_decision(inputs):
    """load, reload, reboot, fail or none, with the reason and the command."""
    try:
        return _logic.reboot_decision(**dict(inputs))
    except TypeError as exc:
        raise AnsibleFilterError(f"nvidia_driver_reboot_decision: {exc}") from exc


def nvidia_driver_rpm_newest(versions):
    """The newest version-release of a list (dnf path)."""
    if isinstance(versions, str):
        versions = versions.splitlines()
    return _logic.rpm_newest(list(versions or [])) or ""


def nvidia_driver_rpm_lock_names(rpm_qa, version):
    """The installed driver packages of ``version`` to lock with dnf versionlock."""
    return _logic.rpm_lock_names(str(rpm_qa or ""), version or None)


def nvidia_driver_deb_lock_pins(dpkg_query, version, exclude=None):
    """The installed driver packages of ``version`` with their versions, to pin and hold with apt (repo method)."""
    return _logic.deb_lock_pins(str(dpkg_query or ""), version or None, list(exclude or []))


def nvidia_driver_deb_release_names(dpkg_query, version):
    """The held driver packages of another version, to release before the driver moves to ``version``."""
    return _logic.deb_release_names(str(dpkg_query or ""), version or None)


def nvidia_driver_dkms_installed(status, module=None):
    """The kernels ``dkms status`` shows the module installed for (DKMS 2 and 3 formats)."""
    return _logic.dkms_installed_kernels(str(status or ""), module or None)


class FilterModule:
    """gpucluster.horovod nvidia_driver filters."""

    def filters(self):
        return {
            "nvidia_driver_packages": nvidia_driver_packages,
            "nvidia_driver_target_version": nvidia_driver_target_version,
            "nvidia_driver_version_problem": nvidia_driver_version_problem,
            "nvidia_driver_action": nvidia_driver_action,
            "nvidia_driver_gpu_holders": nvidia_driver_gpu_holders,
            "nvidia_driver_reboot_decision": nvidia_driver_reboot_decision,
            "nvidia_driver_rpm_newest": nvidia_driver_rpm_newest,
            "nvidia_driver_rpm_lock_names": nvidia_driver_rpm_lock_names,
            "nvidia_driver_deb_lock_pins": nvidia_driver_deb_lock_pins,
            "nvidia_driver_deb_release_names": nvidia_driver_deb_release_names,
            "nvidia_driver_dkms_installed": nvidia_driver_dkms_installed,
        }
