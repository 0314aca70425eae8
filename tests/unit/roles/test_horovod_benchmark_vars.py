"""The horovod_benchmark role's host list, rendered by Ansible's own templating from vars/main.yml.

Guards the role's expression, not only the Python behind it: a node with GPUs gets one slot per GPU
(the role once read ``hostvars[h]['gpucluster_gpu_count']``, which nothing sets, and gave 8-GPU nodes
the default of one slot).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROOT = Path(__file__).resolve().parents[3]
VARS = yaml.safe_load((ROOT / "roles" / "horovod_benchmark" / "vars" / "main.yml").read_text(encoding="utf-8"))
DEFAULTS = yaml.safe_load((ROOT / "roles" / "horovod_benchmark" / "defaults" / "main.yml").read_text(encoding="utf-8"))


def _facts(hostname, address):
    return {"hostname": hostname, "default_ipv4": {"address": address, "interface": "eth0"}}


def _render(expression, hostvars, **extra):
    variables = {**DEFAULTS, **VARS, "hostvars": hostvars, "groups": {"hvd_nodes": list(hostvars)}, **extra}
    variables = {k: trust_as_template(v) if isinstance(v, str) else v for k, v in variables.items()}
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


def test_gpu_nodes_get_one_slot_per_gpu():
    hostvars = {
        "n1": {"ansible_facts": _facts("n1", "10.0.0.1"), "gpucluster_gpu": {"gpu_count": 8}},
        "n2": {"ansible_facts": _facts("n2", "10.0.0.2"), "gpucluster_gpu": {"gpu_count": 8}},
        "n3": {"ansible_facts": _facts("n3", "10.0.0.3"), "gpucluster_gpu": {"gpu_count": 0}},
    }
    hosts = _render(VARS["_horovod_benchmark_hosts"], hostvars)
    assert [(h["name"], h["slots"]) for h in hosts] == [("n1", 8), ("n2", 8), ("n3", 1)]
    assert int(_render(VARS["_horovod_benchmark_total_slots"], hostvars)) == 17
    assert _render(VARS["_horovod_benchmark_workers"], hostvars) == [1, 2, 4, 8, 16, 17]
