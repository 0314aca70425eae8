# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The link a benchmark's bus bandwidths are held against: iperf3's IP path from the launcher to each node, and the
fabric's port rate where NCCL moved the data over the fabric. Pure Python."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional

from .errors import BenchmarkError


def parse_iperf3(data: Any, host: str = "?") -> float:
    """Bits per second received from ``iperf3 -J`` output (str or dict)."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise BenchmarkError(f"iperf3 output for {host} is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BenchmarkError(f"iperf3 output for {host} is not a JSON object")
    if data.get("error"):
        raise BenchmarkError("iperf3 to {} failed: {}".format(host, data["error"]))
    end = data.get("end") or {}
    for key in ("sum_received", "sum_sent", "sum"):
        bps = (end.get(key) or {}).get("bits_per_second")
        if bps:
            return float(bps)
    raise BenchmarkError(f"iperf3 output for {host} has no end.sum_received.bits_per_second")


def links(link: Optional[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """``{host: iperf3 -J output}`` -> each host's received rate, in host order."""
    out = []
    for host, data in sorted((link or {}).items()):
        bps = parse_iperf3(data, host)
        out.append({"host": host, "bits_per_second": bps, "bytes_per_second": bps / 8.0})
    return out


def link_limit(ip_bps: Optional[float], transport: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """What the run's bus bandwidth is held against (the report's "Horovod / link"): the fabric's port rate (the
    slowest usable port of the run's nodes, ``transport.fabric_rate_gbps``) when NCCL moved the data between the nodes
    over the fabric (NET/IB), else the IP path iperf3 measured (slowest node): a run over sockets or through Gloo/MPI on
    TCP never reaches the fabric's rate, and iperf3 cannot see the fabric. Both figures are kept."""
    t = transport or {}
    rate = t.get("fabric_rate_gbps")
    fabric_bps = float(rate) * 1e9 / 8.0 if rate else None
    on_fabric = bool(fabric_bps) and t.get("inter_node") == "IB"
    return {
        "link_Bps": fabric_bps if on_fabric else ip_bps,
        "link_source": "fabric" if on_fabric else ("iperf3" if ip_bps else None),
        "ip_link_Bps": ip_bps,
        "fabric_link_Bps": fabric_bps,
    }
