# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The engine's error type and message helpers; the version helpers are the collection's one module (..versions),
re-exported here for the engine's modules."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..versions import in_range, mm, vcmp, vprefix, vtuple

__all__ = ["CompatError", "in_range", "known", "mm", "text", "vcmp", "vprefix", "vtuple"]


class CompatError(Exception):
    """No compatible set exists, or the request names something unknown.

    ``message`` carries no plugin-name prefix: each entry point (filter, action) adds its own.
    ``conflicts`` lists ``{"constraint", "source", "message"}`` dicts; ``alternatives`` lists sentences.
    """

    def __init__(
        self, message: str, conflicts: Optional[List[Dict[str, str]]] = None, alternatives: Optional[List[str]] = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.conflicts = conflicts or []
        self.alternatives = alternatives or []


def text(value: Any) -> Optional[str]:
    """A request value as a string; None and '' are None."""
    if value is None or value == "":
        return None
    return str(value)


def known(values: List[str]) -> str:
    """A list of known values for an error message."""
    return ", ".join(values)
