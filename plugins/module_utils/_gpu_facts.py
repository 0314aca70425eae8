# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for GPU facts: lspci -nn (GPUs, NVSwitches), nvidia-smi, /proc/driver/nvidia/version, /proc/modules,
mokutil.

Pure functions on text so they are tested on captured outputs (tests/unit/fixtures/gpu_facts/).
Runs on managed nodes: standard library only, Python 3.6+ syntax.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

NVIDIA_VENDOR = "10de"
# PCI classes of GPUs: VGA compatible controller, 3D controller. NVSwitch bridges (0680) and audio (0403) are not GPUs.
GPU_CLASSES = ("0300", "0302")
SMI_FIELDS = ["index", "name", "uuid", "pci.bus_id", "driver_version", "memory.total", "compute_cap"]

_LSPCI = re.compile(
    r"^(?P<slot>\S+)\s+(?P<class_name>[^\[]+?)\s+\[(?P<class>[0-9a-f]{4})\]:\s+(?P<desc>.*?)\s+"
    r"\[(?P<vendor>[0-9a-f]{4}):(?P<device>[0-9a-f]{4})\](?:\s+\(rev (?P<rev>[0-9a-f]+)\))?\s*$",
    re.IGNORECASE,
)


def parse_lspci(text: str) -> List[Dict[str, Any]]:
    """NVIDIA GPUs in ``lspci -nn`` output: slot, pci_id, name (the bracketed marketing name when present)."""
    gpus = []
    for line in (text or "").splitlines():
        m = _LSPCI.match(line.strip())
        if not m or m.group("vendor").lower() != NVIDIA_VENDOR or m.group("class") not in GPU_CLASSES:
            continue
        desc = re.sub(r"^NVIDIA Corporation\s+", "", m.group("desc"))
        bracket = re.search(r"\[([^\]]+)\]\s*$", desc)
        name = bracket.group(1) if bracket else desc
        gpus.append(
            {
                "pci_slot": m.group("slot"),
                "pci_id": f"{m.group('vendor').lower()}:{m.group('device').lower()}",
                "name": name.strip(),
                "chip": desc.split(" [")[0].strip(),
                "source": "lspci",
            }
        )
    return gpus


# PCI class of NVSwitch devices ("Bridge", 0680); a host with them needs Fabric Manager.
NVSWITCH_CLASS = "0680"


def parse_lspci_nvswitches(text: str) -> List[Dict[str, Any]]:
    """NVIDIA NVSwitch bridges in ``lspci -nn`` output: slot, pci_id, name."""
    out = []
    for line in (text or "").splitlines():
        m = _LSPCI.match(line.strip())
        if not m or m.group("vendor").lower() != NVIDIA_VENDOR or m.group("class") != NVSWITCH_CLASS:
            continue
        desc = re.sub(r"^NVIDIA Corporation\s+", "", m.group("desc"))
        bracket = re.search(r"\[([^\]]+)\]\s*$", desc)
        out.append(
            {
                "pci_slot": m.group("slot"),
                "pci_id": f"{m.group('vendor').lower()}:{m.group('device').lower()}",
                "name": (bracket.group(1) if bracket else desc).strip(),
            }
        )
    return out


def smi_query_failed(text: str) -> bool:
    """nvidia-smi prints this when a field (compute_cap on drivers < 510) is unknown."""
    return "is not a valid field to query" in (text or "")


def parse_nvidia_smi_csv(text: str, fields: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    """``nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`` -> one dict per GPU."""
    fields = fields or SMI_FIELDS
    gpus = []
    for line in (text or "").splitlines():
        if not line.strip() or smi_query_failed(line):
            continue
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(fields):
            continue
        row = dict(zip(fields, values))
        gpu = {
            "index": _int(row.get("index")),
            "name": row.get("name"),
            "uuid": row.get("uuid"),
            "pci_bus_id": row.get("pci.bus_id"),
            "driver_version": row.get("driver_version"),
            "memory_mib": _int(row.get("memory.total")),
            "compute_cap": _na(row.get("compute_cap")),
            "source": "nvidia-smi",
        }
        gpus.append(gpu)
    return gpus


def parse_smi_cuda_version(text: str) -> Optional[str]:
    """The "CUDA Version: 12.2" of plain ``nvidia-smi`` (newest CUDA the driver supports)."""
    m = re.search(r"CUDA Version:\s*([0-9.]+)", text or "")
    return m.group(1) if m else None


def parse_smi_error(text: str) -> Dict[str, Any]:
    """What a failed ``nvidia-smi`` said: its first line, whether it is the loaded-module/userspace mismatch, and the
    userspace (NVML library) version newer drivers print with it::

        Failed to initialize NVML: Driver/library version mismatch
        NVML library version: 580.95

    -> ``{"error": "Failed to initialize NVML: Driver/library version mismatch", "mismatch": True,
    "library_version": "580.95"}``. Empty text -> no error.
    """
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return {"error": None, "mismatch": False, "library_version": None}
    m = re.search(r"NVML library version:\s*(\d+\.\d+(?:\.\d+)?)", text)
    return {
        "error": lines[0],
        "mismatch": "version mismatch" in text.lower(),
        "library_version": m.group(1) if m else None,
    }


def parse_proc_driver_version(text: str) -> Dict[str, Optional[str]]:
    """/proc/driver/nvidia/version -> driver version and kernel module flavour (open or proprietary)."""
    m = re.search(r"NVRM version:\s*(?P<desc>.*?Kernel Module(?: for \S+)?)\s+(?P<ver>\d+\.\d+(?:\.\d+)?)", text or "")
    if not m:
        return {"driver_version": None, "kernel_module": None}
    flavour = "open" if "Open Kernel Module" in m.group("desc") else "proprietary"
    return {"driver_version": m.group("ver"), "kernel_module": flavour}


def module_loaded(proc_modules: str, name: str) -> bool:
    """Whether a kernel module appears in /proc/modules."""
    return any(line.split(" ", 1)[0] == name for line in (proc_modules or "").splitlines())


def parse_mokutil_sb_state(text: str) -> Optional[bool]:
    """``mokutil --sb-state`` -> True (enabled), False (disabled) or None (no EFI / unknown)."""
    t = (text or "").lower()
    if "secureboot enabled" in t:
        return True
    if "secureboot disabled" in t:
        return False
    return None


def merge(lspci: List[Dict[str, Any]], smi: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """nvidia-smi rows when present (richer), matched to lspci rows by PCI slot for the PCI id; else lspci rows."""
    if not smi:
        return [dict(g, index=i) for i, g in enumerate(lspci)]
    by_slot = {
        g["pci_slot"].lower().split(":", 1)[-1] if g["pci_slot"].count(":") > 1 else g["pci_slot"].lower(): g
        for g in lspci
    }
    out = []
    for gpu in smi:
        row = dict(gpu)
        bus = (gpu.get("pci_bus_id") or "").lower()
        short = ":".join(bus.split(":")[-2:]) if bus else ""
        match = by_slot.get(short)
        row["pci_id"] = match["pci_id"] if match else None
        out.append(row)
    return out


def _int(value: Optional[str]) -> Optional[int]:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _na(value: Optional[str]) -> Optional[str]:
    if value is None or value.strip() in ("", "[N/A]", "N/A", "[Not Supported]", "Not Supported"):
        return None
    return value.strip()
