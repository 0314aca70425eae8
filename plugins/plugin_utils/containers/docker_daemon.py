# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decisions of the docker role as pure functions (controller side, no Ansible imports).

- ``parse_daemon_json``: the user's ``/etc/docker/daemon.json`` text, or the sentence saying why it is not valid
  (the role then stops before overwriting anything).
- ``merge_daemon_config``: the role's managed settings merged into what is there: mappings recursively, every
  other value replaced, ``None`` removes a key; the user's other keys are kept as they are.
- ``managed_settings``: the role's variables turned into daemon.json keys (registry mirrors, data root, log driver
  and options, default runtime, the user's extra settings).
- ``docker_package_version``: the upstream Docker version of a package version (``5:27.5.1-1~debian.12~bookworm``,
  ``20.10.24+dfsg1-1+deb12u1``) -> ``27.5.1`` / ``20.10.24``.

The filter plugin ``gpucluster.horovod.docker`` exposes them to the role; the unit tests call them directly.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Dict, Mapping, Optional, Tuple


def parse_daemon_json(text: Optional[str], path: str = "/etc/docker/daemon.json") -> Tuple[Dict[str, Any], str]:
    """``(settings, problem)``: the parsed object and an empty problem, or ``({}, sentence)``.

    A missing or empty file is an empty object (Docker's own default)."""
    if text is None or not text.strip():
        return {}, ""
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        col = getattr(exc, "colno", None)
        where = f" at line {line}, column {col}" if line else ""
        msg = getattr(exc, "msg", str(exc))
        return {}, f"{path} is not valid JSON{where} ({msg})"
    if not isinstance(data, dict):
        return {}, f"{path} must hold a JSON object ({{...}}), not a {type(data).__name__}"
    return data, ""


def merge_daemon_config(existing: Mapping[str, Any], managed: Mapping[str, Any]) -> Dict[str, Any]:
    """``existing`` with ``managed`` merged in: nested objects merged key by key, lists and scalars replaced,
    a ``None`` value deletes the key. Neither argument is modified."""
    out = copy.deepcopy(dict(existing or {}))
    for key, value in (managed or {}).items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge_daemon_config(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def managed_settings(
    *,
    registry_mirrors=None,
    data_root: str = "",
    log_driver: str = "",
    log_opts: Optional[Mapping[str, Any]] = None,
    default_runtime: str = "",
    extra: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """The daemon.json keys the role's variables set; empty variables set nothing (the user's value stays)."""
    out: Dict[str, Any] = {}
    if registry_mirrors:
        out["registry-mirrors"] = list(registry_mirrors)
    if data_root:
        out["data-root"] = data_root
    if log_driver:
        out["log-driver"] = log_driver
    if log_opts:
        # dockerd wants every log option as a string ("max-size": "10m", "max-file": "3").
        out["log-opts"] = {str(k): str(v) for k, v in log_opts.items()}
    if default_runtime:
        out["default-runtime"] = default_runtime
    return merge_daemon_config(out, extra or {})


def docker_package_version(version: Optional[str]) -> Optional[str]:
    """The upstream Docker version in a Debian package version; None when there is none."""
    if not version:
        return None
    m = re.match(r"^(?:\d+:)?(\d+\.\d+(?:\.\d+)?)", str(version).strip())
    return m.group(1) if m else None
