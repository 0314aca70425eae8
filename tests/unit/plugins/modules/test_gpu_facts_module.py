"""gpu_facts module: tools missing -> empty list, no failure; tools present -> parsed and merged facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpucluster.horovod.plugins.modules import gpu_facts

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "gpu_facts"


def _run(monkeypatch, capsys, tools, outputs, files):
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, *a, **k: tools.get(name))

    def run_command(self, argv, **kwargs):
        key = " ".join(argv[1:]) if argv[0].endswith("nvidia-smi") else argv[0].rsplit("/", 1)[-1]
        return outputs.get(key, (1, "", "unexpected " + key))

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(gpu_facts, "_read", lambda path: files.get(path, ""))
    with patch_module_args({"_ansible_check_mode": True}), pytest.raises(SystemExit):
        gpu_facts.main()
    return json.loads(capsys.readouterr().out)


def test_host_without_gpus_or_tools(monkeypatch, capsys):
    out = _run(monkeypatch, capsys, {}, {}, {})
    facts = out["ansible_facts"]["gpucluster_gpu"]
    assert out["changed"] is False
    assert "failed" not in out
    assert facts["gpus"] == [] and facts["gpu_count"] == 0
    assert facts["driver_version"] is None and facts["secure_boot"] is None


def test_host_with_h100_driver_and_secure_boot(monkeypatch, capsys):
    smi_query = "--query-gpu=" + ",".join(gpu_facts.parse.SMI_FIELDS) + " --format=csv,noheader,nounits"
    tools = {"lspci": "/usr/bin/lspci", "nvidia-smi": "/usr/bin/nvidia-smi", "mokutil": "/usr/bin/mokutil"}
    outputs = {
        "lspci": (
            0,
            "18:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n",
            "",
        ),
        smi_query: (0, (FIX / "smi_query_h100.csv").read_text(), ""),
        "": (0, (FIX / "smi_header_535.txt").read_text(), ""),
        "mokutil": (0, (FIX / "mokutil_enabled.txt").read_text(), ""),
    }
    files = {
        "/proc/driver/nvidia/version": (FIX / "proc_version_open.txt").read_text(),
        "/proc/modules": (FIX / "proc_modules_nouveau.txt").read_text(),
    }
    facts = _run(monkeypatch, capsys, tools, outputs, files)["ansible_facts"]["gpucluster_gpu"]
    assert facts["gpu_count"] == 4
    assert facts["models"] == ["NVIDIA H100 80GB HBM3"]
    assert facts["gpus"][0]["pci_id"] == "10de:2330"
    assert facts["kernel_module"] == "open"
    assert facts["driver_version"] == "550.54.15"
    assert facts["cuda_driver_version"] == "12.2"
    assert facts["nouveau_loaded"] is True
    assert facts["secure_boot"] is True


def test_old_driver_retries_without_compute_cap(monkeypatch, capsys):
    fields = [f for f in gpu_facts.parse.SMI_FIELDS if f != "compute_cap"]
    tools = {"nvidia-smi": "/usr/bin/nvidia-smi"}
    outputs = {
        "--query-gpu=" + ",".join(gpu_facts.parse.SMI_FIELDS) + " --format=csv,noheader,nounits": (
            6,
            (FIX / "smi_query_old_driver.txt").read_text(),
            "",
        ),
        "--query-gpu=" + ",".join(fields) + " --format=csv,noheader,nounits": (
            0,
            (FIX / "smi_query_k80_no_cc.csv").read_text(),
            "",
        ),
        "": (0, "", ""),
    }
    facts = _run(monkeypatch, capsys, tools, outputs, {})["ansible_facts"]["gpucluster_gpu"]
    assert facts["gpus"][0]["name"] == "Tesla K80"
    assert facts["gpus"][0]["compute_cap"] is None
    assert facts["driver_version"] == "470.256.02"


def test_mismatch_after_an_upgrade_without_reload(monkeypatch, capsys):
    """The userspace was upgraded (580.95) while the old module (550.54.15) stays loaded: nvidia-smi fails, the facts
    keep the loaded version from /proc and say why nvidia-smi failed."""
    smi_query = "--query-gpu=" + ",".join(gpu_facts.parse.SMI_FIELDS) + " --format=csv,noheader,nounits"
    tools = {"lspci": "/usr/bin/lspci", "nvidia-smi": "/usr/bin/nvidia-smi"}
    outputs = {
        "lspci": (0, (FIX / "lspci_hgx_h100.txt").read_text(), ""),
        smi_query: (18, (FIX / "smi_mismatch_580.txt").read_text(), ""),
    }
    files = {"/proc/driver/nvidia/version": (FIX / "proc_version_open.txt").read_text()}
    facts = _run(monkeypatch, capsys, tools, outputs, files)["ansible_facts"]["gpucluster_gpu"]
    assert facts["driver_mismatch"] is True
    assert facts["nvml_error"] == "Failed to initialize NVML: Driver/library version mismatch"
    assert facts["nvml_library_version"] == "580.95"
    assert facts["driver_version"] == "550.54.15"  # the loaded module's, from /proc
    assert facts["gpu_count"] == 8 and facts["gpus"][0]["source"] == "lspci"
    assert facts["nvswitch_count"] == 4


def test_no_mismatch_when_nvidia_smi_runs(monkeypatch, capsys):
    smi_query = "--query-gpu=" + ",".join(gpu_facts.parse.SMI_FIELDS) + " --format=csv,noheader,nounits"
    tools = {"nvidia-smi": "/usr/bin/nvidia-smi"}
    outputs = {smi_query: (0, (FIX / "smi_query_h100.csv").read_text(), ""), "": (0, "", "")}
    facts = _run(monkeypatch, capsys, tools, outputs, {})["ansible_facts"]["gpucluster_gpu"]
    assert facts["driver_mismatch"] is False and facts["nvml_error"] is None and facts["nvml_library_version"] is None
