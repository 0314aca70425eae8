# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the nvidia_container_toolkit role: the repository key's sha256 (no default: a host that gets the
toolkit must name it), the repository URL and channel, an exact Debian version, the packages, the CDI spec path. On a
host the role skips (gpu_facts found no GPU, no nvidia_container_toolkit_force) only a warning that inputs set for
it are unused."""

from __future__ import annotations

import re

from ._base import Finding, absolute_path, check, matches
from ._gpu_libs import for_gpu_hosts, no_gpu, url

# A Debian version without epoch tricks NVIDIA does not use: 1.17.8-1, 1.18.0~rc.1-1.
_VERSION = r"\d+(\.\d+){2}([~+.][0-9A-Za-z.~+]+)?-[0-9A-Za-z.~+]+"
_PACKAGE = re.compile(r"^[a-z0-9][a-z0-9+.-]+$")

_key = matches(
    "nvidia_container_toolkit_repo_key_sha256",
    r"[0-9a-fA-F]{64}",
    "the repository key's sha256 (64 hex digits); required",
    "NVIDIA's repository key is installed only with its checksum (the role has no default that could go stale)",
    "64 hex digits: sha256sum of <nvidia_container_toolkit_repo_base_url>/gpgkey",
)
_version = matches(
    "nvidia_container_toolkit_version",
    _VERSION,
    "an exact Debian package version of the toolkit (1.17.8-1), or empty",
    "not an exact package version of the toolkit",
    "the full Debian version such as 1.17.8-1 (apt-cache policy nvidia-container-toolkit), or empty",
    optional=True,
)
_channel = matches(
    "nvidia_container_toolkit_repo_channel",
    r"[a-z0-9][a-z0-9._-]*",
    "a channel name of the repository (stable, experimental)",
    "not a channel of the repository",
    "stable or experimental",
)


@check(
    "nvidia_container_toolkit_packages",
    description="package names, nvidia-container-toolkit first (it is the version probe)",
)
def _packages(values, ctx):
    packages = values["nvidia_container_toolkit_packages"] or []
    bad = [p for p in packages if not _PACKAGE.match(str(p))]
    if bad:
        yield Finding("nvidia_container_toolkit_packages", bad, "not Debian package names", "e.g. libnvidia-container1")
    elif not packages or packages[0] != "nvidia-container-toolkit":
        yield Finding(
            "nvidia_container_toolkit_packages",
            packages,
            "the list must start with nvidia-container-toolkit, whose version the others are pinned at",
            "nvidia-container-toolkit, then the packages released with it",
        )


CHECKS = [
    *for_gpu_hosts(
        "nvidia_container_toolkit",
        [
            _key,
            _version,
            _channel,
            _packages,
            url("nvidia_container_toolkit_repo_base_url"),
            absolute_path("nvidia_container_toolkit_cdi_spec"),
        ],
    ),
    no_gpu("nvidia_container_toolkit"),
]
