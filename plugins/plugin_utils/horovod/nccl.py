# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which NCCL a GPU build of Horovod compiles against, and why (the horovod role's build.yml). Pure Python."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional


def build_nccl(
    nccl_home: str,
    build_env: Mapping[str, Any],
    wheel_dir: str,
    installed: Optional[Mapping[str, Any]],
    key_dir: str,
) -> Dict[str, Any]:
    """The NCCL of a GPU build: ``{source, home, env, reason}``.

    In order: the user's ``horovod_nccl_home`` (already HOROVOD_NCCL_HOME in the build variables); the user's
    HOROVOD_NCCL_INCLUDE/HOROVOD_NCCL_HOME in ``horovod_build_env``; the framework's NVIDIA NCCL wheel in the venv
    (``wheel_dir``: the NCCL every training process loads; the role lays it out as a home under ``key_dir``); the
    NCCL the nccl role installed (``installed``: its fact gpucluster_nccl); else the system's, found by Horovod's
    CMake search. ``home`` is the directory whose nccl.h the build compiles against ('' for the search), ``env`` the
    variables the build process gets on top of the build variables."""
    env = dict(build_env or {})
    if nccl_home:
        return {"source": "horovod_nccl_home", "home": nccl_home, "env": {}, "reason": f"horovod_nccl_home {nccl_home}"}
    if "HOROVOD_NCCL_INCLUDE" in env or "HOROVOD_NCCL_HOME" in env:
        given = env.get("HOROVOD_NCCL_HOME", "")
        return {"source": "horovod_build_env", "home": given, "env": {}, "reason": "horovod_build_env names NCCL"}
    if wheel_dir:
        home = f"{key_dir.rstrip('/')}/nccl"
        return {
            "source": "framework wheel",
            "home": home,
            "env": {"HOROVOD_NCCL_HOME": home},
            "reason": f"the framework's NVIDIA NCCL wheel ({wheel_dir}), the NCCL training processes load",
        }
    home = str((installed or {}).get("home") or "")
    if home:
        version = (installed or {}).get("version") or "?"
        return {
            "source": "nccl role",
            "home": home,
            "env": {"HOROVOD_NCCL_HOME": home},
            "reason": f"NCCL {version} the nccl role installed ({(installed or {}).get('method')}, {home})",
        }
    return {"source": "system", "home": "", "env": {}, "reason": "the system's NCCL (Horovod's CMake search)"}
