# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the training containers (roles horovod_container and horovod_benchmark).

- known_hosts_at_port: the cluster's known_hosts lines with every name moved to another port. The containers' sshd
  presents the node's own host keys on that port, and OpenSSH looks a non-22 port up as ``[name]:port``.
- exec_argv: ``docker exec`` around a command, as the training user, in a working directory, with its environment
  (the environment of ``docker exec`` itself does not reach the process in the container).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, List, Mapping, Sequence

_BRACKETED = re.compile(r"^\[(?P<name>[^\]]+)\]:(?P<port>\d+)$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _port(value: Any) -> int:
    try:
        port = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"port {value!r} is not a number") from None
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} is outside 1..65535")
    return port


def _at_port(name: str, port: int) -> str:
    match = _BRACKETED.match(name)
    bare = match.group("name") if match else name
    return bare if port == 22 else f"[{bare}]:{port}"


def known_hosts_at_port(lines: Iterable[str], port: Any) -> List[str]:
    """Every ``names keytype key [comment]`` line with each name at ``port``; comments and blank lines dropped,
    hashed names (``|1|...``, which cannot be moved to another port) and markers (``@cert-authority``) refused."""
    port = _port(port)
    out: List[str] = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            raise ValueError(f"known_hosts line with a marker is not supported: {line.split()[0]}")
        fields = line.split()
        if len(fields) < 3:
            raise ValueError(f"known_hosts line has no key: {line!r}")
        names = fields[0].split(",")
        if any(n.startswith("|") for n in names):
            raise ValueError("hashed known_hosts names cannot be moved to another port (ssh-keygen -H was used)")
        moved = ",".join(dict.fromkeys(_at_port(n, port) for n in names))
        out.append(" ".join([moved, *fields[1:]]))
    return sorted(dict.fromkeys(out))


def exec_argv(
    argv: Sequence[Any],
    container: str,
    user: str = "",
    workdir: str = "",
    env: Mapping[str, Any] | None = None,
) -> List[str]:
    """``docker exec [-u user] [-w dir] [-e K=V ...] container argv...``; no container: argv unchanged."""
    argv = [str(a) for a in argv]
    if not container:
        return argv
    out = ["docker", "exec"]
    if user:
        out += ["-u", str(user)]
    if workdir:
        out += ["-w", str(workdir)]
    for key, value in sorted((env or {}).items()):
        if not _ENV_NAME.match(str(key)):
            raise ValueError(f"environment variable name {key!r} is not valid")
        out += ["-e", f"{key}={value}"]
    return [*out, str(container), *argv]


RDMA_MODES = ("auto", "always", "never")


def rdma_options(
    fabric: Mapping[str, Any], mode: str, device_dir_exists: bool, host: str = "", memlock: Any = "unlimited"
) -> dict:
    """What a training container needs for NCCL's InfiniBand/RoCE transport: ``{"enabled", "devices",
    "capabilities", "ulimits", "problem"}``.

    ``auto`` enables it where the first play found usable InfiniBand or RoCE ports (``fabric``: the host's
    gpucluster_fabric), ``always`` everywhere, ``never`` nowhere. Enabled: the verbs devices (``/dev/infiniband``),
    ``IPC_LOCK`` and an unlimited memlock (RDMA pins the buffers it registers; no ``--privileged``). ``problem``
    says why it cannot be (the ports are there but ``/dev/infiniband`` is not: ib_uverbs is not loaded). ``memlock``
    is the containers' locked-memory limit, soft and hard: ``unlimited`` (what NCCL's verbs transport wants) or bytes,
    for an engine that may not raise it (a rootless or nested dockerd without CAP_SYS_RESOURCE)."""
    if mode not in RDMA_MODES:
        raise ValueError(f"RDMA mode {mode!r} unknown; valid: {', '.join(RDMA_MODES)}")
    limit = memlock_limit(memlock)
    ports = int((fabric or {}).get("port_count") or 0)
    enabled = mode == "always" or (mode == "auto" and ports > 0)
    if not enabled:
        return {"enabled": False, "devices": [], "capabilities": [], "ulimits": [], "problem": ""}
    problem = ""
    if not device_dir_exists:
        why = f"{ports} usable InfiniBand/RoCE port(s) were found" if ports else "horovod_container_rdma is always"
        problem = (
            f"{host or 'this host'}: {why}, but /dev/infiniband does not exist (the kernel's ib_uverbs module is not "
            "loaded: modprobe ib_uverbs, or enable rdma-core's rdma-load-modules service); the container could not "
            "use the HCAs. Load it, or set horovod_container_rdma: never to run NCCL over TCP sockets."
        )
    return {
        "enabled": True,
        "devices": ["/dev/infiniband:/dev/infiniband"],
        "capabilities": ["IPC_LOCK"],
        "ulimits": [f"memlock:{limit}:{limit}"],
        "problem": problem,
    }


def memlock_limit(memlock: Any) -> int:
    """``unlimited`` -> -1 (Docker's word for it), a positive number of bytes -> itself; ValueError otherwise."""
    text = str(memlock).strip()
    if text == "unlimited":
        return -1
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ValueError(f"memlock {memlock!r} is neither 'unlimited' nor a positive number of bytes")
