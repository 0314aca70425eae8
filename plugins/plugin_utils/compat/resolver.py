# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""resolve(): one resolution, and on refusal the nearest valid alternatives (each pin relaxed, another Python,
framework or OS of the same family)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .pick import python
from .render import summarize
from .request import PIN_KEYS, Context, check_shape
from .search import resolve_once
from .tables import load_tables
from .versions import CompatError


def _try(request: Dict[str, Any], t: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    try:
        alt, _conflicts, _ctx = resolve_once(request, t)
    except CompatError:
        return None
    return alt


def alternatives(request: Dict[str, Any], ctx: Context, t: Dict[str, Any]) -> List[str]:
    """Sentences naming the nearest stacks that do resolve."""
    out = []
    for key in (*PIN_KEYS, "driver"):
        if request.get(key) in (None, ""):
            continue
        alt = _try({k: v for k, v in request.items() if k != key}, t)
        if alt is not None:
            out.append(f"unpin {key} ({request[key]}): {summarize(alt)}")
    tries: List[Tuple[str, Dict[str, Any]]] = []
    if not request.get("python"):
        tries += [
            (f"use Python {p} (install it next to the OS's python3)", {"python": p}) for p in python.alternatives(ctx)
        ]
    if not request.get("framework_version"):
        tries += [(f"use framework {f}", {"framework": f}) for f in ("pytorch", "tensorflow") if f != ctx.framework]
    if ctx.gpus and not any(request.get(k) for k in ("cuda", "framework_version")):
        tries += [
            (f"use OS {r['os']}", {"os": r["os"]})
            for r in t["os"]["releases"]
            if r["family"] == ctx.os["family"] and r["os"] != ctx.os["os"]
        ]
    python_found = False
    for label, change in tries:
        if python_found and "python" in change:
            continue
        alt = _try(dict(request, **change), t)
        if alt is not None:
            out.append(f"{label}: {summarize(alt)}")
            python_found = python_found or "python" in change
    return out


def resolve(request: Dict[str, Any], tables: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Resolve a request (see the ``compatible_stack`` filter's documentation) or raise :class:`CompatError`."""
    t = tables or load_tables()
    check_shape(request)
    result, conflicts, ctx = resolve_once(request, t)
    if result is not None:
        return result
    alts = alternatives(request, ctx, t)
    what = "{} on {} with {}".format(ctx.framework, ctx.os["os"], ", ".join(g["input"] for g in ctx.gpus) or "no GPUs")
    lines = [f"no compatible version set for {what}:"]
    lines.extend("  - {} [{}]".format(c["message"], c["source"]) for c in conflicts)
    if alts:
        lines.append("Nearest valid alternatives:")
        lines.extend("  - " + a for a in alts)
    raise CompatError("\n".join(lines), conflicts, alts)


def resolve_or_conflicts(request: Dict[str, Any], tables: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Like :func:`resolve` but returns ``{"ok": False, "msg", "conflicts", "alternatives"}`` instead of raising."""
    try:
        result = resolve(request, tables)
    except CompatError as exc:
        return {"ok": False, "msg": exc.message, "conflicts": exc.conflicts, "alternatives": exc.alternatives}
    out = dict(result)
    out["ok"] = True
    return out
