# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin gpucluster.horovod.benchmark_report (documentation: plugins/modules/benchmark_report.py)."""

from __future__ import annotations

import glob
import json
import os

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.text.converters import to_native
from ansible.plugins.action import ActionBase

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.report import summary_table, write_report
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.result import BenchmarkError, combine

_ARGS = {
    "raw_dir": {"type": "path", "required": True},
    "dest": {"type": "path", "required": True},
    "run_id": {"type": "str", "required": True},
    "generated_at": {"type": "str", "default": ""},
    "inputs": {"type": "dict", "default": {}},
    "tuning": {"type": "dict", "default": {}},
    "stack": {"type": "dict", "default": {}},
    "hosts": {"type": "list", "elements": "dict", "default": []},
    "nodes": {"type": "list", "elements": "dict", "default": []},
    "transport": {"type": "dict", "default": {}},
    "failure": {"type": "dict", "default": {}},
    "plots": {"type": "bool", "default": True},
    "large_bytes": {"type": "int", "default": 64 * 1024 * 1024},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _spec, args = self.validate_argument_spec(argument_spec=_ARGS)
        raw_dir = args["raw_dir"]
        runs = []
        for path in sorted(glob.glob(os.path.join(raw_dir, "**", "run-*.json"), recursive=True)):
            try:
                with open(path) as f:
                    runs.append({"source": os.path.relpath(path, raw_dir), "doc": json.load(f)})
            except (OSError, ValueError) as exc:
                raise AnsibleActionFail(f"benchmark_report: cannot read {path}: {to_native(exc)}") from exc
        link = {}
        for path in sorted(glob.glob(os.path.join(raw_dir, "**", "iperf3-*.json"), recursive=True)):
            host = os.path.basename(path)[len("iperf3-") : -len(".json")]
            with open(path) as f:
                link[host] = f.read()
        nccl_tests = None
        for path in sorted(glob.glob(os.path.join(raw_dir, "**", "nccl-tests-*.txt"), recursive=True)):
            with open(path, encoding="utf-8", errors="replace") as f:
                nccl_tests = {"source": os.path.relpath(path, raw_dir), "text": f.read()}
        elastic = None
        for path in sorted(glob.glob(os.path.join(raw_dir, "**", "elastic.json"), recursive=True)):
            try:
                with open(path) as f:
                    elastic = {"source": os.path.relpath(path, raw_dir), "doc": json.load(f)}
            except (OSError, ValueError) as exc:
                raise AnsibleActionFail(f"benchmark_report: cannot read {path}: {to_native(exc)}") from exc
        if not runs:
            raise AnsibleActionFail(f"benchmark_report: no run-*.json under {raw_dir} (did every horovodrun fail?)")
        if self._task.check_mode:
            result.update(changed=False, skipped=True, msg="check mode: report not written")
            return result
        try:
            doc = combine(
                runs,
                link=link,
                inputs=args["inputs"],
                tuning=args["tuning"],
                stack=args["stack"],
                hosts=args["hosts"],
                nodes=args["nodes"],
                nccl_tests=nccl_tests,
                transport=args["transport"],
                failure=args["failure"] or None,
                elastic=elastic,
                run_id=args["run_id"],
                generated_at=args["generated_at"],
                large_bytes=args["large_bytes"],
            )
            paths = write_report(doc, args["dest"], plots=args["plots"])
        except BenchmarkError as exc:
            raise AnsibleActionFail(f"benchmark_report: {to_native(exc)}") from exc
        result.update(changed=True, summary=doc["summary"], summary_lines=summary_table(doc), **paths)
        return result
