# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stack_facts action: resolve the cluster stack on the controller from host facts (docs: modules/stack_facts.py)."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.action import ActionBase

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import compat as _compat

ARGUMENT_SPEC = {
    "request": {"type": "dict", "default": {}},
    "hosts": {"type": "list", "elements": "str"},
}


class ActionModule(ActionBase):
    """Resolve once for all hosts; conflicts come back as data (ok: false), never as a task failure."""

    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        validation = ArgumentSpecValidator(ARGUMENT_SPEC).validate(self._task.args)
        if validation.error_messages:
            raise AnsibleActionFail("stack_facts: " + "; ".join(validation.error_messages))
        args = validation.validated_parameters
        request = dict(args["request"] or {})
        if "os" in request or "gpus" in request or "driver" in request:
            raise AnsibleActionFail("stack_facts: request must not set os, gpus or driver; they come from host facts")
        names = args["hosts"] or task_vars.get("ansible_play_hosts_all") or [task_vars.get("inventory_hostname")]
        hostvars = task_vars.get("hostvars", {})
        hosts = {}
        for name in names:
            facts = (hostvars.get(name) or {}).get("ansible_facts") or {}
            if not facts.get("distribution"):
                raise AnsibleActionFail(f"stack_facts: host {name} has no OS facts; gather facts first")
            gpu = facts.get("gpucluster_gpu") or {}
            hosts[name] = {
                "os": _compat.os_from_facts(facts),
                "gpus": _compat.cluster_gpus(gpu),
                "driver": gpu.get("driver_version"),
            }
        try:
            answer = _compat.resolve_cluster(hosts, request)
        except _compat.CompatError as exc:
            answer = {"ok": False, "stacks": {}, "msg": exc.message, "conflicts": exc.conflicts, "alternatives": []}
        msg = answer["msg"] if answer["ok"] else "stack_facts: " + answer["msg"]
        me = task_vars.get("inventory_hostname")
        result.update(
            changed=False,
            ok=answer["ok"],
            msg=msg,
            conflicts=answer["conflicts"],
            alternatives=answer["alternatives"],
            stacks=answer["stacks"],
            hosts=hosts,
        )
        if answer["ok"] and me in answer["stacks"]:
            result["ansible_facts"] = {"gpucluster_stack": answer["stacks"][me]}
        return result
