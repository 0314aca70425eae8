# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module imported when it is first used.

To find one filter of a collection, Ansible imports every filter file of the collection, in each forked worker that
templates a task using one (ansible-core 2.19, Jinja2Loader.get_with_context). The filter files of this collection
name the logic they call through LazyModule, so that a worker imports only the logic of the filters it calls: with
every import at the top, each such worker compiled 54 modules (80-100 ms of CPU); see docs/testing.md, "eleventh
session".
"""

from __future__ import annotations

import importlib


class LazyModule:
    """Stands for the module NAME; the first attribute read imports it."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module = None

    def __getattr__(self, attr: str):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"LazyModule({self._name!r})"
