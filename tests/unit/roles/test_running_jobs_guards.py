"""Each change that running training jobs depend on asks roles/_common/tasks/running_jobs.yml first (issue 39), with
the role's own policy, and only when the change is about to happen: the order of the tasks and their conditions."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROLES = Path(__file__).resolve().parents[3] / "roles"


def _tasks(path):
    return yaml.safe_load((ROLES / path).read_text(encoding="utf-8"))


def _index(tasks, predicate, what):
    found = [i for i, task in enumerate(tasks) if predicate(task)]
    assert found, what
    return found[0]


def _is_guard(task):
    include = task.get("ansible.builtin.include_role") or {}
    return include.get("name") == "gpucluster.horovod._common" and include.get("tasks_from") == "running_jobs"


@pytest.mark.parametrize(
    ("path", "role", "changes"),
    [
        # the venv: every task that installs into it comes after the guard
        (
            "horovod/tasks/install.yml",
            "horovod",
            # the includes of tasks/install_venv.yml and tasks/install_wheel.yml (test below)
            ["Install what the venv lacks", "Install the Horovod wheel where the venv lacks"],
        ),
        # the container: the task that runs it (and may replace it)
        (
            "horovod_container/tasks/configure.yml",
            "horovod_container",
            ["Ensure the training container runs on the host network"],
        ),
        # sshd's and logind's drop-ins, whose handlers reload sshd and restart logind
        (
            "passwordless_ssh/tasks/configure.yml",
            "passwordless_ssh",
            [
                "Ensure sshd listens on port 22 and the extra port",
                "Ensure no extra sshd port is left",
                "Keep the training user's IPC objects",
                "Ensure no logind drop-in is left",
            ],
        ),
    ],
)
def test_the_guard_comes_before_the_change_with_the_roles_policy(path, role, changes):
    tasks = _tasks(path)
    guard = _index(tasks, _is_guard, f"{path} asks running_jobs.yml")
    for name in changes:
        change = _index(tasks, lambda task, name=name: str(task.get("name", "")).startswith(name), name)
        assert guard < change, f"{name} comes before the running-jobs guard in {path}"
    task = tasks[guard]
    assert task["vars"]["common_running_jobs_policy"] == f"{{{{ {role}_running_jobs }}}}"
    assert task["vars"]["common_running_jobs_wait_s"] == f"{{{{ {role}_running_jobs_wait_s | int }}}}"
    assert task["vars"]["common_running_jobs_change"]
    # only when the change is about to happen: never unconditionally
    assert task.get("when")


def test_the_venv_changes_are_in_the_files_the_guarded_includes_include():
    install = _tasks("horovod/tasks/install.yml")
    for include, name in (
        ("install_venv.yml", "Ensure the framework and the runtime packages are in the venv"),
        ("install_wheel.yml", "Install the Horovod wheel of build key"),
    ):
        _index(
            install, lambda task, f=include: (task.get("ansible.builtin.include_tasks") or {}).get("file") == f, include
        )
        _index(_tasks(f"horovod/tasks/{include}"), lambda task, n=name: str(task.get("name", "")).startswith(n), name)


def test_the_container_probe_uses_the_arguments_of_the_task_that_runs_it():
    tasks = _tasks("horovod_container/tasks/configure.yml")
    probe = _index(tasks, lambda task: task.get("register") == "__horovod_container_would", "the check-mode probe")
    run = _index(tasks, lambda task: task.get("register") == "__horovod_container_run", "the container task")
    assert tasks[probe]["check_mode"] is True
    # the YAML anchor: one set of arguments for both, so the probe predicts exactly what the run does
    assert tasks[probe]["community.docker.docker_container"] == tasks[run]["community.docker.docker_container"]
    assert tasks[probe]["vars"] == tasks[run]["vars"]


def test_the_drop_in_tasks_write_the_contents_the_guard_compares():
    tasks = _tasks("passwordless_ssh/tasks/configure.yml")
    flat = []
    for task in tasks:
        flat.extend(task.get("block", [task]))
    contents = [
        task["ansible.builtin.copy"]["content"]
        for task in flat
        if "ansible.builtin.copy" in task and "dropin" in task["ansible.builtin.copy"]["dest"]
    ]
    assert sorted(contents) == [
        "{{ _passwordless_ssh_logind_dropin_content }}",
        "{{ _passwordless_ssh_sshd_dropin_content }}",
    ]


@pytest.mark.parametrize("role", ["horovod", "horovod_container", "passwordless_ssh"])
def test_the_policy_defaults_to_the_cluster_wide_variable(role):
    defaults = yaml.safe_load((ROLES / role / "defaults" / "main.yml").read_text(encoding="utf-8"))
    assert defaults[f"{role}_running_jobs"] == "{{ gpucluster_running_jobs | default('refuse') }}"
    assert defaults[f"{role}_running_jobs_wait_s"] == "{{ gpucluster_running_jobs_wait_s | default(1800) }}"
