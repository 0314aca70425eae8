"""validate_inputs action: role defaults under the host's variables, spec + semantic checks, one report."""

from __future__ import annotations

from unittest.mock import MagicMock

import pytest
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.gpucluster.horovod.plugins.action import validate_inputs as vi

ALL_ROLES = [
    {"role": "preflight", "tags": []},
    "passwordless_ssh",
    "openmpi",
    "horovod",
    {"role": "horovod_benchmark", "tags": ["benchmark"]},
]


def run(args, host_vars=None, run_tags=None, skip_tags=None, me="n1"):
    task = MagicMock()
    task.args = args
    task.async_val = 0
    task.check_mode = False
    loader = DataLoader()
    task_vars = {
        "inventory_hostname": me,
        "groups": {"all": ["n1", "n2", "n3"], "hvd_nodes": ["n1", "n2", "n3"], "ungrouped": []},
        "ansible_play_hosts_all": ["n1", "n2", "n3"],
        "ansible_play_hosts": ["n1", "n2", "n3"],
        "ansible_facts": {
            "distribution": "Debian",
            "distribution_major_version": "12",
            "os_family": "Debian",
            "processor_vcpus": 2,
            "gpucluster_gpu": {"gpu_count": 0, "gpus": []},
        },
        "ansible_run_tags": run_tags or ["all"],
        "ansible_skip_tags": skip_tags or [],
        **(host_vars or {}),
    }
    templar = Templar(loader=loader, variables=task_vars)
    action = vi.ActionModule(task, MagicMock(), templar, loader=loader, templar=templar, shared_loader_obj=None)
    return action.run(task_vars=task_vars)


def test_defaults_of_every_role_pass():
    result = run({"roles": ALL_ROLES})
    assert "failed" not in result, result["msg"]
    assert result["checked_roles"] == ["preflight", "passwordless_ssh", "openmpi", "horovod", "horovod_benchmark"]
    assert result["problems"] == []


def test_every_problem_of_every_role_at_once_each_line_naming_host_and_variable():
    host_vars = {
        "gpucluster_training_user": "root",
        "passwordless_ssh_uid": -5,
        "openmpi_version": "4.1.6",
        "horovod_venv": "relative/venv",
        "horovod_build_jobs": 0,
        "horovod_benchmark_sizes": "4K,lots",
        "horovod_benchmark_iters": 0,
        "horovod_benchmark_launcher": "nosuch",
    }
    result = run({"roles": ALL_ROLES}, host_vars)
    assert result["failed"] is True
    lines = result["msg"].splitlines()
    assert lines[0].startswith("8 input problem(s) on n1 (")
    assert all(line.startswith("  - n1: ") for line in lines[1:])
    # One root cause, five roles' variables: one line naming all of them.
    assert any(
        "preflight_training_user, passwordless_ssh_user, openmpi_user, horovod_user, horovod_benchmark_user='root'"
        in line
        for line in lines
    )
    for needle in [
        "passwordless_ssh_uid=-5: a uid/gid cannot be negative",
        "openmpi_version='4.1.6': openmpi_install_method is distro",
        "horovod_venv='relative/venv': not an absolute path",
        "horovod_build_jobs=0: must be greater than 0",
        "horovod_benchmark_sizes='4K,lots': 'lots' is not a size",
        "horovod_benchmark_iters=0",
        "horovod_benchmark_launcher='nosuch': not a host of the inventory. Valid: one of n1, n2, n3.",
    ]:
        assert any(needle in line for line in lines), needle
    assert {p["variable"] for p in result["problems"]} >= {"horovod_venv", "passwordless_ssh_uid"}


def test_a_value_that_cannot_be_templated_is_a_problem_not_a_crash():
    result = run({"roles": ["horovod"]}, {"horovod_venv": trust_as_template("{{ no_such_variable }}")})
    assert result["failed"] is True
    assert "horovod_venv=" in result["msg"] and "cannot be evaluated" in result["msg"]


def test_fail_false_returns_problems_as_data():
    result = run({"roles": ["horovod"], "fail": False}, {"horovod_build_jobs": 0})
    assert "failed" not in result or result["failed"] is False
    assert [p["variable"] for p in result["problems"]] == ["horovod_build_jobs"]


def test_roles_left_out_by_tags_are_not_checked():
    bad = {"horovod_build_jobs": 0, "horovod_benchmark_iters": 0}
    result = run({"roles": ALL_ROLES}, bad, skip_tags=["benchmark"])
    assert "horovod_benchmark" not in result["checked_roles"]
    assert [p["variable"] for p in result["problems"]] == ["horovod_build_jobs"]
    result = run({"roles": ALL_ROLES}, bad, run_tags=["benchmark"])
    assert result["checked_roles"] == ["preflight", "horovod_benchmark"]


def test_a_typo_in_a_variable_name_is_warned_about():
    result = run({"roles": ALL_ROLES, "warn_unknown": True}, {"horovod_buid_jobs": 3, "gpucluster_framwork": "x"})
    assert "failed" not in result
    assert any("horovod_buid_jobs is not an input" in w and "horovod_build_jobs" in w for w in result["warnings"])
    assert any("gpucluster_framwork" in w and "gpucluster_framework" in w for w in result["warnings"])


def test_gpu_pin_on_cpu_host_is_a_warning():
    result = run({"roles": ["preflight"]}, {"gpucluster_pins": {"cuda": "12.4"}})
    assert "failed" not in result
    assert any("preflight_pins" in w and "no NVIDIA GPU" in w for w in result["warnings"])


@pytest.mark.parametrize(
    ("tags", "run_tags", "skip_tags", "selected"),
    [
        ([], ["openmpi"], [], True),
        (["openmpi"], ["all"], [], True),
        (["openmpi"], ["horovod"], [], False),
        (["openmpi"], ["all"], ["openmpi"], False),
        (["benchmark"], ["tagged"], [], True),
        (["always"], ["horovod"], ["always"], True),
    ],
)
def test_selected_by_tags(tags, run_tags, skip_tags, selected):
    assert vi.selected_by_tags(tags, run_tags, skip_tags) is selected


def test_unknown_role_is_an_error_of_the_task():
    with pytest.raises(Exception, match="no role 'nosuchrole'"):
        run({"roles": ["nosuchrole"]})


def test_horovod_slots_host_variable_is_checked_with_the_benchmark():
    result = run({"roles": ["horovod_benchmark"]}, {"horovod_slots": 0})
    assert result["failed"] is True
    assert "n1: horovod_slots=0: not a worker count for n1" in result["msg"]


def test_os_specific_role_data_is_loaded_for_the_host():
    # vars/Debian-12.yml says Debian 12 ships R535: a distro install of 580 there is refused.
    gpu = {"gpu_count": 1, "gpus": [{"name": "NVIDIA H100 80GB HBM3", "compute_cap": "9.0"}], "driver_version": None}
    host_vars = {"nvidia_driver_branch": "580", "nvidia_driver_gpu_facts": gpu}
    result = run({"roles": ["nvidia_driver"]}, host_vars)
    assert result["failed"] is True
    assert "n1: nvidia_driver_branch 580 is not what Debian 12 ships (R535)" in result["msg"]


def test_a_role_with_when_is_checked_only_where_that_variable_is_true():
    roles = [{"role": "docker", "tags": ["docker"], "when": "gpucluster_run_in_containers"}]
    bad = {"docker_install_method": "repo"}  # no key sha256: an error where the role is checked
    assert run({"roles": roles}, host_vars=bad)["checked_roles"] == []
    off = run({"roles": roles}, host_vars={**bad, "gpucluster_run_in_containers": False})
    assert off["checked_roles"] == [] and "failed" not in off
    on = run({"roles": roles}, host_vars={**bad, "gpucluster_run_in_containers": trust_as_template("{{ 1 == 1 }}")})
    assert on["checked_roles"] == ["docker"]
    assert on.get("failed") and [p["variable"] for p in on["problems"]] == ["docker_repo_key_sha256"]


def test_defaults_that_read_the_roles_os_data_are_evaluated_with_it():
    # horovod_container_packages defaults to the role's per-OS list (vars/Debian.yml), base image to the release.
    result = run({"roles": ["horovod_container"]}, {"gpucluster_run_in_containers": True})
    assert "failed" not in result, result["msg"]
    assert result["checked_roles"] == ["horovod_container"]
    bad = run({"roles": ["horovod_container"]}, {"horovod_container_ssh_port": 22})
    assert [p["variable"] for p in bad["problems"]] == ["horovod_container_ssh_port"]


CONTAINER_ROLES = [
    {"role": "preflight", "tags": []},
    {"role": "docker", "tags": ["docker"], "when": "gpucluster_run_in_containers"},
    {"role": "horovod_container", "tags": ["horovod_container"], "when": "gpucluster_run_in_containers"},
]


def test_a_role_not_applied_still_has_its_argument_spec_checked_and_its_inputs_named():
    # Tried on the sandbox (issue 31): these passed without a word because docker is not in a run without containers.
    bad = {"docker_install_method": "snap", "docker_daemon_settings": "not-a-dict"}
    result = run({"roles": CONTAINER_ROLES}, bad)
    assert result["failed"] is True
    assert result["checked_roles"] == ["preflight"]
    assert result["not_applied"] == {
        "docker": "gpucluster_run_in_containers is False",
        "horovod_container": "gpucluster_run_in_containers is False",
    }
    assert sorted(p["variable"] for p in result["problems"]) == ["docker_daemon_settings", "docker_install_method"]
    assert "docker_install_method='snap'" in result["msg"] and "distro, repo" in result["msg"]
    assert result["warnings"] == [
        "n1: docker_daemon_settings, docker_install_method: set, but this run does not apply the docker role here"
        " (gpucluster_run_in_containers is False)"
    ]


def test_valid_inputs_of_a_role_not_applied_only_warn_and_nothing_set_says_nothing():
    result = run({"roles": CONTAINER_ROLES}, {"docker_install_method": "repo"})
    assert "failed" not in result, result["msg"]  # repo without a key is the role's semantic check: not run here
    assert [w for w in result["warnings"] if "docker_install_method: set, but" in w]
    quiet = run({"roles": CONTAINER_ROLES})
    assert "failed" not in quiet and not quiet.get("warnings")


def test_run_in_containers_that_is_no_boolean_is_refused_not_taken_as_false():
    result = run({"roles": CONTAINER_ROLES}, {"gpucluster_run_in_containers": "maybe"})
    assert result["failed"] is True
    assert [p["variable"] for p in result["problems"]] == ["preflight_run_in_containers"]
    assert "'maybe'" in result["msg"]
    assert result["not_applied"]["docker"] == "gpucluster_run_in_containers is 'maybe'"
    for value in (True, "yes", "true"):
        on = run({"roles": CONTAINER_ROLES}, {"gpucluster_run_in_containers": value})
        assert "failed" not in on and on["checked_roles"] == ["preflight", "docker", "horovod_container"], value


@pytest.mark.parametrize(
    ("host_vars", "valid"),
    [
        ({"horovod_benchmark_framework": "tensorflow"}, False),
        ({"horovod_benchmark_framework": "pytorch"}, True),
        ({"gpucluster_stack": {"framework": "tensorflow"}}, True),  # both follow the stack
        (
            {
                "horovod_benchmark_framework": "tensorflow",
                "horovod_extra_frameworks": [{"name": "tensorflow", "version": "2.15.1", "variant": "cpu"}],
            },
            True,
        ),
    ],
)
def test_the_benchmark_framework_must_be_one_horovod_is_built_for(host_vars, valid):
    result = run({"roles": ALL_ROLES}, host_vars)
    if valid:
        assert "failed" not in result, result["msg"]
        return
    assert result["failed"] is True
    assert [(p["role"], p["variable"]) for p in result["problems"]] == [
        ("horovod_benchmark", "horovod_benchmark_framework")
    ]
    assert "Horovod is built for pytorch here" in result["msg"]
    # Without the horovod role in the run (--tags benchmark), there is nothing to compare with.
    alone = run({"roles": ALL_ROLES}, host_vars, run_tags=["benchmark"])
    assert "failed" not in alone, alone["msg"]


def test_driver_inputs_that_exist_nowhere_are_refused_on_a_host_without_gpu():
    # Tried on the sandbox (issue 31): passed because the driver checks ran only on hosts that get a driver.
    result = run({"roles": ["nvidia_driver"]}, {"nvidia_driver_kernel_module": "closed", "nvidia_driver_branch": "999"})
    assert result["failed"] is True
    assert sorted(p["variable"] for p in result["problems"]) == ["nvidia_driver_branch", "nvidia_driver_kernel_module"]
    assert "nvidia_driver_kernel_module 'closed' is not valid; valid: open, proprietary" in result["msg"]
    assert "nvidia_driver_branch '999' is not a known NVIDIA driver branch" in result["msg"]
    # ... and named as unused there (the role skips a host without a GPU).
    assert any("nvidia_driver_force" in w and "skips it" in w for w in result["warnings"])
    fine = run({"roles": ["nvidia_driver"]}, {"nvidia_driver_kernel_module": "open", "nvidia_driver_branch": "580"})
    assert "failed" not in fine, fine["msg"]


def test_a_role_site_yml_applies_in_two_plays_is_checked_once():
    roles = [
        {"role": "nccl", "tags": ["gpu_libs", "nccl"]},
        {"role": "nccl", "tags": ["nccl_tests"], "when": "nccl_tests_build"},
    ]
    bad = {"nccl_tests_build": True, "nccl_tests_dir": "relative", "nccl_force": True}
    both = run({"roles": roles}, bad)
    assert both["checked_roles"] == ["nccl"] and both["not_applied"] == {}
    assert [p["variable"] for p in both["problems"]] == ["nccl_tests_source_sha256", "nccl_tests_dir"]  # once each
    # --tags nccl_tests without nccl_tests_build: the play does not apply the role; its spec is still checked.
    alone = run({"roles": roles}, {"nccl_version": "2.22.3"}, run_tags=["nccl_tests"])
    assert alone["checked_roles"] == [] and alone["not_applied"] == {"nccl": "nccl_tests_build is False"}
    assert any("nccl_version: set, but this run does not apply the nccl role" in w for w in alone["warnings"])


def test_inputs_are_checked_once_per_run_unless_they_changed():
    host_vars = {"horovod_build_jobs": 3, "passwordless_ssh_uid": 2001}
    first = run({"roles": ALL_ROLES, "record": True}, host_vars)
    assert "failed" not in first, first["msg"]
    assert set(first["fingerprints"]) == {"preflight", "passwordless_ssh", "openmpi", "horovod", "horovod_benchmark"}
    checked = {"gpucluster_inputs_checked": first["fingerprints"]}
    # The role's own preflight later in the run: nothing to check again.
    again = run({"roles": ["horovod"]}, {**host_vars, **checked})
    assert again["checked_roles"] == [] and again["already_checked"] == ["horovod"]
    assert "checked by the first play of this run" in again["msg"]
    # Another value for the role (role parameters, set_fact): checked again, and refused when bad.
    changed = run({"roles": ["horovod"]}, {**host_vars, **checked, "horovod_build_jobs": 0})
    assert changed["already_checked"] == [] and changed["failed"] is True
    # A role the first play did not check (used alone) is checked.
    alone = run({"roles": ["docker"]}, {**host_vars, **checked})
    assert alone["checked_roles"] == ["docker"] and alone["already_checked"] == []
    # Without record, nothing is fingerprinted; the first play itself never skips.
    assert run({"roles": ["horovod"]}, host_vars)["fingerprints"] == {}
    rerun = run({"roles": ["horovod"], "record": True}, {**host_vars, **checked})
    assert rerun["checked_roles"] == ["horovod"]
