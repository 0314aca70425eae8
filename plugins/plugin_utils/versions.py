# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's one way to read and compare version strings (every plugin, filter and input check uses it).

Two readings: ``vtuple`` is lenient (the numbers of a version, a local label after ``+`` ignored: what the engine's
tables, package versions such as ``2.21.5-1+cuda12.4`` or ``535.261.03-1`` and framework versions need);
``dotted`` is strict (dotted numbers only, the error type the caller names: a user's input such as a CUDA version).
Comparisons pad the shorter version with zeros (``11.8`` == ``11.8.0``).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Optional, Tuple, Type

_DOTTED = re.compile(r"^\d+(\.\d+)*$")


def vtuple(version: Any) -> Tuple[int, ...]:
    """``"11.8.0"`` -> ``(11, 8, 0)``; non-numeric parts are skipped and a ``+`` label ignored
    (``"2.21.5-1+cuda12.4"`` -> ``(2, 21, 5, 1)``, ``"580.95.05-1.el9"`` -> ``(580, 95, 5, 1, 9)``)."""
    return _vtuple(str(version))


@functools.lru_cache(maxsize=4096)
def _vtuple(version: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version.split("+", maxsplit=1)[0]))


def vcmp(a: Any, b: Any) -> int:
    """-1, 0 or 1 as ``a`` is older than, the same release as, or newer than ``b`` (zero-padded)."""
    ta, tb = vtuple(a), vtuple(b)
    n = max(len(ta), len(tb))
    ta = ta + (0,) * (n - len(ta))
    tb = tb + (0,) * (n - len(tb))
    return (ta > tb) - (ta < tb)


def mm(version: Any) -> str:
    """Major.minor of a version (``"12.4.1"`` -> ``"12.4"``, ``"2"`` -> ``"2.0"``)."""
    return _mm(str(version))


@functools.lru_cache(maxsize=4096)
def _mm(version: str) -> str:
    t = _vtuple(version)
    return f"{t[0]}.{t[1] if len(t) > 1 else 0}"


def vprefix(version: Any, prefix: Any) -> bool:
    """``"2.0.1"`` matches prefix ``"2.0"`` and ``"2"``; ``"2.10"`` does not match ``"2.1"``."""
    tv, tp = vtuple(version), vtuple(prefix)
    return len(tp) > 0 and tv[: len(tp)] == tp


def in_range(version: Any, lo: Optional[str], hi: Optional[str]) -> bool:
    """Inclusive range check on major.minor (None = open)."""
    if lo is not None and vcmp(mm(version), lo) < 0:
        return False
    return not (hi is not None and vcmp(mm(version), hi) > 0)


def dotted(version: Any, error: Type[Exception] = ValueError) -> Tuple[int, ...]:
    """``"12.4.1"`` -> ``(12, 4, 1)``; raises ``error`` for anything that is not dotted numbers."""
    text = str(version).strip()
    if not _DOTTED.match(text):
        raise error(f"'{version}' is not a version (dotted numbers such as 12.4 or 2.21.5)")
    return tuple(int(p) for p in text.split("."))


def dotted_mm(version: Any, error: Type[Exception] = ValueError) -> str:
    """Strict major.minor: ``"12.4.1"`` -> ``"12.4"``; raises ``error`` for ``"12"`` or a non-version."""
    parts = dotted(version, error)
    if len(parts) < 2:
        raise error(f"'{version}' needs at least major.minor")
    return f"{parts[0]}.{parts[1]}"


def agrees(resolved: Any, found: Any, error: Type[Exception] = ValueError) -> bool:
    """Whether an installed version agrees with the resolved one on every component both name (at least two).

    ``12.4`` agrees with ``12.4.131``; ``9.1.0.70`` with ``9.1.0.70`` and ``9.1.0`` (a library's own call reports
    three components), not with ``9.1.1``. Both must be dotted numbers (``error`` otherwise).
    """
    want, have = dotted(resolved, error), dotted(found, error)
    n = min(len(want), len(have))
    return n >= 2 and want[:n] == have[:n]
