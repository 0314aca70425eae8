# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the docker role: docker_daemon_merge, docker_managed_settings, docker_package_version.

Documented in the matching <name>.yml files; the logic is in plugin_utils/containers/docker_daemon.py.
"""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_logic = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.containers.docker_daemon")


def docker_daemon_merge(text, managed, path="/etc/docker/daemon.json"):
    """``{"config": merged, "problem": why the current file is unusable or ""}``."""
    current, problem = _logic.parse_daemon_json(text, str(path))
    if problem:
        return {"config": {}, "problem": problem, "current": {}}
    return {"config": _logic.merge_daemon_config(current, dict(managed or {})), "problem": "", "current": current}


def docker_managed_settings(variables):
    """The daemon.json keys the role's variables set (see plugin_utils/containers/docker_daemon.py managed_settings)."""
    v = dict(variables or {})
    return _logic.managed_settings(
        registry_mirrors=v.get("registry_mirrors") or [],
        data_root=v.get("data_root") or "",
        log_driver=v.get("log_driver") or "",
        log_opts=v.get("log_opts") or {},
        default_runtime=v.get("default_runtime") or "",
        extra=v.get("extra") or {},
    )


def docker_package_version(version):
    """``5:27.5.1-1~debian.12~bookworm`` -> ``27.5.1``; empty string when not a version."""
    return _logic.docker_package_version(version) or ""


class FilterModule:
    """gpucluster.horovod docker filters."""

    def filters(self):
        return {
            "docker_daemon_merge": docker_daemon_merge,
            "docker_package_version": docker_package_version,
            "docker_managed_settings": docker_managed_settings,
        }
