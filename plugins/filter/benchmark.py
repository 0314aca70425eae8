# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark filter: benchmark_node_facts (documented in benchmark_node_facts.yml).

Turns what the horovod_benchmark role gathered (gpu_facts, the registered boot-id and topology probes)
into plain per-node dicts; the logic is in plugin_utils/benchmark/result.py (node_entries).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.lazy import LazyModule

_benchmark = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.result")
_horovodrun = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.horovodrun")
_fabric = LazyModule("ansible_collections.gpucluster.horovod.plugins.plugin_utils.fabric")

_STATUS_ORDER = ("ok", "warn", "fail")


def _results(registered):
    """The per-item results of a registered loop (or the list itself); [] for a skipped or absent task."""
    if isinstance(registered, Mapping):
        registered = registered.get("results") or []
    return [r for r in registered or [] if isinstance(r, Mapping)]


def _item_name(result):
    item = result.get("item")
    return str(item.get("name")) if isinstance(item, Mapping) else str(item)


def _boot_id(result):
    if result.get("skipped") or result.get("failed") or not result.get("content"):
        return ""
    try:
        return base64.b64decode(result["content"]).decode("utf-8", "replace").strip()
    except (binascii.Error, ValueError) as exc:
        raise AnsibleFilterError(f"benchmark_node_facts: boot id of {_item_name(result)} is not base64: {exc}") from exc


def _health(registered):
    """node_health's results of a registered loop over the hosts, by host (skipped and failed runs left out)."""
    return {
        _item_name(r): {k: r.get(k) for k in ("status", "checks", "xids")}
        for r in _results(registered)
        if not r.get("skipped") and not r.get("failed") and r.get("status")
    }


def _fabric_health(registered):
    """fabric_facts' results of a registered loop over the hosts -> by host, a node_health-shaped result holding the
    RDMA ports' check (filter fabric_port_check's rule); skipped and failed reads left out."""
    out = {}
    for r in _results(registered):
        if r.get("skipped") or r.get("failed") or not isinstance(r.get("fabric"), Mapping):
            continue
        check = _fabric.port_health_check(r["fabric"])
        out[_item_name(r)] = {"status": check["status"], "checks": [check], "xids": []}
    return out


def _merged_health(gpu, ports):
    """node_health's results and the ports' checks by host -> one result per host (the worst status, all checks)."""
    out = {}
    for name in list(gpu) + [n for n in ports if n not in gpu]:
        parts = [p for p in (gpu.get(name), ports.get(name)) if p]
        statuses = [p.get("status") if p.get("status") in _STATUS_ORDER else "warn" for p in parts]
        out[name] = {
            "status": max(statuses, key=_STATUS_ORDER.index),
            "checks": [c for p in parts for c in p.get("checks") or []],
            "xids": [x for p in parts for x in p.get("xids") or []],
        }
    return out


def benchmark_node_facts(
    hosts,
    hostvars,
    boot_ids=None,
    topo=None,
    *,
    health_before=None,
    health_after=None,
    fabric_before=None,
    fabric_after=None,
):
    """Host list, hostvars, the registered boot-id slurp, nvidia-smi topo -m, node_health and fabric_facts loops ->
    one dict per node."""
    hosts = list(hosts or [])
    gpus = {}
    for host in hosts:
        name = host.get("name") if isinstance(host, Mapping) else None
        if name is None:
            raise AnsibleFilterError(f"benchmark_node_facts: {host!r} is not a host entry of horovodrun_hosts")
        node = hostvars[name] if name in hostvars else {}
        gpus[name] = _horovodrun.gpu_facts(
            {"ansible_facts": node.get("ansible_facts"), "gpucluster_gpu": node.get("gpucluster_gpu")}
        )
    boots = {_item_name(r): _boot_id(r) for r in _results(boot_ids)}
    probes = {
        _item_name(r): {k: r.get(k) for k in ("rc", "stdout", "stderr", "msg")}
        for r in _results(topo)
        if not r.get("skipped")
    }
    return _benchmark.node_entries(
        hosts,
        gpus,
        boots,
        probes,
        health_before=_merged_health(_health(health_before), _fabric_health(fabric_before)),
        health_after=_merged_health(_health(health_after), _fabric_health(fabric_after)),
    )


class FilterModule:
    """gpucluster.horovod benchmark filters."""

    def filters(self):
        return {"benchmark_node_facts": benchmark_node_facts}
