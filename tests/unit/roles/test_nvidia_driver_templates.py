"""The nvidia_driver role's expressions that no molecule scenario reaches (they need a GPU or Secure Boot), rendered
from the real task files with Ansible's own templar: a backslash too many in a regular expression there is a silent
mismatch, not an error."""

from __future__ import annotations

import base64
from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

TASKS = Path(__file__).resolve().parents[3] / "roles" / "nvidia_driver" / "tasks"
PROC_VERSION = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.144.03  Mon Dec 30 17:44:08 UTC 2024\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
)


def _task(file: str, name: str) -> dict:
    for task in yaml.safe_load((TASKS / file).read_text()):
        if task.get("name", "").startswith(name):
            return task
    raise KeyError(name)


def _render(expr: str, **variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expr))


def _condition(expr: str, **variables) -> bool:
    return Templar(loader=DataLoader(), variables=variables).evaluate_conditional(trust_as_template(expr))


def test_the_loaded_module_is_read_and_compared_with_the_installed_driver():
    task = _task("reboot.yml", "Assert the loaded module is now the installed driver")
    content = base64.b64encode(PROC_VERSION.encode()).decode()
    loaded = _render(task["vars"]["__nvidia_driver_loaded_now"], __nvidia_driver_proc_after={"content": content})
    assert loaded.strip() == "550.144.03"
    that = task["ansible.builtin.assert"]["that"]
    assert _condition(that, __nvidia_driver_loaded_now="550.144.03", __nvidia_driver_target="550.144.03-1")
    assert _condition(that, __nvidia_driver_loaded_now="550.144.03", __nvidia_driver_target="1:550.144.03-0ubuntu1")
    assert not _condition(that, __nvidia_driver_loaded_now="535.261.03", __nvidia_driver_target="550.144.03-1")
    assert not _condition(that, __nvidia_driver_loaded_now="", __nvidia_driver_target="550.144.03-1")


def test_modules_signed_with_another_key_are_named():
    task = _task("verify.yml", "Assert every NVIDIA module is signed with the enrolled key")
    signers = {
        "stdout_lines": [
            "module 6.1.0-28-amd64 nvidia-current.ko 0b260444ab",
            "module 6.1.0-28-amd64 nvidia-current-uvm.ko 00b260444ab",
            "module 6.1.0-28-amd64 nvidia-current-drm.ko 6f01",
            "module 6.1.0-28-amd64 nvidia-current-modeset.ko ",
            "certificate 0b260444ab",
        ]
    }
    v = task["vars"]
    modules = _render(v["__nvidia_driver_modules"], __nvidia_driver_signers=signers)
    serial = _render(v["__nvidia_driver_serial"], __nvidia_driver_signers=signers).strip()
    assert len(modules) == 4 and serial == "b260444ab"
    wrong = _render(v["__nvidia_driver_wrong"], __nvidia_driver_modules=modules, __nvidia_driver_serial=serial)
    assert wrong == [
        "module 6.1.0-28-amd64 nvidia-current-drm.ko 6f01",
        "module 6.1.0-28-amd64 nvidia-current-modeset.ko ",
    ]


def test_a_failed_reload_is_decided_again_with_its_error():
    """The fallback hands the first decision's inputs and the reload's error back to the decision filter (whose
    answer test_nvidia_driver_logic checks): rendered here without the filter."""
    task = _task("reboot.yml", "Decide again when the modules could not be loaded")
    expr = task["ansible.builtin.set_fact"]["__nvidia_driver_decision"]
    assert expr.rstrip().endswith("| gpucluster.horovod.nvidia_driver_reboot_decision }}")
    inputs_expr = expr.rsplit("|", 1)[0] + "}}"
    inputs = {"policy": "if_needed", "gpu_present": True}
    got = _render(
        inputs_expr, __nvidia_driver_decision_inputs=inputs, __nvidia_driver_reload={"rc": 1, "stderr": "x\n"}
    )
    assert got == {"policy": "if_needed", "gpu_present": True, "reload_error": "x"}
    got = _render(inputs_expr, __nvidia_driver_decision_inputs=inputs, __nvidia_driver_reload={"rc": 3, "stderr": ""})
    assert got["reload_error"] == "rc 3"
