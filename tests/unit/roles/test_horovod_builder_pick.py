"""The horovod role's builder pick, rendered from the real task file with Ansible's templar: among the hosts of a
build key, one with the stack's nvcc (a GPU build) and MPI's development files (a build with MPI)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

PREFLIGHT = Path(__file__).resolve().parents[3] / "roles" / "horovod" / "tasks" / "preflight.yml"
HOSTVARS = {
    "n1": {"__horovod_build_key": "k", "__horovod_mpicxx_found": True, "__horovod_nvcc_release": "12.4"},
    "n2": {"__horovod_build_key": "k", "__horovod_mpicxx_found": False, "__horovod_nvcc_release": "13.0"},
    "n3": {"__horovod_build_key": "k", "__horovod_mpicxx_found": True, "__horovod_nvcc_release": "13.0"},
    "n4": {"__horovod_build_key": "other", "__horovod_mpicxx_found": True, "__horovod_nvcc_release": "13.0"},
}


def _task(name: str) -> dict:
    return next(t for t in yaml.safe_load(PREFLIGHT.read_text()) if t.get("name", "").startswith(name))


def _pick(build_env: dict, cuda: str, builder: str = "") -> str:
    task = _task("Pick one builder per build key")
    v = {
        "groups": {"hvd_nodes": ["n1", "n2", "n3", "n4"]},
        "ansible_play_hosts": ["n1", "n2", "n3", "n4"],
        "hostvars": HOSTVARS,
        "horovod_builder": builder,
        "__horovod_build_key": "k",
        "__horovod_effective_build_env": build_env,
        "horovod_cuda_version": cuda,
    }
    for name in ("__horovod_hosts", "__horovod_same_key", "__horovod_with_mpicxx", "__horovod_with_nvcc"):
        v[name] = Templar(loader=DataLoader(), variables=v).template(trust_as_template(task["vars"][name]))
    expr = task["ansible.builtin.set_fact"]["__horovod_key_builder"]
    return Templar(loader=DataLoader(), variables=v).template(trust_as_template(expr)).strip()


@pytest.mark.parametrize(
    ("build_env", "cuda", "builder"),
    [
        # GPU with MPI: nvcc 13.0 and mpicxx (n1 has the wrong nvcc, n2 no mpicxx)
        ({"HOROVOD_GPU_OPERATIONS": "NCCL", "HOROVOD_WITH_MPI": "1"}, "13.0", "n3"),
        # GPU without MPI: the first host with nvcc 13.0
        ({"HOROVOD_GPU_OPERATIONS": "NCCL"}, "13.0", "n2"),
        # the release is compared as major.minor
        ({"HOROVOD_GPU_OPERATIONS": "NCCL", "HOROVOD_WITH_MPI": "1"}, "12.4.1", "n1"),
        # CPU builds: mpicxx where MPI is used, else the first host
        ({"HOROVOD_WITH_MPI": "1"}, "", "n1"),
        ({}, "", "n1"),
        # nobody has the stack's nvcc: the first host (its preflight check then says what is missing)
        ({"HOROVOD_GPU_OPERATIONS": "NCCL"}, "12.8", "n1"),
    ],
)
def test_builder_pick(build_env, cuda, builder):
    assert _pick(build_env, cuda) == builder


def test_horovod_builder_of_the_key_wins():
    assert _pick({"HOROVOD_GPU_OPERATIONS": "NCCL"}, "13.0", builder="n1") == "n1"
    # a named builder of another key does not count
    assert _pick({"HOROVOD_GPU_OPERATIONS": "NCCL"}, "13.0", builder="n4") == "n2"


def _nvcc_check(release: str, cuda: str = "13.0", needs_build: bool = True) -> tuple:
    task = _task("Check that the builder of a GPU build has the stack's CUDA compiler")
    v = {
        "inventory_hostname": "n1",
        "__horovod_needs_build": needs_build,
        "__horovod_is_builder": True,
        "__horovod_effective_build_env": {"HOROVOD_GPU_OPERATIONS": "NCCL"},
        "__horovod_nvcc_release": release,
        "horovod_cuda_version": cuda,
        "horovod_cuda_home": "/usr/local/cuda",
        "horovod_builder": "",
    }
    templar = Templar(loader=DataLoader(), variables=v)
    spec = task["ansible.builtin.assert"]
    return templar.evaluate_conditional(trust_as_template(spec["that"])), templar.template(
        trust_as_template(spec["fail_msg"])
    )


def test_the_gpu_builder_needs_the_stacks_nvcc():
    assert _nvcc_check("13.0")[0]
    assert _nvcc_check("13.0", cuda="13.0.2")[0]
    # a build already in the controller's cache needs no compiler
    assert _nvcc_check("", needs_build=False)[0]
    ok, msg = _nvcc_check("12.4")
    assert not ok
    assert (
        "n1 builds Horovod with NCCL for CUDA 13.0, but its /usr/local/cuda/bin/nvcc is release 12.4, and no other"
        " host of this build key has CUDA 13.0's." in msg
    )
    ok, msg = _nvcc_check("")
    assert not ok
    assert "it has no /usr/local/cuda/bin/nvcc, and no other host of this build key has CUDA 13.0's." in msg
    assert "Nothing was built." in msg
