# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Version helpers and the engine's error type (no table access here)."""

from __future__ import annotations

import functools
import re
from typing import Any, Dict, List, Optional, Tuple


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


def vtuple(version: Any) -> Tuple[int, ...]:
    """``"11.8.0"`` -> ``(11, 8, 0)``; non-numeric tails are ignored (``"2.21.5-1+cuda12.4"`` -> (2, 21, 5, 1))."""
    return _vtuple(str(version))


@functools.lru_cache(maxsize=4096)
def _vtuple(version: str) -> Tuple[int, ...]:
    parts = re.findall(r"\d+", str(version).split("+", maxsplit=1)[0])
    return tuple(int(p) for p in parts)


def vcmp(a: Any, b: Any) -> int:
    """Compare two versions on the components both give (``"11.8"`` == ``"11.8.0"``)."""
    ta, tb = vtuple(a), vtuple(b)
    n = max(len(ta), len(tb))
    ta = ta + (0,) * (n - len(ta))
    tb = tb + (0,) * (n - len(tb))
    return (ta > tb) - (ta < tb)


def mm(version: Any) -> str:
    """Major.minor of a version string."""
    return _mm(str(version))


@functools.lru_cache(maxsize=4096)
def _mm(version: str) -> str:
    t = _vtuple(version)
    return f"{t[0]}.{t[1] if len(t) > 1 else 0}"


def vprefix(version: Any, prefix: Any) -> bool:
    """``"2.0.1"`` matches prefix ``"2.0"`` and ``"2"``; ``"2.10"`` does not match ``"2.1"``."""
    tv, tp = vtuple(version), vtuple(prefix)
    return len(tp) > 0 and tv[: len(tp)] == tp


def in_range(version: str, lo: Optional[str], hi: Optional[str]) -> bool:
    """Inclusive range check on major.minor (None = open)."""
    if lo is not None and vcmp(mm(version), lo) < 0:
        return False
    return not (hi is not None and vcmp(mm(version), hi) > 0)


def text(value: Any) -> Optional[str]:
    """A request value as a string; None and '' are None."""
    if value is None or value == "":
        return None
    return str(value)


def known(values: List[str]) -> str:
    """A list of known values for an error message."""
    return ", ".join(values)
