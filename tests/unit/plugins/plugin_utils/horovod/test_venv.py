"""The horovod role's environment decisions (plugin_utils/horovod/venv.py and the filters in filter/horovod_venv.py)."""

from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter import horovod_venv as flt
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod import venv
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.frameworks import frameworks_plan

TORCH_CPU = {"name": "pytorch", "version": "2.13.0", "variant": "cpu"}
TF_CPU = {"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}


def test_pip_sources_default_index_gives_no_options():
    assert venv.pip_sources({"no_index": False}) == {"args": [], "env": {}, "framework_args": []}


def test_pip_sources_mirror_extra_indexes_find_links_and_trusted_hosts():
    got = venv.pip_sources(
        {
            "no_index": False,
            "index_url": "http://mirror.test/simple",
            "extra_index_url": ["http://extra-a.test/simple", "", "http://extra-b.test/simple"],
            "find_links": "/srv/wheels",
            "trusted_hosts": ["mirror.test"],
            "wheelhouse": "/var/cache/gpucluster/horovod/wheelhouse",
            "framework_index_url": "http://torch.test/whl/cpu",
        }
    )
    assert got["args"] == [
        "--index-url", "http://mirror.test/simple",
        "--extra-index-url", "http://extra-a.test/simple",
        "--extra-index-url", "http://extra-b.test/simple",
        "--find-links", "/srv/wheels",
        "--find-links", "/var/cache/gpucluster/horovod/wheelhouse",
        "--trusted-host", "mirror.test",
    ]  # fmt: skip
    # the pip that Horovod's setup.py starts reads the same sources from its environment
    assert got["env"] == {
        "PIP_INDEX_URL": "http://mirror.test/simple",
        "PIP_EXTRA_INDEX_URL": "http://extra-a.test/simple http://extra-b.test/simple",
        "PIP_FIND_LINKS": "/srv/wheels /var/cache/gpucluster/horovod/wheelhouse",
        "PIP_TRUSTED_HOST": "mirror.test",
    }
    assert got["framework_args"] == [*got["args"], "--extra-index-url", "http://torch.test/whl/cpu"]


def test_pip_sources_no_index_consults_find_links_only():
    got = venv.pip_sources(
        {
            "no_index": True,
            "index_url": "http://mirror.test/simple",
            "extra_index_url": "http://extra.test/simple",
            "find_links": [],
            "wheelhouse": "/var/cache/wh",
            "framework_index_url": "http://torch.test/whl/cpu",
        }
    )
    assert got["args"] == ["--no-index", "--find-links", "/var/cache/wh"]
    assert got["env"] == {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "/var/cache/wh"}
    # never the framework index without an index
    assert got["framework_args"] == got["args"]


def test_pip_sources_filter_refuses_a_non_dict():
    with pytest.raises(AnsibleFilterError, match="must be a dict"):
        flt.horovod_pip_sources(["--no-index"])


def _probe(marker, versions, rc=0):
    return {"rc": rc, "stdout": json.dumps({"marker": marker, "versions": versions})}


def test_venv_state_of_a_complete_venv():
    plans = frameworks_plan([TORCH_CPU])
    state = venv.venv_state(_probe(True, {"torch": "2.13.0+cpu", "numpy": "2.3.1"}), plans, ["numpy"], False)
    assert state == {
        "wheel_installed": True,
        "frameworks_missing": [],
        "runtime_missing": [],
        "missing": [],
        "complete": True,
    }


def test_venv_state_names_the_wrong_build_and_the_missing_runtime_package():
    plans = frameworks_plan([TORCH_CPU, TF_CPU])
    # the CUDA build of torch does not satisfy torch==2.13.0+cpu; tensorflow-cpu is absent; numpy too
    state = venv.venv_state(
        _probe(False, {"torch": "2.13.0", "tensorflow-cpu": None, "numpy": None}), plans, ["numpy"], False
    )
    assert state["missing"] == ["torch==2.13.0+cpu", "tensorflow-cpu==2.15.0", "numpy"]
    assert (state["wheel_installed"], state["complete"]) == (False, False)


def test_venv_state_of_an_existing_environment_installs_nothing_but_horovod():
    plans = frameworks_plan([TORCH_CPU])
    state = venv.venv_state(_probe(False, {"torch": "2.12.0", "numpy": None}), plans, ["numpy"], True)
    assert state["missing"] == [] and state["frameworks_missing"] == ["torch==2.13.0+cpu"]
    assert state["complete"] is False
    assert venv.venv_state(_probe(True, {}), plans, ["numpy"], True)["complete"] is True


@pytest.mark.parametrize(
    "probe",
    [{}, {"rc": 2, "stdout": ""}, {"rc": 0, "stdout": "not json"}, {"skipped": True}, {"rc": 0, "stdout": "[1]"}],
)
def test_venv_state_reads_a_probe_that_did_not_run_as_an_empty_venv(probe):
    plans = frameworks_plan([TORCH_CPU])
    state = flt.horovod_venv_state(probe, plans, ["numpy"], False)
    assert state["missing"] == ["torch==2.13.0+cpu", "numpy"] and state["complete"] is False


def test_build_requirements_cffi_for_pytorch_only():
    assert venv.build_requirements(frameworks_plan([TF_CPU]), []) == {
        "python_packages": ["setuptools", "wheel", "packaging", "pyyaml", "psutil", "cloudpickle"],
        "patches": [],
    }
    got = venv.build_requirements(frameworks_plan([TORCH_CPU]), ["cxx17"])
    assert got["python_packages"][-1] == "cffi>=1.4.0" and got["patches"] == ["cxx17"]


@pytest.mark.parametrize(
    ("extra_version", "patches", "expected"),
    [
        ("2.13.0", [], ["cxx17"]),  # an extra PyTorch >= 2.1 needs C++17 the stack resolved only for the primary
        ("2.1", ["x"], ["x", "cxx17"]),
        ("2.0.1", [], []),
        ("2.13.0", ["cxx17"], ["cxx17"]),  # not twice
    ],
)
def test_build_requirements_an_extra_pytorch_adds_cxx17(extra_version, patches, expected):
    plans = frameworks_plan([TF_CPU, {"name": "pytorch", "version": extra_version, "variant": "cpu"}])
    got = flt.horovod_build_requirements(plans, patches)
    assert got["patches"] == expected and "cffi>=1.4.0" in got["python_packages"]


def test_build_requirements_the_primary_pytorch_does_not_add_cxx17():
    # the stack decides the primary framework's patches (cxx17 is in horovod_patches when it needs it)
    assert venv.build_requirements(frameworks_plan([TORCH_CPU]), [])["patches"] == []


def test_build_requirements_refuses_no_plans():
    with pytest.raises(AnsibleFilterError, match="non-empty"):
        flt.horovod_build_requirements([], [])


def test_env_access_of_the_roles_own_venv():
    got = flt.horovod_env_access({}, False, "/opt/hvd", "/var/cache/held.py")
    assert got == {
        "owner": "root",
        "runas": [],
        "pip_install": ["/opt/hvd/bin/python", "-m", "pip", "install"],
        "pip_env": {"PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        "python_env": {},
    }


def test_env_access_of_an_existing_environment_runs_pip_as_its_owner():
    got = venv.env_access({"owner": "ml", "python": "/opt/torch/.venv/bin/python"}, True, "/opt/torch/.venv", "/h.py")
    assert got["runas"] == ["runuser", "-u", "ml", "--"]
    assert got["pip_install"] == ["runuser", "-u", "ml", "--", "/opt/torch/.venv/bin/python", "/h.py"]
    # pip's cache would be root's; root's Python writes no byte-code into somebody else's environment
    assert got["pip_env"] == {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1"}
    assert got["python_env"] == {"PYTHONDONTWRITEBYTECODE": "1"}


@pytest.mark.parametrize("env", [{"owner": "root"}, {"owner": None}, {}])
def test_env_access_of_an_existing_environment_of_root(env):
    got = venv.env_access(env, True, "/opt/env", "/h.py")
    assert got["owner"] == "root" and got["runas"] == [] and got["pip_install"] == ["/opt/env/bin/python", "/h.py"]
    assert "PIP_NO_CACHE_DIR" not in got["pip_env"] and got["python_env"] == {"PYTHONDONTWRITEBYTECODE": "1"}


def test_env_access_an_owner_of_an_environment_the_role_does_not_use_is_ignored():
    assert venv.env_access({"owner": "ml"}, False, "/opt/hvd", "/h.py")["owner"] == "root"


def test_env_access_needs_the_path():
    with pytest.raises(AnsibleFilterError, match="venv"):
        flt.horovod_env_access({}, False, "", "")


def test_build_requirements_the_roles_fixes_come_last_and_once():
    plans = frameworks_plan([TORCH_CPU])
    got = flt.horovod_build_requirements(plans, ["cxx17"], ["elastic-reinit-tunables"])
    assert got["patches"] == ["cxx17", "elastic-reinit-tunables"]
    assert venv.build_requirements(plans, ["elastic-reinit-tunables"], ["elastic-reinit-tunables"])["patches"] == [
        "elastic-reinit-tunables"
    ]
