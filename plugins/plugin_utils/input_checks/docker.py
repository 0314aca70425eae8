# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the docker role: the method exists on the OS, the repo method's key checksum, a version only for
the repo method, daemon.json settings dockerd accepts, user names, mirror URLs."""

from __future__ import annotations

import re

from ._base import Finding, absolute_path, check, user_name_problem

_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")


@check("docker_install_method", description="a method the role implements on this OS (Debian family: distro, repo)")
def _method(values, ctx):
    methods = ctx.role_vars.get("_docker_methods")
    method = values["docker_install_method"]
    if ctx.os_family and methods is not None and method not in methods:
        yield Finding(
            "docker_install_method",
            method,
            f"not available on {ctx.distribution} {ctx.distribution_major_version}".strip(),
            ", ".join(methods) or "none: the role installs Docker on the Debian family",
        )


@check(
    "docker_install_method",
    "docker_repo_key_sha256",
    "docker_version",
    "docker_upgrade",
    description="the repo method has the key's sha256; docker_version and docker_upgrade only with the repo method",
)
def _repo(values, ctx):
    method = values["docker_install_method"]
    if method == "repo" and not _SHA256.match(values["docker_repo_key_sha256"] or ""):
        yield Finding(
            "docker_repo_key_sha256",
            values["docker_repo_key_sha256"],
            "the repo method installs Docker's repository key only with its checksum",
            "64 hex digits (sha256sum of the key file, <base>/<distribution>/gpg)",
        )
    if method != "repo" and values["docker_version"]:
        yield Finding(
            "docker_version",
            values["docker_version"],
            "an exact version applies to the repo method only (the distribution ships one docker.io per release)",
            "empty, or docker_install_method: repo",
        )


@check("docker_registry_mirrors", description="registry mirrors are http(s) URLs")
def _mirrors(values, ctx):
    for mirror in values["docker_registry_mirrors"] or []:
        if not re.match(r"^https?://[^\s/]+(/\S*)?$", str(mirror)):
            yield Finding("docker_registry_mirrors", mirror, "not a registry mirror URL", "http(s)://host[:port]")


@check("docker_log_opts", description="log options are flat key: value pairs (dockerd takes strings)")
def _log_opts(values, ctx):
    for key, value in (values["docker_log_opts"] or {}).items():
        if isinstance(value, (dict, list)):
            yield Finding(
                "docker_log_opts", {key: value}, "a log option's value must be a string or number", "e.g. max-size: 10m"
            )


@check("docker_users", description="existing user names (the role never creates users), not root")
def _users(values, ctx):
    for name in values["docker_users"] or []:
        problem = user_name_problem(name)
        if problem:
            yield Finding("docker_users", name, problem, "a lowercase user name that is not root")


CHECKS = [_method, _repo, _mirrors, _log_opts, _users, absolute_path("docker_data_root", optional=True)]
