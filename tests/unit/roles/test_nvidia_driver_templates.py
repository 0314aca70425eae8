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
    answer nvidia_driver/test_decisions.py checks): rendered here without the filter."""
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


# `nvidia-smi --query-gpu=index,pci.bus_id,name,driver_version --format=csv,noheader` on the H100 host whose
# outputs are kept in shared/reference/gpu-host-h100 (nvidia-smi.txt: one H100, driver 580.159.04), and on two GPUs.
SMI_ONE = ["0, 00000000:00:06.0, NVIDIA H100 80GB HBM3, 580.159.04"]
SMI_TWO = [*SMI_ONE, "1, 00000000:00:07.0, NVIDIA H100 80GB HBM3, 580.159.04"]


def _smi_check(lines: list[str], gpu_count: int, target: str | None) -> tuple[bool, str]:
    task = _task("verify.yml", "Check nvidia-smi sees every GPU with the installed driver")
    variables = {
        "inventory_hostname": "gpu1",
        "__nvidia_driver_smi": {"stdout_lines": lines},
        "__nvidia_driver_gpu_count": str(gpu_count),
    }
    if target is not None:
        variables["__nvidia_driver_target"] = target
    v = task["vars"]
    for name in ("__nvidia_driver_smi_gpus", "__nvidia_driver_smi_versions", "__nvidia_driver_expected"):
        variables[name] = _render(v[name], **variables)
    assertion = task["ansible.builtin.assert"]
    ok = all(_condition(that, **variables) for that in assertion["that"])
    return ok, " ".join(str(_render(assertion["fail_msg"], **variables)).split())


def test_nvidia_smi_check_passes_every_gpu_with_the_installed_driver():
    assert _smi_check(SMI_ONE, 1, "580.159.04-1")[0]
    assert _smi_check(SMI_TWO, 2, "1:580.159.04-0ubuntu1")[0]
    # the driver was already there (nothing installed this run): the count and one version still count
    assert _smi_check(SMI_TWO, 2, None)[0]


def test_nvidia_smi_check_names_a_missing_gpu_and_another_driver():
    ok, msg = _smi_check(SMI_ONE, 2, "580.159.04-1")
    assert not ok
    assert "drives 1 GPU(s) with driver 580.159.04; the host has 2 NVIDIA GPU(s)" in msg
    assert "fallen off the bus" in msg
    ok, msg = _smi_check(SMI_ONE, 1, "550.163.01-1")
    assert not ok and "installed 550.163.01" in msg
    mixed = [*SMI_ONE, "1, 00000000:00:07.0, NVIDIA H100 80GB HBM3, 575.57.08"]
    assert not _smi_check(mixed, 2, None)[0]
    # an error line instead of GPUs (NVML cannot talk to the driver) counts no GPU
    ok, msg = _smi_check(["Unable to determine the device handle for GPU0000:00:06.0: Unknown Error"], 1, None)
    assert not ok and "drives 0 GPU(s) with driver none" in msg
