"""roles/openmpi/tasks/build.yml: a compile that fails or runs past openmpi_build_timeout fails the role before the
prefix is packed (the wait's failed_when: false hid both before), rendered from the task file with Ansible's templar."""

from __future__ import annotations

from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

BUILD = Path(__file__).resolve().parents[3] / "roles" / "openmpi" / "tasks" / "build.yml"
TASKS = yaml.safe_load(BUILD.read_text())
JOB = {"ansible_job_id": "j1.2"}


def _task(name: str) -> dict:
    return next(t for t in TASKS if t.get("name", "").startswith(name))


def _when(task: dict, **variables) -> bool:
    conditions = task["when"] if isinstance(task["when"], list) else [task["when"]]
    templar = Templar(loader=DataLoader(), variables=variables)
    return all(templar.evaluate_conditional(trust_as_template(c)) for c in conditions)


def _message(**variables) -> str:
    templar = Templar(loader=DataLoader(), variables=variables)
    return " ".join(
        str(templar.template(trust_as_template(_task("Fail with the end")["ansible.builtin.fail"]["msg"]))).split()
    )


def _outcome(make: dict) -> str | None:
    """What the role does after the wait: None (goes on to pack) or the failure message."""
    v = {"__openmpi_make_job": JOB, "__openmpi_make": make}
    if not _when(_task("Read the end of the build log"), **v):
        return None
    tail = {"stdout_lines": ["make[2]: *** [Makefile:1] Killed"]}
    return _message(
        inventory_hostname="n1",
        openmpi_build_timeout=5400,
        _openmpi_build_root="/var/tmp/gpucluster-openmpi/4.1.4-abc",
        __openmpi_make_tail=tail,
        **v,
    )


def test_a_finished_compile_goes_on_to_pack():
    assert _outcome({"finished": 1, "rc": 0, "failed": False}) is None


def test_the_async_timeout_fails_the_role_naming_the_timeout():
    # what async_status returns once the async wrapper killed the job at the timeout (no rc; failed_when: false)
    msg = _outcome({"finished": 1, "failed": False, "msg": "Timeout exceeded"})
    assert "did not finish within openmpi_build_timeout (5400 s) and was stopped" in msg
    assert "Nothing was packed or installed" in msg and "make.log" in msg


def test_a_compile_still_running_when_the_wait_gives_up_fails_too():
    msg = _outcome({"finished": 0, "failed": False, "attempts": 362})
    assert "did not finish within openmpi_build_timeout" in msg


def test_a_failed_compile_fails_with_the_log():
    msg = _outcome({"finished": 1, "rc": 2, "failed": False})
    assert msg.startswith("Open MPI build failed on n1.") and "Killed" in msg


def test_the_wait_polls_past_the_timeout_so_the_wrapper_stops_the_job_first():
    wait = _task("Wait for the compile to finish")
    templar = Templar(loader=DataLoader(), variables={"openmpi_build_timeout": 5400})
    assert int(templar.template(trust_as_template(wait["retries"]))) * wait["delay"] > 5400


def test_nothing_runs_when_no_compile_was_started():
    assert not _when(_task("Read the end of the build log"), __openmpi_make_job={}, __openmpi_make={"skipped": True})
