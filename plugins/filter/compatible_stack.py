# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""compatible_stack filter: thin entry point (docs in compatible_stack.yml; logic in plugin_utils/compat/)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_compat = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat")


def compatible_stack(request):
    """Resolve one compatible version set for the request or raise AnsibleFilterError naming the conflicts."""
    try:
        return _compat.resolve(dict(request) if hasattr(request, "keys") else request)
    except _compat.CompatError as exc:
        raise AnsibleFilterError(f"compatible_stack: {exc.message}") from exc


class FilterModule:
    """gpucluster.horovod compatibility filters."""

    def filters(self):
        return {"compatible_stack": compatible_stack}
