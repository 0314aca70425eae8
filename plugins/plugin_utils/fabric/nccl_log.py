# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which transports NCCL used, read from its INFO log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH).

Lines read: ``NCCL INFO Using network IB`` (or ``Socket``), ``NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ...``,
``NET/Socket : Using [0]eth0:10.0.0.1<0>``, and the channel lines ``Channel 00/0 : 0[0] -> 1[0] [send] via
NET/IB/0/GDRDMA`` (``via P2P/IPC``, ``via P2P/CUMEM``, ``via SHM/direct/direct``, ``via NET/Socket/0``). NCCL falls
back to sockets without an error when it finds no usable HCA; the benchmark refuses to call such a run valid on a
cluster whose fabric says InfiniBand or RoCE is up (fabric_use_problem).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

_NETWORK = re.compile(r"NCCL INFO Using network (\S+)")
_NET_DEVICES = re.compile(r"NCCL INFO NET/(IB|Socket)\s*:\s*Using (.*?)(?:\s*;\s*OOB.*)?$")
_VIA = re.compile(r"\bvia (NET/[A-Za-z]+(?:/\d+)?(?:/GDRDMA)?|P2P/[A-Za-z]+(?:/read)?|SHM/\S+|COLLNET\S*|NVLS\S*)")


def nccl_transports(text: str) -> Dict[str, Any]:
    """``network`` (IB, Socket or None), ``net_devices`` (``mlx5_0:1/IB``, ``eth0:10.0.0.1<0>``), ``transports`` (the
    kinds the channels went through: NET/IB, NET/Socket, P2P, SHM, ...), ``gdrdma`` (a NET/IB channel with GPUDirect
    RDMA) and ``inter_node`` (the network transport the channels used between nodes: IB, Socket or None)."""
    network: Optional[str] = None
    devices: List[str] = []
    transports, gdr = set(), False
    for line in (text or "").splitlines():
        found = _NETWORK.search(line)
        if found:
            network = found.group(1)
            continue
        found = _NET_DEVICES.search(line)
        if found:
            for item in re.findall(r"\[\d+\](\S+)", found.group(2)):
                if item not in devices:
                    devices.append(item)
            continue
        for via in _VIA.findall(line):
            parts = via.split("/")
            transports.add("/".join(parts[:2]) if parts[0] == "NET" else parts[0])
            gdr = gdr or via.endswith("/GDRDMA")
    inter = "IB" if "NET/IB" in transports else ("Socket" if "NET/Socket" in transports else None)
    return {
        "network": network,
        "net_devices": devices,
        "transports": sorted(transports),
        "gdrdma": gdr,
        "inter_node": inter,
    }


def fabric_use_problem(fabric_kind: str, used: Dict[str, Any], *, nodes: int = 2) -> str:
    """Why a multi-node run must not count as valid ('' when it may): the fabric says InfiniBand or RoCE is up and
    NCCL moved data between nodes over sockets (or picked the socket network)."""
    if nodes < 2 or fabric_kind not in ("infiniband", "roce", "mixed"):
        return ""
    if used.get("inter_node") == "Socket" or (used.get("network") == "Socket" and used.get("inter_node") != "IB"):
        return (
            f"the fabric is {fabric_kind} with usable ports on every node, but NCCL moved data between the nodes over "
            "TCP sockets (NCCL INFO 'Using network Socket'): the HCAs were not usable to it (a missing verbs provider, "
            "NCCL_IB_DISABLE, a container without /dev/infiniband or IPC_LOCK); the run is 4-5x slower than the fabric"
        )
    return ""
