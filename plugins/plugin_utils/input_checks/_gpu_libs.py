# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks the cuda, cudnn and nccl roles share: the host's OS id, URLs, checksums, the GPU-less host warning."""

from __future__ import annotations

import re
from typing import Iterator

from ._base import WARNING, Check, Context, Finding

_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")


def os_id(ctx: Context) -> str:
    """The engine's OS id of the host ('' when the facts are not known). Ubuntu LTS releases are <major>.04."""
    dist, major = ctx.distribution.lower(), ctx.distribution_major_version
    if not dist or not major:
        return ""
    if dist == "ubuntu":
        return f"ubuntu{major}.04"
    if dist in ("redhat", "rocky", "almalinux", "centos", "oraclelinux"):
        return f"rhel{major}"
    return f"{dist}{major}"


def apt_only(role: str, methods: tuple) -> Check:
    """Package methods the role installs with apt: refused on hosts of another family."""
    name = f"{role}_install_method"

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        method = values[name]
        if method in methods and ctx.os_family and ctx.os_family != "Debian":
            yield Finding(
                name,
                method,
                f"the role installs the {method} method with apt; {ctx.host} is {ctx.distribution} ({ctx.os_family})",
                "a method without packages (pip, redist) on this host",
            )

    return Check((name,), f"the {', '.join(methods)} method(s) on apt (Debian-family) hosts only", func)


def repo_key(role: str) -> Check:
    """The repo method needs the signing key's sha256."""
    method, sha = f"{role}_install_method", f"{role}_repo_key_sha256"

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        if values[method] == "repo" and not _SHA256.match(values[sha] or ""):
            yield Finding(
                sha,
                values[sha],
                "the repo method needs the sha256 of NVIDIA's repository signing key",
                "64 hex digits (sha256sum of the key file, e.g. 3bf863cc.pub)",
            )

    return Check((method, sha), "the repo method has the signing key's sha256 (64 hex digits)", func)


def url(*names: str) -> Check:
    """An http(s) URL, or empty."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name in names:
            if name in values and values[name] and not re.match(r"^https?://\S+$", str(values[name])):
                yield Finding(name, values[name], "not an http(s) URL", "https://... or empty")

    return Check(names, "an http(s) URL or empty", func)


def sha256(*names: str) -> Check:
    """A sha256 (64 hex digits), or empty: a download pinned by its checksum when the user knows it."""

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        for name in names:
            if values[name] and not re.match(r"^[0-9a-fA-F]{64}$", str(values[name])):
                yield Finding(name, values[name], "not a sha256", "64 hex digits, or empty")

    return Check(names, "the manifest's sha256, when given, is 64 hex digits", func)


def no_gpu(role: str) -> Check:
    """Warns, when the user set an input of a GPU library role, that the role skips a host without a GPU."""
    force = f"{role}_force"

    def func(values: dict, ctx: Context) -> Iterator[Finding]:
        mine = sorted(n for n in ctx.user_set if n.startswith(f"{role}_") and n != force)
        if ctx.has_gpu is False and not values[force] and mine:
            yield Finding(
                force,
                False,
                f"gpu_facts found no NVIDIA GPU on {ctx.host}: the {role} role skips it ({', '.join(mine)} unused)",
                f"{force}: true to install anyway (image builders, CI)",
                WARNING,
            )

    return Check(
        (force,),
        f"warns that {role} inputs set for a host without a GPU are unused unless {force}",
        func,
        level=WARNING,
    )


def for_gpu_hosts(role: str, checks: list) -> list:
    """The role's checks, muted on a host it skips (gpu_facts found no GPU and <role>_force is false): a CPU
    node of the cluster is not refused for inputs the role will not use there (no_gpu warns instead)."""
    force = f"{role}_force"

    def wrap(chk: Check) -> Check:
        def func(values: dict, ctx: Context) -> Iterator[Finding]:
            if ctx.has_gpu is False and not values.get(force):
                return
            yield from chk.func(values, ctx)

        return Check(chk.variables, chk.description, func, chk.level)

    return [wrap(chk) for chk in checks]
