# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark result document's format: RESULT_SCHEMA (``schema_version`` 1) and its validator.

Pure Python with no Ansible imports. result.py builds documents that follow it and checks them with
schema_errors; tools/gen_result_schema.py writes it to roles/horovod_benchmark/files/result.schema.json.
"""

# ruff: noqa: UP031 - printf-style paths ("%s[%d]") match the other error messages

from __future__ import annotations

from typing import Any, Dict, List, Optional

SCHEMA_VERSION = 1
# Modes of the program's documents: Horovod, the frameworks' own collectives (the peer baselines) and
# the plain-framework training baseline (one process, no Horovod).
PEER_MODES = ("torch", "tensorflow")
PLAIN_MODE = "plain"
# the tag of the one-worker comparison's Horovod runs (training only, one per round: overhead-hvd-r1 ...); the role's
# roles/horovod_benchmark/tasks/run_overhead.yml names them so
OVERHEAD_TAG_PREFIX = "overhead-hvd-"


def is_overhead_run(run: Dict[str, Any]) -> bool:
    """A Horovod run of the one-worker comparison's rounds (training only), not a scaling run."""
    return str(run.get("tag", "")).startswith(OVERHEAD_TAG_PREFIX)


# Horovod and the peer (torch.distributed) in one job, their iterations interleaved: the paired comparison.
PAIRED_MODE = "both"

_NUM = {"type": "number", "minimum": 0}
_ROW = {
    "type": "object",
    "required": ["bytes", "time_median_s", "time_p90_s", "algbw_Bps", "busbw_Bps", "correct", "ranks_reported"],
    "properties": {
        "bytes": {"type": "integer", "minimum": 1},
        "time_median_s": _NUM,
        "time_p90_s": _NUM,
        "algbw_Bps": _NUM,
        "busbw_Bps": _NUM,
        "correct": {"type": "boolean"},
        "ranks_reported": {"type": "integer", "minimum": 1},
    },
}
RESULT_SCHEMA: Dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "gpucluster.horovod benchmark result",
    "type": "object",
    "required": [
        "schema_version",
        "run_id",
        "generated_at",
        "inputs",
        "tuning",
        "stack",
        "hosts",
        "runs",
        "allreduce",
        "scaling",
        "link",
        "comparison",
        "summary",
    ],
    "properties": {
        "schema_version": {"type": "integer", "enum": [SCHEMA_VERSION]},
        "run_id": {"type": "string"},
        "generated_at": {"type": "string"},
        "inputs": {"type": "object"},
        "tuning": {"type": "object"},
        "stack": {"type": "object"},
        "hosts": {"type": "array", "items": {"type": "object", "required": ["name"]}},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tag", "mode", "library", "workers", "device", "ranks"],
                "properties": {
                    "workers": {"type": "integer", "minimum": 1},
                    "mode": {"type": "string", "enum": ["horovod", *PEER_MODES, PLAIN_MODE, PAIRED_MODE]},
                    "framework": {"type": "string", "enum": ["pytorch", "tensorflow"]},
                    "ranks": {"type": "array"},
                    "allreduce": {"type": "array", "items": _ROW},
                },
            },
        },
        "allreduce": {
            "type": "object",
            "required": ["workers", "horovod", "peer"],
            "properties": {"horovod": {"type": "array", "items": _ROW}, "peer": {"type": "array", "items": _ROW}},
        },
        "scaling": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["workers", "samples_per_s_total", "samples_per_s_per_worker", "efficiency"],
                "properties": {
                    "workers": {"type": "integer", "minimum": 1},
                    "samples_per_s_total": _NUM,
                    "samples_per_s_per_worker": _NUM,
                    "efficiency": {"type": ["number", "null"]},
                },
            },
        },
        "link": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["host", "bits_per_second"],
                "properties": {"bits_per_second": _NUM},
            },
        },
        "comparison": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["bytes", "ratio"],
                "properties": {
                    # paired (the peer interleaved with Horovod in one job): the ratio is the median of the
                    # iterations' ratios, p10-p90 their spread; unpaired: one ratio of two runs' medians, no spread
                    "paired": {"type": "boolean"},
                    "ratio_p10": {"type": ["number", "null"], "minimum": 0},
                    "ratio_p90": {"type": ["number", "null"], "minimum": 0},
                },
            },
        },
        # Optional sections (absent from results of before they existed, which stay valid):
        "nodes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "boot_id", "gpu_count"],
                "properties": {
                    "name": {"type": "string"},
                    "boot_id": {"type": ["string", "null"]},
                    "gpu_count": {"type": "integer", "minimum": 0},
                    "gpu_models": {"type": "array", "items": {"type": "string"}},
                    "topo": {"type": ["string", "null"]},
                    "topo_error": {"type": ["string", "null"]},
                    "health": {
                        "type": ["object", "null"],
                        "required": ["before", "after", "findings", "new_xids"],
                        "properties": {
                            "before": {"enum": ["ok", "warn", "fail", None]},
                            "after": {"enum": ["ok", "warn", "fail", None]},
                            "findings": {"type": "array", "items": {"type": "string"}},
                            "new_xids": {"type": "array", "items": {"type": "string"}},
                        },
                    },
                },
            },
        },
        "overhead": {
            "type": ["object", "null"],
            "required": ["plain_samples_per_s", "horovod_1_samples_per_s", "overhead_ratio"],
            "properties": {
                "plain_samples_per_s": _NUM,
                "horovod_1_samples_per_s": {"type": ["number", "null"], "minimum": 0},
                "overhead_ratio": {"type": ["number", "null"], "minimum": 0},
                # how many plain and Horovod runs the figures are from (the role's rounds)
                "runs": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2},
                # from the runs' step times (PyTorch): plain median step / Horovod's, and every pair's p10-p90
                "steps": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                "step_ratio_median": _NUM,
                "step_ratio_p10": _NUM,
                "step_ratio_p90": _NUM,
            },
        },
        "nccl_tests": {
            "type": ["object", "null"],
            "required": ["rows", "avg_busbw_GBps"],
            "properties": {
                "rows": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["bytes", "out_of_place"],
                        "properties": {"bytes": {"type": "integer", "minimum": 0}},
                    },
                },
                "avg_busbw_GBps": {"type": ["number", "null"]},
            },
        },
        "failure": {
            "type": ["object", "null"],
            "required": ["run", "task", "lost_nodes", "error"],
            "properties": {
                "run": {"type": "string"},
                "task": {"type": "string"},
                "lost_nodes": {"type": "array", "items": {"type": "string"}},
                "error": {"type": "string"},
            },
        },
        "elastic": {
            "type": ["object", "null"],
            "required": [
                "tag",
                "resets",
                "min_workers",
                "max_workers",
                "workers_over_time",
                "final_workers",
                "steps",
                "elapsed_s",
                "before",
                "after",
            ],
            "properties": {
                "tag": {"type": "string"},
                "resets": {"type": "integer", "minimum": 0},
                "min_workers": {"type": "integer", "minimum": 1},
                "max_workers": {"type": "integer", "minimum": 1},
                "workers_over_time": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["t", "workers", "event"],
                        "properties": {
                            "t": _NUM,
                            "workers": {"type": "integer", "minimum": 1},
                            "event": {"type": "string"},
                        },
                    },
                },
                "final_workers": {"type": "integer", "minimum": 1},
                "steps": {"type": "integer", "minimum": 0},
                "elapsed_s": _NUM,
                "before": {"type": ["object", "null"]},
                "after": {"type": ["object", "null"]},
            },
        },
        "summary": {
            "type": "object",
            "required": [
                "every_rank_reported",
                "correct",
                "device",
                "workers_max",
                "ratio_large",
                "efficiency_max_workers",
                "link_Bps",
            ],
            "properties": {
                "shared_machines": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
                "overhead_ratio": {"type": ["number", "null"], "minimum": 0},
                "ratio_nccl_tests_large": {"type": ["number", "null"], "minimum": 0},
                "partial": {"type": "boolean"},
                # link_Bps is the limit the busbw is held against: the fabric's port rate when NCCL used it, else iperf3
                "link_source": {"enum": ["fabric", "iperf3", None]},
                "ip_link_Bps": {"type": ["number", "null"], "minimum": 0},
                "fabric_link_Bps": {"type": ["number", "null"], "minimum": 0},
                "goals": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "target", "value", "met"],
                        "properties": {
                            "name": {"type": "string"},
                            "target": _NUM,
                            "value": {"type": ["number", "null"], "minimum": 0},
                            "p10": {"type": ["number", "null"], "minimum": 0},
                            "p90": {"type": ["number", "null"], "minimum": 0},
                            "met": {"type": ["boolean", "null"]},
                            "within_spread": {"type": "boolean"},
                            # the one-worker goal: "median step" (step times) or "samples/s" (the runs' means)
                            "basis": {"enum": ["median step", "samples/s"]},
                        },
                    },
                },
            },
        },
    },
}

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _type_ok(value: Any, t: str) -> bool:
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[t])


def schema_errors(  # noqa: PLR0912 - one branch per JSON Schema keyword reads best
    value: Any, schema: Optional[Dict[str, Any]] = None, path: str = "$"
) -> List[str]:
    """Validate against the subset of JSON Schema RESULT_SCHEMA uses; list of error strings."""
    schema = RESULT_SCHEMA if schema is None else schema
    errors: List[str] = []
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(_type_ok(value, t) for t in types):
            return ["{}: expected {}, got {}".format(path, "/".join(types), type(value).__name__)]
    if "enum" in schema and value not in schema["enum"]:
        errors.append("{}: {!r} not in {!r}".format(path, value, schema["enum"]))
    if "minimum" in schema and _type_ok(value, "number") and value < schema["minimum"]:
        errors.append("{}: {!r} < minimum {!r}".format(path, value, schema["minimum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing required key {key!r}")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                errors.extend(schema_errors(value[key], sub, f"{path}.{key}"))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append("%s: fewer than %d items" % (path, schema["minItems"]))
        if "items" in schema:
            for i, item in enumerate(value):
                errors.extend(schema_errors(item, schema["items"], "%s[%d]" % (path, i)))
    return errors
