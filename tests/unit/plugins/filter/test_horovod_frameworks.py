# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pip requirement, distribution and build flag of each framework of a Horovod venv."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter.horovod_frameworks import (
    horovod_frameworks,
    horovod_frameworks_missing,
)
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.frameworks import framework_plan, satisfied


@pytest.mark.parametrize(
    ("spec", "distribution", "requirement", "label"),
    [
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "torch", "torch==2.13.0+cpu", True),
        ({"name": "pytorch", "version": "2.11.0", "variant": "cu130"}, "torch", "torch==2.11.0+cu130", True),
        ({"name": "pytorch", "version": "2.11.0", "variant": ""}, "torch", "torch==2.11.0", False),
        (
            {"name": "tensorflow", "version": "2.15.0", "variant": "cpu"},
            "tensorflow-cpu",
            "tensorflow-cpu==2.15.0",
            False,
        ),
        (
            {"name": "tensorflow", "version": "2.15.0", "variant": "cu122"},
            "tensorflow",
            "tensorflow[and-cuda]==2.15.0",
            False,
        ),
        # no [and-cuda] extra before 2.14: the plain package (the CUDA libraries come from the system)
        ({"name": "tensorflow", "version": "2.12.0", "variant": "cu118"}, "tensorflow", "tensorflow==2.12.0", False),
        ({"name": "tensorflow", "version": "2.15.0", "variant": ""}, "tensorflow", "tensorflow==2.15.0", False),
        ({"name": "mxnet", "version": "1.9.1", "variant": "cu112"}, "mxnet-cu112", "mxnet-cu112==1.9.1", False),
        ({"name": "mxnet", "version": "1.9.1", "variant": "cpu"}, "mxnet", "mxnet==1.9.1", False),
    ],
)
def test_plan(spec, distribution, requirement, label):
    plan = framework_plan(spec)
    assert (plan["distribution"], plan["requirement"], plan["local_label"]) == (distribution, requirement, label)


def test_flags_modules_and_default_variant():
    plans = horovod_frameworks(
        [{"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, {"name": "pytorch", "version": "2.13.0"}],
        "cpu",
    )
    assert [p["flag"] for p in plans] == ["HOROVOD_WITH_TENSORFLOW", "HOROVOD_WITH_PYTORCH"]
    assert [p["without_flag"] for p in plans] == ["HOROVOD_WITHOUT_TENSORFLOW", "HOROVOD_WITHOUT_PYTORCH"]
    assert [p["module"] for p in plans] == ["tensorflow", "torch"]
    # the extra framework without a variant takes the resolved one
    assert plans[1]["requirement"] == "torch==2.13.0+cpu"


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        ([{"name": "jax", "version": "0.4"}], "unknown framework 'jax'"),
        ([{"name": "pytorch"}], "pytorch has no version"),
        ([{"name": "pytorch", "version": "2.1"}, {"name": "pytorch", "version": "2.2"}], "more than once: pytorch"),
        (["pytorch"], "must be a dict"),
    ],
)
def test_refused(specs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        horovod_frameworks(specs)


@pytest.mark.parametrize(
    ("spec", "have", "ok"),
    [
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "2.13.0+cpu", True),
        # the CUDA build of the same version does not satisfy a +cpu pin, nor a build without a label
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "2.13.0+cu121", False),
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "2.13.0", False),
        ({"name": "pytorch", "version": "2.13.0", "variant": ""}, "2.13.0+cu121", True),
        ({"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, "2.15.0", True),
        # trailing zeros do not count (PEP 440)
        ({"name": "tensorflow", "version": "2.15", "variant": "cpu"}, "2.15.0", True),
        ({"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, "2.15.1", False),
        ({"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, None, False),
    ],
)
def test_satisfied(spec, have, ok):
    assert satisfied(framework_plan(spec), have) is ok


def test_missing_reads_the_probe_by_distribution():
    plans = horovod_frameworks(
        [{"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, {"name": "pytorch", "version": "2.13.0"}], "cpu"
    )
    assert horovod_frameworks_missing(plans, {"tensorflow-cpu": "2.15.0", "torch": None}) == ["torch==2.13.0+cpu"]
    # the plain tensorflow distribution does not count for tensorflow-cpu
    assert horovod_frameworks_missing(plans, {"tensorflow": "2.15.0", "torch": "2.13.0+cpu"}) == [
        "tensorflow-cpu==2.15.0"
    ]
    assert horovod_frameworks_missing(plans, {"tensorflow-cpu": "2.15.0", "torch": "2.13.0+cpu"}) == []


# ---------------------------------------------------------------- horovod_venv_mode: existing
from ansible_collections.gpucluster.horovod.plugins.filter.horovod_frameworks import (  # noqa: E402 - grouped by topic
    horovod_existing_env_distributions,
    horovod_existing_env_problems,
)


def _env(torch="2.11.0+cu130", module="2.11.0+cu130", cuda="13.0", variant="cu130", **kw):
    env = {
        "path": "/opt/torch/.venv",
        "exists": True,
        "error": None,
        "python_version": "3.12.3",
        "python_series": "3.12",
        "pip": "24.0",
        "distributions": {"torch": torch, "numpy": "2.4.6", "pip": "24.0"},
        "frameworks": {
            "pytorch": {
                "distribution": "torch",
                "version": torch,
                "module_version": module,
                "cuda": cuda,
                "variant": variant,
                "error": None,
                "imported": True,
            }
        },
    }
    env.update(kw)
    return env


def _plans(version="2.11.0", variant="cu130"):
    return horovod_frameworks([{"name": "pytorch", "version": version, "variant": variant}])


def test_existing_env_that_fits_has_no_problems():
    assert horovod_existing_env_problems(_env(), _plans(), "3.12", ["numpy"]) == []
    # the index's plain build (no label in its metadata) of the stack's CUDA
    assert horovod_existing_env_problems(_env(torch="2.11.0"), _plans(), "3.12", ["numpy"]) == []
    # a CPU stack takes a CUDA build (it runs on the CPU)
    assert horovod_existing_env_problems(_env(), _plans(variant="cpu"), "3.12") == []


@pytest.mark.parametrize(
    ("env", "plans", "python", "expected"),
    [
        (
            _env(exists=False),
            _plans(),
            "3.12",
            ["no Python environment at /opt/torch/.venv", "horovod_venv_mode: create"],
        ),
        (_env(error="exited 127"), _plans(), "3.12", ["cannot be read: exited 127"]),
        (_env(), _plans(), "3.11", ["Python 3.12.3", "Python 3.11", "gpucluster_python: '3.12'"]),
        (_env(pip=None), _plans(), "3.12", ["no pip", "ensurepip"]),
        (_env(frameworks={}), _plans(), "3.12", ["no PyTorch", "torch==2.11.0+cu130", "installs no framework"]),
        (
            _env(torch="2.10.0+cu128", module="2.10.0+cu128", cuda="12.8", variant="cu128"),
            _plans(),
            "3.12",
            ["torch 2.10.0+cu128", "PyTorch 2.11.0", "gpucluster_framework_version: '2.10.0'"],
        ),
        (
            _env(module="2.11.0+cu128", cuda="12.8", variant="cu128"),
            _plans(),
            "3.12",
            ["cu128 build", "cu130 build", "gpucluster_pins: {cuda: '12.8'}"],
        ),
        (
            _env(torch="2.11.0+cpu", module="2.11.0+cpu", cuda=None, variant="cpu"),
            _plans(),
            "3.12",
            ["cpu build", "not find the GPUs", "install a CUDA build of it there"],
        ),
    ],
)
def test_existing_env_problems_name_what_differs_and_the_fix(env, plans, python, expected):
    problems = horovod_existing_env_problems(env, plans, python, ["numpy"])
    assert len(problems) == 1, problems
    for text in expected:
        assert text in problems[0]


def test_existing_env_failed_import_and_missing_runtime_package():
    env = _env(distributions={"torch": "2.11.0+cu130"})
    env["frameworks"]["pytorch"].update(error="OSError: libcudnn.so.9: cannot open shared object file", variant=None)
    problems = horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"])
    assert problems[0].startswith("importing torch fails: OSError: libcudnn.so.9")
    assert "lacks numpy" in problems[1] and "horovod_pip_packages" in problems[1]
    # numpy asked for in horovod_pip_packages: installed anyway, not a problem
    assert len(horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"], ["NumPy"])) == 1


def test_existing_env_tensorflow_needs_a_cuda_build_for_a_cuda_stack():
    tf = {"distribution": "tensorflow", "version": "2.15.0", "module_version": "2.15.0", "error": None}
    plans = horovod_frameworks([{"name": "tensorflow", "version": "2.15.0", "variant": "cu122"}])
    cuda = _env(frameworks={"tensorflow": dict(tf, cuda="12.2", variant="cu122")})
    cpu = _env(frameworks={"tensorflow": dict(tf, cuda=None, variant="cpu")})
    assert horovod_existing_env_problems(cuda, plans, "3.12") == []
    assert "cpu build" in horovod_existing_env_problems(cpu, plans, "3.12")[0]


def test_existing_env_distributions_name_builds_the_plan_would_not_install():
    # the plan's exact requirement: nothing to add to the build key
    assert horovod_existing_env_distributions(_env(), _plans()) == []
    assert horovod_existing_env_distributions(_env(torch="2.13.0"), _plans("2.13.0", "")) == []
    # the index's torch 2.11.0 where the plan says torch==2.11.0+cu130
    assert horovod_existing_env_distributions(_env(torch="2.11.0"), _plans()) == ["torch==2.11.0"]
    tf_env = _env(frameworks={"tensorflow": {"distribution": "tensorflow", "version": "2.15.0"}})
    tf_cpu = horovod_frameworks([{"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}])
    tf_cuda = horovod_frameworks([{"name": "tensorflow", "version": "2.15.0", "variant": "cu122"}])
    assert horovod_existing_env_distributions(tf_env, tf_cpu) == ["tensorflow==2.15.0"]
    assert horovod_existing_env_distributions(tf_env, tf_cuda) == []


def test_existing_env_pytorch_nccl_must_be_the_stacks():
    env = _env()
    env["frameworks"]["pytorch"]["nccl"] = "2.28.9"
    assert horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"], nccl="2.28.9") == []
    assert horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"], nccl="2.28") == []
    # a CPU stack names no NCCL; a torch that could not say its NCCL is not refused for it
    assert horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"]) == []
    env["frameworks"]["pytorch"]["nccl"] = None
    assert horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"], nccl="2.28.9") == []
    env["frameworks"]["pytorch"]["nccl"] = "2.29.7"
    problems = horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"], nccl="2.28.9")
    assert len(problems) == 1
    assert "it has NCCL 2.29.7 (the NCCL PyTorch was compiled with), the stack resolved NCCL 2.28.9" in problems[0]
    assert "gpucluster_pins: {nccl: '2.29.7'}" in problems[0]
    assert "horovod_nccl_version: '2.29.7'" in problems[0]


def test_existing_env_nccl_is_the_wheel_torch_loads_when_there_is_one():
    # torch compiled with 2.28.9, its nvidia-nccl-cu13 wheel upgraded to 2.29.7: the library loaded is 2.29.7
    env = _env()
    env["frameworks"]["pytorch"]["nccl"] = "2.28.9"
    env["distributions"]["nvidia-nccl-cu13"] = "2.29.7"
    assert horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"], nccl="2.29.7") == []
    problems = horovod_existing_env_problems(env, _plans(), "3.12", ["numpy"], nccl="2.28.9")
    assert "it has NCCL 2.29.7 (the nvidia-nccl-cu13 wheel)" in problems[0]
