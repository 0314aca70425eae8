# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The horovod role's decisions about its Python environment (pure; the horovod_pip_sources, horovod_venv_state and
horovod_build_requirements filters use it): where pip takes packages from, what the environment still lacks, and
what a build needs besides the frameworks."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Sequence

from ..versions import vcmp
from .frameworks import satisfied

# Python packages every Horovod build needs in the environment (--no-build-isolation uses it as is)
BUILD_PYTHON_PACKAGES = ["setuptools", "wheel", "packaging", "pyyaml", "psutil", "cloudpickle"]
# cffi: a setup_requires of Horovod's setup.py when it builds for PyTorch (setuptools would otherwise fetch it)
PYTORCH_BUILD_PACKAGES = ["cffi>=1.4.0"]


def _names(value: Any) -> List[str]:
    """A string or a list of strings (either may be empty) as a list without empty entries."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [str(v) for v in items if v is not None and str(v) != ""]


def pip_sources(settings: Mapping[str, Any]) -> Dict[str, Any]:
    """pip's sources from the role's variables.

    ``settings``: ``no_index`` (bool), ``index_url``, ``extra_index_url``, ``find_links``, ``trusted_hosts`` (string or
    list), ``wheelhouse`` (the node's copy of horovod_wheelhouse, '' when there is none: a find-links directory too),
    ``framework_index_url`` (an extra index for the framework wheels, such as PyTorch's variant index).

    Returns ``args`` (pip's options), ``env`` (the same as pip's environment variables, for the pip that Horovod's
    setup.py starts itself: without them an air-gapped builder would ask the default index) and ``framework_args``
    (``args`` with the framework index; never with ``no_index``, where nothing but find-links directories counts).
    """
    no_index = bool(settings.get("no_index"))
    index_url = str(settings.get("index_url") or "")
    extra = _names(settings.get("extra_index_url"))
    find_links = _names(settings.get("find_links")) + _names(settings.get("wheelhouse"))
    trusted = _names(settings.get("trusted_hosts"))
    framework_index = str(settings.get("framework_index_url") or "")

    args: List[str] = []
    env: Dict[str, str] = {}
    if no_index:
        args.append("--no-index")
        env["PIP_NO_INDEX"] = "1"
    else:
        if index_url:
            args += ["--index-url", index_url]
            env["PIP_INDEX_URL"] = index_url
        for url in extra:
            args += ["--extra-index-url", url]
        if extra:
            env["PIP_EXTRA_INDEX_URL"] = " ".join(extra)
    for path in find_links:
        args += ["--find-links", path]
    if find_links:
        env["PIP_FIND_LINKS"] = " ".join(find_links)
    for host in trusted:
        args += ["--trusted-host", host]
    if trusted:
        env["PIP_TRUSTED_HOST"] = " ".join(trusted)
    framework_args = args + (["--extra-index-url", framework_index] if framework_index and not no_index else [])
    return {"args": args, "env": env, "framework_args": framework_args}


def venv_state(
    probe: Mapping[str, Any], plans: Sequence[Mapping[str, Any]], runtime_packages: Sequence[str], existing: bool
) -> Dict[str, Any]:
    """What a Horovod environment has and lacks, from the probe the role runs in it.

    ``probe``: the registered result of ``python -c <probe script> MARKER PKG...`` (stdout: ``{"marker": bool,
    "versions": {distribution: version or null}}``); a probe that failed or did not run (no environment yet) reads as
    an empty environment. ``plans``: the horovod_frameworks plans; ``runtime_packages``: what every environment gets
    besides the frameworks; ``existing``: horovod_venv_mode existing, where the role installs nothing but Horovod
    (the preflight refused an environment that lacks the rest).

    Returns ``wheel_installed`` (the marker of this build key's wheel), ``frameworks_missing`` and ``runtime_missing``
    (requirements not satisfied), ``missing`` (what the role installs besides Horovod) and ``complete``.
    """
    read: Mapping[str, Any] = {}
    if probe and probe.get("rc", 1) == 0 and probe.get("stdout"):
        try:
            read = json.loads(probe["stdout"])
        except ValueError:
            read = {}
    if not isinstance(read, Mapping):
        read = {}
    versions = read.get("versions") or {}
    wheel = bool(read.get("marker"))
    frameworks_missing = [p["requirement"] for p in plans if not satisfied(p, versions.get(p["distribution"]))]
    runtime_missing = [str(p) for p in runtime_packages if not versions.get(str(p))]
    missing = [] if existing else frameworks_missing + runtime_missing
    return {
        "wheel_installed": wheel,
        "frameworks_missing": frameworks_missing,
        "runtime_missing": runtime_missing,
        "missing": missing,
        "complete": wheel and not missing,
    }


def build_requirements(
    plans: Sequence[Mapping[str, Any]], patches: Sequence[str], fixes: Sequence[str] = ()
) -> Dict[str, List[str]]:
    """What a Horovod build needs besides the frameworks.

    ``plans``: the horovod_frameworks plans (the resolved framework first); ``patches``: the patches the stack
    resolved (horovod_patches); ``fixes``: the role's fixes of bugs of this Horovod release, applied to every build of
    it (roles/horovod/vars/main.yml ``_horovod_fixes``). PyTorch >= 2.1 headers need C++17: an extra PyTorch adds the
    ``cxx17`` patch the stack resolved only for its framework. Returns ``python_packages`` and ``patches`` (the
    stack's, then cxx17 for an extra PyTorch, then the fixes; each once).
    """
    patches = [str(p) for p in patches]
    extra_torch = [p for p in plans[1:] if p.get("name") == "pytorch" and vcmp(p.get("version", "0"), "2.1") >= 0]
    if extra_torch and "cxx17" not in patches:
        patches.append("cxx17")
    patches += [str(f) for f in fixes if str(f) not in patches]
    packages = list(BUILD_PYTHON_PACKAGES)
    if any(p.get("name") == "pytorch" for p in plans):
        packages += PYTORCH_BUILD_PACKAGES
    return {"python_packages": packages, "patches": patches}


def env_access(env: Mapping[str, Any], existing: bool, venv: str, held_helper: str) -> Dict[str, Any]:
    """How the role runs pip and Python in the environment.

    A venv the role made is root's: pip runs as ``<venv>/bin/python -m pip install``. An existing environment
    (``existing``; ``env``: the python_env of python_env_facts) is its owner's: pip runs as that owner (root leaves no
    files of its own in somebody else's environment) through ``held_helper`` (the install that holds every installed
    distribution), keeps no cache (the cache would be root's), and root's Python writes no byte-code into it.
    Returns ``owner``, ``runas`` (the runuser prefix, empty for root), ``pip_install`` (argv without the packages),
    ``pip_env`` and ``python_env`` (environment variables).
    """
    owner = str((env or {}).get("owner") or "root") if existing else "root"
    runas = ["runuser", "-u", owner, "--"] if owner != "root" else []
    python = f"{venv}/bin/python"
    pip_install = [*runas, python, held_helper] if existing else [python, "-m", "pip", "install"]
    pip_env = {"PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    if runas:
        pip_env["PIP_NO_CACHE_DIR"] = "1"
    return {
        "owner": owner,
        "runas": runas,
        "pip_install": pip_install,
        "pip_env": pip_env,
        "python_env": {"PYTHONDONTWRITEBYTECODE": "1"} if existing else {},
    }
