#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation stub of the benchmark_report action plugin (the work happens on the controller)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: benchmark_report
short_description: Combine Horovod benchmark results into one JSON document, a Markdown report and plots
version_added: "1.0.0"
description:
  - Action plugin that runs on the control node. It reads the C(run-*.json) documents written by the
    C(hvd_benchmark.py) program of the C(gpucluster.horovod.horovod_benchmark) role (Horovod, the peer baseline
    and the plain-framework training baseline), the C(iperf3-<host>.json) outputs and the
    C(nccl-tests-*.txt) output of nccl-tests' C(all_reduce_perf) under O(raw_dir), recomputes every bandwidth
    figure, and writes C(result.json) (schema_version 1), C(report.md) and PNG plots into O(dest).
  - Bus bandwidth is message size / time x 2(n-1)/n; scaling efficiency is throughput(N) / (N x throughput(1));
    the overhead ratio is Horovod's samples/s at one worker / the plain framework's in one process.
  - Nodes that share one kernel boot id (O(nodes)) run on one physical machine; the summary lists them in
    C(shared_machines) and the report says that scaling across them measures contention, not scaling.
options:
  raw_dir:
    description: Directory (searched recursively) with the fetched C(run-*.json) and C(iperf3-*.json) files.
    type: path
    required: true
  dest:
    description: Directory that receives C(result.json), C(report.md), C(busbw.png) and C(scaling.png).
    type: path
    required: true
  run_id:
    description: Identifier of this benchmark run, recorded in the document.
    type: str
    required: true
  generated_at:
    description: Timestamp recorded in the document.
    type: str
    default: ""
  inputs:
    description: The role inputs used (sizes, worker counts, controller...), recorded as given.
    type: dict
    default: {}
  tuning:
    description: Tuning variables used (fusion threshold, cycle time, autotune, interfaces), recorded as given.
    type: dict
    default: {}
  stack:
    description: Stack versions (for example the C(gpucluster_stack) fact), recorded as given.
    type: dict
    default: {}
  hosts:
    description: Host facts, one dict per host with at least C(name).
    type: list
    elements: dict
    default: []
  nodes:
    description:
      - Node facts, one dict per host with at least C(name) (the P(gpucluster.horovod.benchmark_node_facts#filter)
        filter's result) - C(boot_id), C(gpu_count), C(gpu_models), C(driver_version), C(cuda_driver_version), C(topo)
        and C(topo_error). The report's "Nodes" section and the shared-machine check come from them.
    type: list
    elements: dict
    default: []
  transport:
    description:
      - What NCCL moved data between the nodes with in the largest Horovod run - the
        P(gpucluster.horovod.nccl_transports#filter) filter's result on its C(NCCL_DEBUG=INFO) log, with C(nodes) (hosts
        in that run), C(fabric) (the cluster's fabric kind), C(read) (false when the user's C(NCCL_DEBUG) kept the
        INFO lines out), C(problem) (P(gpucluster.horovod.fabric_use_problem#filter) - why the run must not count,
        or empty) and C(fabric_rate_gbps) (P(gpucluster.horovod.fabric_link_rate#filter) - the slowest usable fabric
        port of the run's nodes, or null). The report's summary names it; a problem is a warning there and in
        C(summary.transport_problem).
      - The link limit the bus bandwidths are held against (C(summary.link_Bps), C(summary.link_source)) is
        C(fabric_rate_gbps) where NCCL moved the data over the fabric, else iperf3's IP path; both are kept
        (C(summary.fabric_link_Bps), C(summary.ip_link_Bps)).
    type: dict
    default: {}
  failure:
    description:
      - Makes the report partial - a run failed after others had finished (a node lost mid-benchmark). Keys C(run)
        (the failed run's tag, for example C(hvd-np2)), C(task) (the role's task), C(lost_nodes) (the nodes the launcher
        could not reach afterwards) and C(error) (its last lines). The documents of the finished runs under O(raw_dir)
        are reported as usual; result.json gets a C(failure) section and C(summary.partial=true), report.md and the
        summary lines a C(PARTIAL) line. Empty (the default) is a complete run.
    type: dict
    default: {}
  plots:
    description: Write PNG plots. Needs the Python package C(matplotlib) on the control node.
    type: bool
    default: true
  large_bytes:
    description: Messages of at least this size count for the Horovod / peer ratio in the summary.
    type: int
    default: 67108864
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying target.
    support: full
    details: In check mode the inputs are read and nothing is written.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
author:
  - gpucluster.horovod contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Write the benchmark report
  gpucluster.horovod.benchmark_report:
    raw_dir: /srv/results/20260101T000000/raw
    dest: /srv/results/20260101T000000
    run_id: "20260101T000000"
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
result:
  description: Path of the combined JSON document.
  returned: success
  type: str
report:
  description: Path of the Markdown report.
  returned: success
  type: str
plots:
  description: Paths of the PNG plots written.
  returned: success
  type: list
  elements: str
summary:
  description: The C(summary) section of the document (every_rank_reported, correct, ratio_large, overhead_ratio,
    shared_machines, ratio_nccl_tests_large, ...).
  returned: success
  type: dict
summary_lines:
  description: A short fixed-width table for printing.
  returned: success
  type: list
  elements: str
"""
