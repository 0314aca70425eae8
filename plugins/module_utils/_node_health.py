# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Node health: parsers for ``nvidia-smi -q -x`` (XML), the kernel log's XID lines, ``nvidia-smi nvlink -s`` and
``dcgmi diag -j`` (JSON), and the checks judged from them.

Pure functions on text, tested on fixtures (tests/unit/fixtures/node_health/README.md says where each comes from).
Each check is ``{name, status, value, expected, reason}`` with ``status`` one of ``ok``, ``warn``, ``fail``; a check
about one GPU names it by PCI bus id in ``gpu``.
Runs on managed nodes: standard library only, Python 3.6+ syntax.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional

from ansible_collections.gpucluster.horovod.plugins.module_utils._gpu_facts import _na

OK, WARN, FAIL = "ok", "warn", "fail"
STATUSES = (OK, WARN, FAIL)

# XID classes (NVIDIA's "XID Errors" catalog, r580 and the GPU debug guidelines): the ones that mean the hardware or
# its memory needs attention (a reset, a drain, an RMA) fail the node; the others are caused by applications or the
# driver and are reported as information. Unknown XIDs are information too, named as unknown.
XID_HARDWARE = {
    48: "double-bit ECC error (DBE)",
    61: "internal micro-controller breakpoint/warning",
    62: "internal micro-controller halt",
    63: "ECC page retirement or row remapping recording event",
    64: "ECC page retirement or row remapper recording failure",
    74: "NVLink error",
    79: "GPU has fallen off the bus",
    92: "high single-bit ECC error rate",
    94: "contained ECC error",
    95: "uncontained ECC error",
    119: "GSP RPC timeout",
    120: "GSP error",
    121: "C2C link error",
    140: "unrecovered ECC error",
    154: "GPU recovery action changed (reset or reboot required)",
}
# Of those, the ones that only ask for attention (the driver handled the event): a warning, not a failure.
XID_HARDWARE_WARN = {63, 92}
XID_INFO = {
    13: "graphics engine exception",
    31: "GPU memory page fault",
    43: "GPU stopped processing",
    45: "preemptive cleanup, due to previous errors",
    68: "video processor exception",
    69: "graphics engine class error",
}

# NVRM: Xid (PCI:0000:3b:00): 79, pid=..., name=..., GPU has fallen off the bus.   (r470 and later)
# NVRM: Xid (0000:03:00): 13, 0001 00000000 ...                                     (older drivers)
_XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})\S*\):"
    r"\s*(?P<xid>\d+),?\s*(?P<detail>.*)$"
)
# NVIDIA's guidance for boards with page retirement (before A100): service the board at 60 retired pages.
RETIRED_PAGES_LIMIT = 60
# What the clocks check expects of the active clocks event reasons (idle and power capping are normal).
_NO_SLOWDOWN = "no hw_* reason, no sw_thermal_slowdown"


def _text(node: Optional[ET.Element], path: str) -> Optional[str]:
    """Text of the element at path, stripped; None when absent, empty or N/A (gpu_facts' rule for nvidia-smi)."""
    el = node.find(path) if node is not None else None
    return _na(el.text) if el is not None and el.text is not None else None


def _leading_int(value: Optional[str]) -> Optional[int]:
    """The number a value starts with ("16x", "37 C", "0"), or None."""
    if value is None:
        return None
    m = re.match(r"^\s*(-?\d+)", value)
    return int(m.group(1)) if m else None


def _yes(value: Optional[str]) -> Optional[bool]:
    if value is None:
        return None
    return value.strip().lower() in ("yes", "active", "enabled", "true")


def _sum_ints(values: List[Optional[int]]) -> Optional[int]:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def parse_smi_xml(text: str) -> Dict[str, Any]:
    """``nvidia-smi -q -x`` -> driver and CUDA versions, the GPU count and per GPU what the health checks read.

    Raises ValueError when the text is not nvidia-smi's XML.
    """
    try:
        root = ET.fromstring((text or "").strip())
    except ET.ParseError as exc:
        raise ValueError(f"not the XML of nvidia-smi -q -x: {exc}") from None
    if root.tag != "nvidia_smi_log":
        raise ValueError(f"not the XML of nvidia-smi -q -x: the root element is <{root.tag}>")
    gpus = []
    for gpu in root.findall("gpu"):
        ecc = gpu.find("ecc_errors")
        volatile = ecc.find("volatile") if ecc is not None else None
        aggregate = ecc.find("aggregate") if ecc is not None else None

        def _uncorrectable(node: Optional[ET.Element]) -> Optional[int]:
            # Hopper and later split SRAM parity/SECDED from DRAM; older XML has <single_bit>/<double_bit> totals.
            split = [
                _leading_int(_text(node, "sram_uncorrectable_parity")),
                _leading_int(_text(node, "sram_uncorrectable_secded")),
                _leading_int(_text(node, "sram_uncorrectable")),
                _leading_int(_text(node, "dram_uncorrectable")),
            ]
            total = _sum_ints(split)
            return total if total is not None else _leading_int(_text(node, "double_bit/total"))

        retired = gpu.find("retired_pages")
        remap = gpu.find("remapped_rows")
        reasons = gpu.find("clocks_event_reasons")
        if reasons is None:
            reasons = gpu.find("clocks_throttle_reasons")  # drivers before r535
        active_reasons = []
        if reasons is not None:
            for el in reasons:
                if (el.text or "").strip() == "Active":
                    active_reasons.append(re.sub(r"^clocks_(event|throttle)_reason_", "", el.tag))
        gpus.append(
            {
                "pci_bus_id": gpu.get("id"),
                "name": _text(gpu, "product_name"),
                "persistence_mode": _yes(_text(gpu, "persistence_mode")),
                "ecc_mode": _text(gpu, "ecc_mode/current_ecc"),
                "ecc_volatile_uncorrectable": _uncorrectable(volatile),
                "ecc_aggregate_uncorrectable": _uncorrectable(aggregate),
                "retired_pages_sbe": _leading_int(_text(retired, "multiple_single_bit_retirement/retired_count")),
                "retired_pages_dbe": _leading_int(_text(retired, "double_bit_retirement/retired_count")),
                "retired_pages_pending": _yes(_text(retired, "pending_retirement")),
                "remapped_rows_correctable": _leading_int(_text(remap, "remapped_row_corr")),
                "remapped_rows_uncorrectable": _leading_int(_text(remap, "remapped_row_unc")),
                "remapped_rows_pending": _yes(_text(remap, "remapped_row_pending")),
                "remapped_rows_failure": _yes(_text(remap, "remapped_row_failure")),
                "pcie_gen_max": _leading_int(_text(gpu, "pci/pci_gpu_link_info/pcie_gen/max_link_gen")),
                "pcie_gen_current": _leading_int(_text(gpu, "pci/pci_gpu_link_info/pcie_gen/current_link_gen")),
                "pcie_width_max": _leading_int(_text(gpu, "pci/pci_gpu_link_info/link_widths/max_link_width")),
                "pcie_width_current": _leading_int(_text(gpu, "pci/pci_gpu_link_info/link_widths/current_link_width")),
                "clocks_event_reasons_active": active_reasons,
                "fabric_state": _text(gpu, "fabric/state"),
                "fabric_status": _text(gpu, "fabric/status"),
            }
        )
    return {
        "driver_version": _text(root, "driver_version"),
        "cuda_version": _text(root, "cuda_version"),
        "attached_gpus": _leading_int(_text(root, "attached_gpus")),
        "gpus": gpus,
    }


def parse_xids(text: str) -> List[Dict[str, Any]]:
    """XID lines of a kernel log (``journalctl -k -b``, ``dmesg``) -> {pci, xid, class, meaning, detail, line}."""
    out = []
    for line in (text or "").splitlines():
        m = _XID.search(line)
        if not m:
            continue
        xid = int(m.group("xid"))
        if xid in XID_HARDWARE:
            klass, meaning = ("hardware", XID_HARDWARE[xid])
        elif xid in XID_INFO:
            klass, meaning = ("application", XID_INFO[xid])
        else:
            klass, meaning = ("unknown", "not in the classes this check knows")
        out.append(
            {
                "pci": m.group("pci").lower(),
                "xid": xid,
                "class": klass,
                "meaning": meaning,
                "detail": m.group("detail").strip(),
                "line": line.strip(),
            }
        )
    return out


_NVLINK_GPU = re.compile(r"^GPU (?P<index>\d+):\s*(?P<name>.*?)(?:\s+\(UUID:.*\))?\s*$")
_NVLINK_LINK = re.compile(r"^\s*Link (?P<link>\d+):\s*(?P<state>.+?)\s*$")


def parse_nvlink_status(text: str) -> List[Dict[str, Any]]:
    """``nvidia-smi nvlink -s`` -> per GPU {index, name, links: [{link, active, speed}]} (GPUs without links: [])."""
    gpus: List[Dict[str, Any]] = []
    for line in (text or "").splitlines():
        m = _NVLINK_GPU.match(line.strip())
        if m:
            gpus.append({"index": int(m.group("index")), "name": m.group("name"), "links": []})
            continue
        m = _NVLINK_LINK.match(line)
        if m and gpus:
            state = m.group("state")
            inactive = "inactive" in state.lower()
            gpus[-1]["links"].append(
                {"link": int(m.group("link")), "active": not inactive, "speed": None if inactive else state}
            )
    return gpus


# dcgmi's spellings of a test's outcome (DCGM 3: "Pass", "PASS", "Fail", "Warn", "Skip"; DCGM 4 the same words in
# per-entity results). A word not listed is not a pass: it is judged "not run".
_DCGM_STATUS = {
    "pass": "pass",
    "passed": "pass",
    "ok": "pass",
    "fail": "fail",
    "failed": "fail",
    "error": "fail",
    "warn": "warn",
    "warning": "warn",
    "skip": "skip",
    "skipped": "skip",
    "not applicable": "skip",
    "n/a": "skip",
}
_DCGM_REASON_KEYS = ("warnings", "warning", "errors", "error", "info", "message")


def _dcgm_strings(node: Any) -> List[str]:
    """The prose of a result's reason fields: strings, lists of them, or dicts with a message (DCGM 4)."""
    if isinstance(node, str):
        return [node.strip()] if node.strip() else []
    if isinstance(node, list):
        return [s for item in node for s in _dcgm_strings(item)]
    if isinstance(node, dict):
        return _dcgm_strings(node.get("message") or node.get("warning") or node.get("error") or "")
    return []


def _dcgm_walk(node: Any, ctx: Dict[str, Any], out: List[Dict[str, Any]]) -> None:
    if isinstance(node, list):
        for item in node:
            _dcgm_walk(item, ctx, out)
        return
    if not isinstance(node, dict):
        return
    ctx = dict(ctx)
    if isinstance(node.get("category"), str):
        ctx["category"] = node["category"]
    if isinstance(node.get("name"), str):
        ctx["test"] = node["name"]
    for key in ("gpu_ids", "entity_id", "gpu_id"):
        if key in node and isinstance(node[key], (str, int)):
            ctx["gpu"] = str(node[key])
    raw = node.get("status")
    if isinstance(raw, str) and "test" in ctx:
        word = " ".join(raw.split()).lower()
        reasons = [s for key in _DCGM_REASON_KEYS for s in _dcgm_strings(node.get(key))]
        out.append(
            {
                "category": ctx.get("category"),
                "test": ctx["test"],
                "gpu": ctx.get("gpu"),
                "status": _DCGM_STATUS.get(word, "not run"),
                "raw": raw,
                "reasons": reasons,
            }
        )
    for key, value in node.items():
        if isinstance(value, (dict, list)) and key not in _DCGM_REASON_KEYS:
            _dcgm_walk(value, ctx, out)


def parse_dcgm_diag(text: str) -> Dict[str, Any]:
    """``dcgmi diag -r N -j`` -> ``{"results": [{category, test, gpu, status, raw, reasons}], "version", "error"}``.

    The document is found between the outermost braces (dcgmi may print a line before it) and walked rather than
    read by one schema: DCGM 3 nests ``"DCGM GPU Diagnostic" > test_categories > tests > results`` (one result per
    GPU, ``gpu_ids``), DCGM 4 gives results per entity (``entity_id``). ``status`` is ``pass``, ``fail``, ``warn``,
    ``skip`` or ``not run`` (a word dcgmi has not used before). ``error`` says why there is no document."""
    text = text or ""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "no output")
        return {"results": [], "version": None, "error": first}
    try:
        doc = json.loads(text[start : end + 1])
    except ValueError as exc:
        return {"results": [], "version": None, "error": f"dcgmi's output is not JSON: {exc}"}
    results: List[Dict[str, Any]] = []
    _dcgm_walk(doc, {}, results)
    root = doc
    if isinstance(doc, dict):
        root = doc.get("DCGM GPU Diagnostic") or doc.get("DCGM Diagnostic") or doc
    version = root.get("version") if isinstance(root, dict) and isinstance(root.get("version"), str) else None
    error = None
    if isinstance(root, dict):
        error = next((root[k] for k in ("runtime_error", "error") if isinstance(root.get(k), str) and root[k]), None)
    return {"results": results, "version": version, "error": error}


def _dcgm_check(diag: Optional[Dict[str, Any]], level: int) -> List[Dict[str, Any]]:
    """The ``dcgm_diag`` check: None when it was not asked for; ``{"missing": True}`` when dcgmi is not installed."""
    if diag is None:
        return []
    expected = f"dcgmi diag -r {level}: every test passes"
    if diag.get("missing"):
        why = f"DCGM diag asked for (level {level}) but dcgmi is not installed: not run (install DCGM, or set it to 0)"
        return [_check("dcgm_diag", WARN, "not installed", expected, why)]
    results = diag.get("results") or []
    if not results:
        why = f"dcgmi diag -r {level} gave no results: {diag.get('error') or 'no output'}"
        return [_check("dcgm_diag", WARN, "no results", expected, why)]

    def named(outcomes):
        found = []
        for r in results:
            if r["status"] in outcomes:
                where = f" (GPU {r['gpu']})" if r.get("gpu") not in (None, "") else ""
                # DCGM's sentences end with a period; the reasons are joined into one sentence by the caller
                why = "; ".join(reason.rstrip(". ") for reason in r["reasons"])
                found.append(f"{r['test']}{where}" + (f": {why}" if why else ""))
        return list(dict.fromkeys(found))

    counts = {k: sum(1 for r in results if r["status"] == k) for k in ("pass", "fail", "warn", "skip", "not run")}
    failed, doubtful = named({"fail"}), named({"warn", "not run"})
    if failed:
        return [_check("dcgm_diag", FAIL, counts, expected, f"dcgmi diag -r {level} failed: " + "; ".join(failed))]
    if doubtful:
        why = f"dcgmi diag -r {level} warned or did not run: " + "; ".join(doubtful)
        return [_check("dcgm_diag", WARN, counts, expected, why)]
    return [_check("dcgm_diag", OK, counts, expected, f"dcgmi diag -r {level}: {counts['pass']} result(s) passed")]


def _check(
    name: str, status: str, value: Any, expected: Any, reason: str, *, gpu: Optional[str] = None
) -> Dict[str, Any]:
    out = {"name": name, "status": status, "value": value, "expected": expected, "reason": reason}
    if gpu is not None:
        out["gpu"] = gpu
    return out


def _count_check(count: int, expected: Optional[int]) -> Dict[str, Any]:
    if expected is None:
        return _check("gpu_count", OK, count, None, "no expected count set (gpucluster_health_expected_gpus)")
    if count == expected:
        return _check("gpu_count", OK, count, expected, "every expected GPU is visible")
    return _check(
        "gpu_count",
        FAIL,
        count,
        expected,
        f"{count} GPU(s) visible, {expected} expected: a GPU fell off the bus or is not seated or powered",
    )


def _xid_checks(xids: Optional[List[Dict[str, Any]]], kernel_log_read: Optional[bool]) -> List[Dict[str, Any]]:
    if kernel_log_read is None:  # not asked for
        return []
    if not kernel_log_read:
        return [_check("xid_hardware", WARN, None, [], "the kernel log could not be read: XIDs not checked")]
    hw = [x for x in xids or [] if x["class"] == "hardware"]
    names = sorted({f"XID {x['xid']} on {x['pci']} ({x['meaning']})" for x in hw})
    if any(x["xid"] not in XID_HARDWARE_WARN for x in hw):
        status = FAIL
    else:
        status = WARN if hw else OK
    reason = "hardware-class XIDs since boot: " + "; ".join(names) if hw else "no hardware-class XID since boot"
    out = [_check("xid_hardware", status, names, [], reason)]
    other = sorted({f"XID {x['xid']} on {x['pci']} ({x['meaning']})" for x in xids or [] if x["class"] != "hardware"})
    if other:
        out.append(_check("xid_other", OK, other, None, "application or unknown XIDs since boot: " + "; ".join(other)))
    return out


def _memory_checks(gpu: Dict[str, Any], bus: Optional[str]) -> List[Dict[str, Any]]:
    out = []
    vol = gpu.get("ecc_volatile_uncorrectable")
    if vol:
        out.append(
            _check("ecc_uncorrectable", FAIL, vol, 0, "uncorrectable ECC errors since the driver loaded", gpu=bus)
        )
    else:
        why = "no uncorrectable ECC error since the driver loaded" if vol == 0 else "ECC counters not reported"
        out.append(_check("ecc_uncorrectable", OK, vol, 0, why, gpu=bus))
    retired = (gpu.get("retired_pages_dbe") or 0) + (gpu.get("retired_pages_sbe") or 0)
    if gpu.get("retired_pages_pending"):
        out.append(
            _check(
                "retired_pages", FAIL, "pending", "none pending", "a page retirement is pending: reset the GPU", gpu=bus
            )
        )
    elif retired:
        status = WARN if retired < RETIRED_PAGES_LIMIT else FAIL
        why = f"{retired} retired page(s) (NVIDIA: service the board at {RETIRED_PAGES_LIMIT})"
        out.append(_check("retired_pages", status, retired, f"< {RETIRED_PAGES_LIMIT}", why, gpu=bus))
    expected = "no pending remap, no failure"
    if gpu.get("remapped_rows_failure"):
        out.append(
            _check("row_remap", FAIL, "failure", expected, "row remapping failed: the board needs service", gpu=bus)
        )
    elif gpu.get("remapped_rows_pending"):
        out.append(
            _check("row_remap", FAIL, "pending", expected, "a row remap is pending: reset the GPU to apply it", gpu=bus)
        )
    elif gpu.get("remapped_rows_pending") is not None:
        unc = gpu.get("remapped_rows_uncorrectable") or 0
        value = {"correctable": gpu.get("remapped_rows_correctable"), "uncorrectable": unc}
        why = f"rows remapped for {unc} uncorrectable error(s), none pending" if unc else expected
        out.append(_check("row_remap", OK, value, expected, why, gpu=bus))
    return out


def _link_and_clock_checks(gpu: Dict[str, Any], bus: Optional[str]) -> List[Dict[str, Any]]:
    out = []
    wmax, wcur = gpu.get("pcie_width_max"), gpu.get("pcie_width_current")
    gmax, gcur = gpu.get("pcie_gen_max"), gpu.get("pcie_gen_current")
    if wmax and wcur is not None:
        value, expected = f"x{wcur} Gen{gcur}", f"x{wmax}"
        if wcur < wmax:
            why = f"the PCIe link trained at x{wcur} of x{wmax}: reseat the GPU, check the riser and the slot"
            out.append(_check("pcie_link", FAIL, value, expected, why, gpu=bus))
        else:
            idle = "" if not gmax or gcur == gmax else f" (Gen{gcur} of Gen{gmax} now: an idle GPU lowers the speed)"
            out.append(_check("pcie_link", OK, value, expected, "full link width" + idle, gpu=bus))
    active = gpu.get("clocks_event_reasons_active") or []
    hw_reasons = [r for r in active if r.startswith("hw_")]
    if hw_reasons:
        why = "hardware slowdown active: " + ", ".join(hw_reasons) + " (cooling, power supply or a hardware fault)"
        out.append(_check("clocks_slowdown", FAIL, active, _NO_SLOWDOWN, why, gpu=bus))
    elif "sw_thermal_slowdown" in active:
        out.append(
            _check("clocks_slowdown", WARN, active, [], "software thermal slowdown active: the GPU runs hot", gpu=bus)
        )
    else:
        out.append(_check("clocks_slowdown", OK, active, _NO_SLOWDOWN, "no hardware or thermal slowdown", gpu=bus))
    if gpu.get("persistence_mode") is False:
        why = "persistence mode is off: every job pays the driver's start (nvidia-persistenced)"
        out.append(_check("persistence_mode", WARN, "Disabled", "Enabled", why, gpu=bus))
    elif gpu.get("persistence_mode"):
        out.append(_check("persistence_mode", OK, "Enabled", "Enabled", "persistence mode on", gpu=bus))
    fstate, fstatus = gpu.get("fabric_state"), gpu.get("fabric_status")
    if fstate is not None and (fstate != "Completed" or fstatus not in (None, "Success")):
        why = "the GPU has not joined the NVLink fabric (Fabric Manager)"
        out.append(_check("gpu_fabric", FAIL, f"{fstate}/{fstatus}", "Completed/Success", why, gpu=bus))
    return out


def _nvlink_checks(nvlink: Optional[List[Dict[str, Any]]]) -> List[Dict[str, Any]]:
    out = []
    for g in nvlink or []:
        links = g.get("links") or []
        if not links:
            continue
        down = [ln["link"] for ln in links if not ln["active"]]
        value = {"down": down, "links": len(links)}
        gpu = str(g["index"])
        if down:
            why = f"GPU {g['index']}: NVLink link(s) {down} of {len(links)} inactive"
            out.append(_check("nvlink", FAIL, value, "every link active", why, gpu=gpu))
        else:
            why = f"GPU {g['index']}: {len(links)} links active"
            out.append(_check("nvlink", OK, value, "every link active", why, gpu=gpu))
    return out


def _fabric_manager_check(nvswitches: int, active: Optional[bool]) -> List[Dict[str, Any]]:
    if not nvswitches:
        return []
    if active:
        return [_check("fabric_manager", OK, "active", "active", f"{nvswitches} NVSwitch(es), Fabric Manager running")]
    why = f"{nvswitches} NVSwitch(es) and Fabric Manager is not running: CUDA cannot use the GPUs"
    return [_check("fabric_manager", FAIL, "inactive" if active is False else "unknown", "active", why)]


def evaluate(
    smi: Optional[Dict[str, Any]],
    *,
    smi_error: Optional[str] = None,
    xids: Optional[List[Dict[str, Any]]] = None,
    nvlink: Optional[List[Dict[str, Any]]] = None,
    expected_gpus: Optional[int] = None,
    nvswitches: int = 0,
    fabric_manager_active: Optional[bool] = None,
    kernel_log_read: Optional[bool] = True,
    dcgm_diag: Optional[Dict[str, Any]] = None,
    dcgm_level: int = 1,
) -> List[Dict[str, Any]]:
    """The health checks of one host from what the parsers returned (None where a source was not read).

    kernel_log_read: True when the kernel log was read (xids are its XIDs), False when it could not be (a warning),
    None when it was not asked for (no XID check). dcgm_diag: what ``parse_dcgm_diag`` returned, ``{"missing": True}``
    when dcgmi is not installed, None when DCGM's diagnostic was not asked for.
    """
    if smi is None:
        why = "the driver does not answer: nothing else about the GPUs can be judged"
        checks = [_check("driver_responds", FAIL, smi_error or "no output", "nvidia-smi -q -x answers", why)]
        if expected_gpus:
            checks.append(_count_check(0, expected_gpus))
        checks += _xid_checks(xids, kernel_log_read) + _fabric_manager_check(nvswitches, fabric_manager_active)
        return checks + _dcgm_check(dcgm_diag, dcgm_level)
    gpus = smi.get("gpus") or []
    checks = [
        _check("driver_responds", OK, smi.get("driver_version"), "nvidia-smi -q -x answers", "the driver answers"),
        _count_check(len(gpus), expected_gpus),
    ]
    checks += _xid_checks(xids, kernel_log_read)
    for gpu in gpus:
        checks += _memory_checks(gpu, gpu.get("pci_bus_id"))
        checks += _link_and_clock_checks(gpu, gpu.get("pci_bus_id"))
    checks += _nvlink_checks(nvlink) + _fabric_manager_check(nvswitches, fabric_manager_active)
    return checks + _dcgm_check(dcgm_diag, dcgm_level)


def summary(checks: List[Dict[str, Any]]) -> str:
    """The worst status of the checks (ok when there are none)."""
    worst = OK
    for c in checks:
        if c["status"] == FAIL:
            return FAIL
        if c["status"] == WARN:
            worst = WARN
    return worst
