# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The parts of a version for role YAML (plugin_utils/versions.py, the collection's one version reader).

Roles compare versions with Ansible's ``version`` test and take their parts with these filters, never by splitting
strings. Documented in the matching <name>.yml files.
"""

from __future__ import annotations

import re

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_versions = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.versions")

_EPOCH = re.compile(r"^\s*\d+:")


def version_parts(version):
    """The numbers of a version as a list: a Debian epoch (``1:``) and a ``+`` label ignored
    (``1:535.261.03-1`` -> [535, 261, 3, 1], ``12.4`` -> [12, 4])."""
    parts = list(_versions.vtuple(_EPOCH.sub("", str(version))))
    if not parts:
        raise AnsibleFilterError(f"version_parts: {version!r} has no version number")
    return parts


def version_major(version):
    """The major version as a string (``12.4.1`` -> ``12``, ``1:535.261.03-1`` -> ``535``)."""
    return str(version_parts(version)[0])


def version_mm(version):
    """Major.minor (``12.4.1`` -> ``12.4``, ``13`` -> ``13.0``)."""
    parts = version_parts(version)
    return f"{parts[0]}.{parts[1] if len(parts) > 1 else 0}"


class FilterModule:
    """gpucluster.horovod version filters."""

    def filters(self):
        return {"version_parts": version_parts, "version_major": version_major, "version_mm": version_mm}
