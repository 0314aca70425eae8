# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the horovod_container role: the containers' sshd port (not the hosts' own sshd), the training
user, image and container names Docker accepts, bind mounts of the form host:container[:ro|rw], absolute paths."""

from __future__ import annotations

from ._base import (
    WARNING,
    Finding,
    absolute_path,
    check,
    inventory_host,
    matches,
    running_jobs,
    set_by_user,
    tcp_port,
    training_user,
)

# Docker's reference grammar, simplified: [registry[:port]/]path[/path...] in lower case; a reference may add a tag
# and a digest.
_IMAGE = r"(?:[a-zA-Z0-9.-]+(?::\d+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
_REFERENCE = r"[^\s:@]+(?::\d+)?(?:/[^\s:@]+)*(?::[\w][\w.-]{0,127})?(?:@sha256:[0-9a-f]{64})?"
_CONTAINER = r"[a-zA-Z0-9][a-zA-Z0-9_.-]+"

_image = matches(
    "horovod_container_image",
    _IMAGE,
    "a repository name Docker accepts, without a tag (the role tags it)",
    "not a Docker repository name without tag (lower case; the role adds the tag)",
    "e.g. gpucluster/horovod-train or registry.example:5000/team/horovod",
)
_base = matches(
    "horovod_container_base_image",
    _REFERENCE,
    "an image reference (name[:tag][@sha256:digest])",
    "not an image reference",
    "e.g. debian:12 or ubuntu:24.04",
)
_memlock = matches(
    "horovod_container_rdma_memlock",
    r"unlimited|[1-9][0-9]*",
    "unlimited or a number of bytes",
    "neither unlimited nor a number of bytes",
    "unlimited (NCCL's verbs transport wants it), or e.g. 8388608 where the engine may not raise the limit",
)


@check(
    "horovod_container_rdma_memlock",
    "horovod_container_rdma",
    description="warns when horovod_container_rdma_memlock is set while horovod_container_rdma is never",
    level=WARNING,
)
def _memlock_without_rdma(values, ctx):
    name = "horovod_container_rdma_memlock"
    if values["horovod_container_rdma"] == "never" and set_by_user(ctx, name):
        yield Finding(
            name,
            values[name],
            f"not used on {ctx.host}: horovod_container_rdma is never, so the containers get no fabric and no "
            "memlock limit",
            f"horovod_container_rdma: auto or always, or drop {name}",
            WARNING,
        )


_name = matches(
    "horovod_container_name",
    _CONTAINER,
    "a container name Docker accepts",
    "not a container name",
    "letters, digits, _ . - (2 or more)",
)


@check("horovod_container_ssh_port", description="the containers' sshd port is not 22 (the hosts' sshd)")
def _port_not_hosts(values, ctx):
    port = values["horovod_container_ssh_port"]
    if port == 22:
        yield Finding(
            "horovod_container_ssh_port",
            port,
            "the containers share the host network, so their sshd cannot listen where the host's sshd does",
            "another free port, e.g. 12345 (Horovod's documentation uses it)",
        )


@check("horovod_container_volumes", description="bind mounts as /host/path:/container/path[:ro|rw]")
def _volumes(values, ctx):
    for volume in values["horovod_container_volumes"] or []:
        parts = str(volume).split(":")
        if not (
            len(parts) in (2, 3)
            and all(p.startswith("/") for p in parts[:2])
            and (len(parts) == 2 or parts[2] in ("ro", "rw"))
        ):
            yield Finding(
                "horovod_container_volumes", volume, "not a bind mount", "/host/path:/container/path or ...:ro"
            )


@check("horovod_container_copy_paths", description="absolute paths, not / itself")
def _copy_paths(values, ctx):
    for path in values["horovod_container_copy_paths"] or []:
        if not str(path).startswith("/") or str(path).rstrip("/") == "":
            yield Finding(
                "horovod_container_copy_paths", path, "not an absolute path below /", "e.g. /opt/openmpi-4.1.6"
            )


CHECKS = [
    tcp_port("horovod_container_ssh_port"),
    _port_not_hosts,
    training_user("horovod_container_user"),
    _image,
    _base,
    _memlock,
    _memlock_without_rdma,
    _name,
    _volumes,
    inventory_host("horovod_container_builder", optional=True),
    absolute_path("horovod_container_venv", "horovod_container_image_cache_dir", "horovod_container_node_dir"),
    _copy_paths,
    absolute_path("horovod_container_base_image_archive", optional=True),
    *running_jobs("horovod_container"),
]
