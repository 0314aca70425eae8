# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host's RDMA fabric from sysfs (/sys/class/infiniband), for the module gpucluster.horovod.fabric_facts.

Layout read (the kernel's Documentation/ABI/stable/sysfs-class-infiniband): per device ``node_type``, ``hca_type``,
``fw_ver``, ``board_id``, ``device/numa_node`` and ``device/net/<netdev>``; per port ``ports/<n>/state``
(``4: ACTIVE``), ``phys_state`` (``5: LinkUp``), ``rate`` (``200 Gb/sec (4X HDR)``), ``link_layer`` (``InfiniBand``
or ``Ethernet``), ``gids/<i>``, ``gid_attrs/types/<i>`` (``RoCE v2``) and ``gid_attrs/ndevs/<i>``. Reading is
separated from judging: ``read_tree`` turns a tree (the real one or a fixture under another root) into plain data,
``summarize`` says which ports NCCL can use. No Ansible imports; unit-tested on fixture trees.
"""

from __future__ import annotations

import os
import re

SYSFS = "sys/class/infiniband"
_ZERO_GID = re.compile(r"^[0:]+$")
_IPV4_MAPPED = re.compile(r"^0000:0000:0000:0000:0000:ffff:[0-9a-f]{4}:[0-9a-f]{4}$")


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _listdir(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _numbered(text):
    """``4: ACTIVE`` -> (4, 'ACTIVE'); ``''`` -> (None, '')."""
    match = re.match(r"^\s*(\d+)\s*:\s*(.*)$", text)
    if not match:
        return None, text.strip()
    return int(match.group(1)), match.group(2).strip()


def parse_rate(text):
    """``200 Gb/sec (4X HDR)`` -> 200.0; ``2.5 Gb/sec (1X SDR)`` -> 2.5; unknown -> None."""
    match = re.match(r"^\s*([\d.]+)\s*Gb/sec", text or "")
    return float(match.group(1)) if match else None


def _gids(port_dir):
    """The port's non-zero GIDs: index, address, type (``RoCE v2``, ``IB/RoCE v1``, '' on InfiniBand) and netdev."""
    found = []
    for name in _listdir(os.path.join(port_dir, "gids")):
        if not name.isdigit():
            continue
        gid = _read(os.path.join(port_dir, "gids", name)).lower()
        if not gid or _ZERO_GID.match(gid):
            continue
        found.append(
            {
                "index": int(name),
                "gid": gid,
                "type": _read(os.path.join(port_dir, "gid_attrs", "types", name)),
                "netdev": _read(os.path.join(port_dir, "gid_attrs", "ndevs", name)),
            }
        )
    return sorted(found, key=lambda g: g["index"])


def read_port(port_dir, number):
    state_code, state = _numbered(_read(os.path.join(port_dir, "state")))
    phys_code, phys_state = _numbered(_read(os.path.join(port_dir, "phys_state")))
    rate_text = _read(os.path.join(port_dir, "rate"))
    return {
        "port": number,
        "state": state,
        "state_code": state_code,
        "phys_state": phys_state,
        "phys_state_code": phys_code,
        "rate": rate_text,
        "rate_gbps": parse_rate(rate_text),
        "link_layer": _read(os.path.join(port_dir, "link_layer")),
        "gids": _gids(port_dir),
    }


def read_tree(root="/"):
    """Every RDMA device under ``<root>/sys/class/infiniband`` with its ports ([] when there is none)."""
    base = os.path.join(root, SYSFS)
    devices = []
    for name in _listdir(base):
        if name.startswith("."):
            continue
        dev = os.path.join(base, name)
        numa = _read(os.path.join(dev, "device", "numa_node"))
        ports = []
        for port in _listdir(os.path.join(dev, "ports")):
            if port.isdigit():
                ports.append(read_port(os.path.join(dev, "ports", port), int(port)))
        devices.append(
            {
                "name": name,
                "node_type": _numbered(_read(os.path.join(dev, "node_type")))[1],
                "hca_type": _read(os.path.join(dev, "hca_type")),
                "fw_ver": _read(os.path.join(dev, "fw_ver")),
                "board_id": _read(os.path.join(dev, "board_id")),
                "numa_node": int(numa) if re.fullmatch(r"-?\d+", numa) else None,
                "netdevs": _listdir(os.path.join(dev, "device", "net")),
                "ports": ports,
            }
        )
    return devices


def roce_v2_gid(port):
    """The GID index NCCL should use on a RoCE port: the first RoCE v2 GID of an IPv4 address (NCCL_IB_GID_INDEX),
    else the first RoCE v2 GID; None when the port has none."""
    v2 = [g for g in port["gids"] if g["type"].lower() == "roce v2"]
    ipv4 = [g for g in v2 if _IPV4_MAPPED.match(g["gid"])]
    chosen = (ipv4 or v2 or [None])[0]
    return chosen["index"] if chosen else None


def port_verdict(port):
    """(usable, why not): an InfiniBand port must be ACTIVE and LinkUp; a RoCE port also needs a RoCE v2 GID."""
    if port["state_code"] != 4:
        return False, f"state {port['state'] or 'unknown'}"
    if port["phys_state_code"] not in (None, 5):
        return False, f"physical state {port['phys_state']}"
    if port["link_layer"] == "Ethernet" and roce_v2_gid(port) is None:
        return False, "Ethernet port without a RoCE v2 GID (no IP address on its netdev?)"
    if port["link_layer"] not in ("InfiniBand", "Ethernet"):
        return False, f"link layer {port['link_layer'] or 'unknown'}"
    return True, ""


def summarize(devices):
    """What NCCL can use on this host: kind (none, infiniband, roce, or mixed when both are up), the usable ports as
    ``<device>:<port>`` (NCCL_IB_HCA), their rates, the RoCE GID index, and each other port with why it is not."""
    usable, unusable, layers, rates, gid_indexes = [], [], set(), [], set()
    for device in devices:
        for port in device["ports"]:
            name = f"{device['name']}:{port['port']}"
            ok, why = port_verdict(port)
            if not ok:
                unusable.append({"port": name, "reason": why})
                continue
            usable.append(name)
            layers.add(port["link_layer"])
            rates.append(port["rate_gbps"])
            if port["link_layer"] == "Ethernet":
                gid_indexes.add(roce_v2_gid(port))
    if not layers:
        kind = "none"
    elif len(layers) > 1:
        kind = "mixed"
    else:
        kind = "infiniband" if "InfiniBand" in layers else "roce"
    return {
        "kind": kind,
        "ports": usable,
        "port_count": len(usable),
        "rates_gbps": rates,
        "rate_gbps": min(r for r in rates if r is not None) if any(r is not None for r in rates) else None,
        # NCCL_IB_GID_INDEX is one number for all ports: set only when every RoCE port has the same one.
        "gid_index": next(iter(gid_indexes)) if len(gid_indexes) == 1 else None,
        "gid_indexes": sorted(gid_indexes),
        "unusable": unusable,
    }


def parse_ibv_devinfo_list(text):
    """``ibv_devinfo -l`` output -> device names (its first line counts them: ``2 HCAs found:``)."""
    names = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if line and not re.match(r"^\d+ HCAs? found:?$", line):
            names.append(line)
    return names
