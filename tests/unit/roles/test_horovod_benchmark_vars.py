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


def _facts(hostname, address, gpus=None):
    facts = {"hostname": hostname, "default_ipv4": {"address": address, "interface": "eth0"}}
    if gpus is not None:
        # gpu_facts' result, where a module's facts live with inject_facts_as_vars = false
        facts["gpucluster_gpu"] = {"gpu_count": gpus}
    return facts


def _trusted(value):
    """Strings of the role's own files are templates (Ansible trusts them), also inside dicts and lists."""
    if isinstance(value, str):
        return trust_as_template(value)
    if isinstance(value, dict):
        return {k: _trusted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_trusted(v) for v in value]
    return value


def _render(expression, hostvars, **extra):
    role = {k: _trusted(v) for k, v in {**DEFAULTS, **VARS}.items()}
    variables = {**role, "hostvars": hostvars, "groups": {"hvd_nodes": list(hostvars)}}
    variables.update({k: trust_as_template(v) if isinstance(v, str) else v for k, v in extra.items()})
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


def test_gpu_nodes_get_one_slot_per_gpu():
    hostvars = {
        "n1": {"ansible_facts": _facts("n1", "10.0.0.1", gpus=8)},
        "n2": {"ansible_facts": _facts("n2", "10.0.0.2", gpus=8)},
        "n3": {"ansible_facts": _facts("n3", "10.0.0.3", gpus=0)},
    }
    hosts = _render(VARS["_horovod_benchmark_hosts"], hostvars)
    assert [(h["name"], h["slots"]) for h in hosts] == [("n1", 8), ("n2", 8), ("n3", 1)]
    assert int(_render(VARS["_horovod_benchmark_total_slots"], hostvars)) == 17
    assert _render(VARS["_horovod_benchmark_workers"], hostvars) == [1, 2, 4, 8, 16, 17]
    # a node without GPUs: nccl-tests (one process per GPU) does not run in auto mode
    assert _render(VARS["_horovod_benchmark_all_gpu"], hostvars) is False


GPU_NODES = {
    "g1": {"ansible_facts": _facts("g1", "10.0.0.1", gpus=4)},
    "g2": {"ansible_facts": _facts("g2", "10.0.0.2", gpus=4)},
}


def test_nccl_tests_line_covers_every_gpu_over_the_hosts_sshd():
    extra = {"horovod_benchmark_network_interface": "ib0", "gpucluster_ssh": {"port": 2222}}
    assert _render(VARS["_horovod_benchmark_all_gpu"], GPU_NODES, **extra) is True
    argv = _render(VARS["_horovod_benchmark_nccl_tests_argv"], GPU_NODES, **extra)
    assert argv[argv.index("-np") + 1] == "8"
    assert argv[argv.index("-H") + 1] == "10.0.0.1:4,10.0.0.2:4"
    assert argv[argv.index("plm_rsh_args") + 1] == "-p 2222"
    assert "NCCL_SOCKET_IFNAME=ib0" in argv, " ".join(argv)
    assert "HOROVOD_FUSION_THRESHOLD=67108864" in argv
    assert not any(a.startswith("PATH=") for a in argv)
    assert argv[-9:] == ["/opt/gpucluster/nccl-tests/build/all_reduce_perf", "-b", "8", "-e", str(256 * 1024**2),
                         "-f", "2", "-g", "1"]  # fmt: skip
    # in training containers the ranks use the containers' sshd, nccl-tests the hosts'
    in_containers = {**extra, "horovod_benchmark_container": "train", "gpucluster_container": {"ssh_port": 12345}}
    assert int(_render(DEFAULTS["horovod_benchmark_ssh_port"], GPU_NODES, **in_containers)) == 12345
    argv = _render(VARS["_horovod_benchmark_nccl_tests_argv"], GPU_NODES, **in_containers)
    assert argv[argv.index("plm_rsh_args") + 1] == "-p 2222"


def test_nccl_tests_dir_follows_the_nccl_roles_fact():
    published = {**GPU_NODES, "g1": {**GPU_NODES["g1"], "gpucluster_nccl_tests": {"dir": "/srv/nt/build"}}}
    assert _render(VARS["_horovod_benchmark_nccl_tests_program"], published) == "/srv/nt/build/all_reduce_perf"
    assert _render(DEFAULTS["horovod_benchmark_nccl_tests_dir"], GPU_NODES) == "/opt/gpucluster/nccl-tests/build"


def test_plain_baseline_runs_with_training_at_one_worker():
    assert _render(VARS["_horovod_benchmark_plain_run"], GPU_NODES) is True
    assert _render(VARS["_horovod_benchmark_plain_run"], GPU_NODES, horovod_benchmark_training=False) is False
    assert _render(VARS["_horovod_benchmark_plain_run"], GPU_NODES, horovod_benchmark_plain_baseline=False) is False
    # no one-worker Horovod run to compare with
    assert _render(VARS["_horovod_benchmark_plain_run"], GPU_NODES, horovod_benchmark_worker_counts=[8]) is False
