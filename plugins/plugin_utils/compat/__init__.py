# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compatibility engine: resolve one mutually compatible GPU/MPI/framework/Horovod version set.

Controller-only, pure Python (no Ansible imports), unit-tested directly. Layout:
``versions`` (version helpers, CompatError) · ``tables`` (loading, one normaliser per framework, row lookups) ·
``lookups`` (GPU architecture, driver floor, Open MPI checks) · ``request`` (request keys, Context, Candidate) ·
``pick/`` (one picker per component) · ``search`` (chains the pickers over candidates) · ``resolver``
(resolve, alternatives) · ``cluster`` (one stack for many hosts) · ``render`` (summary line, table).
Messages carry no plugin name: each entry point adds its own.
"""

from __future__ import annotations

from .cluster import CLUSTER_KEYS, cluster_gpus, os_from_facts, resolve_cluster
from .lookups import (
    cuda_cc_list,
    gpu_arch,
    min_driver_for_cuda,
    normalize_gpu_name,
    openmpi_problem,
    openmpi_version_ok,
)
from .render import TABLE_KEYS, render_table, summarize
from .request import PIN_KEYS, REQUEST_KEYS, RESULT_KEYS
from .resolver import resolve, resolve_or_conflicts
from .tables import DATA_DIR, FRAMEWORKS, TABLE_NAMES, known_cuda, load_tables
from .versions import CompatError, in_range, mm, vcmp, vprefix, vtuple

__all__ = [
    "CLUSTER_KEYS",
    "DATA_DIR",
    "FRAMEWORKS",
    "PIN_KEYS",
    "REQUEST_KEYS",
    "RESULT_KEYS",
    "TABLE_KEYS",
    "TABLE_NAMES",
    "CompatError",
    "cluster_gpus",
    "cuda_cc_list",
    "gpu_arch",
    "in_range",
    "known_cuda",
    "load_tables",
    "min_driver_for_cuda",
    "mm",
    "normalize_gpu_name",
    "openmpi_problem",
    "openmpi_version_ok",
    "os_from_facts",
    "render_table",
    "resolve",
    "resolve_cluster",
    "resolve_or_conflicts",
    "summarize",
    "vcmp",
    "vprefix",
    "vtuple",
]
