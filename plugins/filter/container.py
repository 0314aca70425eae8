# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the training containers: known_hosts_at_port, container_exec_argv, container_rdma_options.

Documented in the matching <name>.yml files; the logic is in plugin_utils/containers/training.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_logic = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.containers.training")


def known_hosts_at_port(lines, port):
    """known_hosts lines with every name at ``port`` (``[name]:port``)."""
    try:
        return _logic.known_hosts_at_port(list(lines or []), port)
    except ValueError as exc:
        raise AnsibleFilterError(f"known_hosts_at_port: {exc}") from exc


def container_exec_argv(argv, container, user="", workdir="", env=None):
    """``docker exec`` around ``argv`` (unchanged when ``container`` is empty)."""
    try:
        return _logic.exec_argv(list(argv or []), container or "", user or "", workdir or "", dict(env or {}))
    except ValueError as exc:
        raise AnsibleFilterError(f"container_exec_argv: {exc}") from exc


def container_rdma_options(fabric, mode="auto", device_dir_exists=False, host="", memlock="unlimited"):
    """A training container's RDMA devices, capability and memlock limit (or none), and why it cannot have them."""
    try:
        return _logic.rdma_options(dict(fabric or {}), str(mode), bool(device_dir_exists), str(host or ""), memlock)
    except ValueError as exc:
        raise AnsibleFilterError(f"container_rdma_options: {exc}") from exc


class FilterModule:
    """gpucluster.horovod container filters."""

    def filters(self):
        return {
            "known_hosts_at_port": known_hosts_at_port,
            "container_exec_argv": container_exec_argv,
            "container_rdma_options": container_rdma_options,
        }
