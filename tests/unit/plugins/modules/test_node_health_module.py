"""node_health module: the commands it runs, what it returns on healthy, faulty and GPU-less hosts (fixtures in
tests/unit/fixtures/node_health/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpucluster.horovod.plugins.modules import node_health

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "node_health"
GPU_TOOLS = {
    "nvidia-smi": "/usr/bin/nvidia-smi",
    "journalctl": "/usr/bin/journalctl",
    "lspci": "/usr/bin/lspci",
    "systemctl": "/usr/bin/systemctl",
}


def fixture(name: str):
    return (0, (FIX / name).read_text(encoding="utf-8"), "")


def _run(monkeypatch, capsys, tools, outputs, args=None):
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, *a, **k: tools.get(name))
    calls = []

    def run_command(self, argv, **kwargs):
        key = " ".join([argv[0].rsplit("/", 1)[-1], *argv[1:]])
        calls.append(key)
        return outputs.get(key, (1, "", "unexpected " + key))

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    with patch_module_args({"_ansible_check_mode": True, **(args or {})}), pytest.raises(SystemExit):
        node_health.main()
    out = json.loads(capsys.readouterr().out)
    out["_calls"] = calls
    return out


def healthy_outputs():
    return {
        "nvidia-smi -q -x": fixture("smi_h100_healthy.xml"),
        "nvidia-smi nvlink -s": fixture("nvlink_pcie_no_links.txt"),
        "journalctl -k -b --no-pager -o short-monotonic": fixture("kern_healthy.txt"),
        "lspci -nn": (0, "00:06.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]\n", ""),
    }


def test_a_healthy_h100_host(monkeypatch, capsys):
    out = _run(monkeypatch, capsys, GPU_TOOLS, healthy_outputs(), {"expected_gpus": 1})
    assert out["changed"] is False
    assert out["status"] == "ok", [c for c in out["checks"] if c["status"] != "ok"]
    assert out["driver_version"] == "580.159.04"
    assert out["sources"] == {
        "nvidia_smi": True,
        "kernel_log": True,
        "nvlink": True,
        "lspci": True,
        "fabric_manager": False,
        "dcgmi": False,
    }
    assert out["dcgm_diag"] is None
    assert [g["pci_bus_id"] for g in out["gpus"]] == ["00000000:00:06.0"]
    # read-only: nothing but the readers ran
    assert "systemctl is-active --quiet nvidia-fabricmanager" not in out["_calls"]


def test_a_hardware_xid_fails_the_host_and_names_the_gpu(monkeypatch, capsys):
    outputs = healthy_outputs()
    outputs["journalctl -k -b --no-pager -o short-monotonic"] = fixture("kern_xid79.txt")
    out = _run(monkeypatch, capsys, GPU_TOOLS, outputs, {"expected_gpus": 1})
    assert out["status"] == "fail"
    assert [(x["pci"], x["xid"], x["class"]) for x in out["xids"]] == [("0000:3b:00", 79, "hardware")]
    (bad,) = [c for c in out["checks"] if c["status"] == "fail"]
    assert bad["name"] == "xid_hardware"


# "-- No entries --": journalctl -k -b with rc 0 on a host whose journal has no kernel messages
@pytest.mark.parametrize("journal", ["", "-- No entries --\n", "-- Boot 0123abcd --\n-- No entries --\n"])
def test_the_ring_buffer_when_journald_has_nothing(monkeypatch, capsys, journal):
    outputs = healthy_outputs()
    outputs["journalctl -k -b --no-pager -o short-monotonic"] = (0, journal, "No journal files were found.\n")
    outputs["dmesg"] = fixture("kern_xid48_94_13.txt")
    tools = {**GPU_TOOLS, "dmesg": "/usr/bin/dmesg"}
    out = _run(monkeypatch, capsys, tools, outputs)
    assert out["sources"]["kernel_log"] is True
    assert {x["xid"] for x in out["xids"]} == {13, 31, 48, 94}


def test_no_kernel_log_is_a_warning_and_kernel_log_false_leaves_the_check_out(monkeypatch, capsys):
    outputs = healthy_outputs()
    del outputs["journalctl -k -b --no-pager -o short-monotonic"]
    out = _run(monkeypatch, capsys, GPU_TOOLS, outputs)
    assert out["status"] == "warn"
    assert [c["name"] for c in out["checks"] if c["status"] == "warn"] == ["xid_hardware"]
    out = _run(monkeypatch, capsys, GPU_TOOLS, healthy_outputs(), {"kernel_log": False})
    assert "xid_hardware" not in [c["name"] for c in out["checks"]]
    assert not [c for c in out["_calls"] if c.startswith("journalctl")]


def test_a_driver_that_does_not_answer(monkeypatch, capsys):
    outputs = healthy_outputs()
    outputs["nvidia-smi -q -x"] = (
        9,
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n",
        "",
    )
    out = _run(monkeypatch, capsys, GPU_TOOLS, outputs, {"expected_gpus": 8})
    assert out["status"] == "fail"
    driver = next(c for c in out["checks"] if c["name"] == "driver_responds")
    assert driver["status"] == "fail"
    assert "couldn't communicate with the NVIDIA driver" in driver["value"]
    assert next(c for c in out["checks"] if c["name"] == "gpu_count")["value"] == 0
    assert "nvidia-smi nvlink -s" not in out["_calls"]


def test_nvswitches_from_lspci_and_fabric_manager_stopped(monkeypatch, capsys):
    outputs = healthy_outputs()
    outputs["lspci -nn"] = (
        0,
        "18:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n"
        "05:00.0 Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3] (rev a1)\n"
        "06:00.0 Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3] (rev a1)\n",
        "",
    )
    outputs["systemctl is-active --quiet nvidia-fabricmanager"] = (3, "", "")
    out = _run(monkeypatch, capsys, GPU_TOOLS, outputs)
    fm = next(c for c in out["checks"] if c["name"] == "fabric_manager")
    assert (fm["status"], fm["value"]) == ("fail", "inactive")
    assert "2 NVSwitch" in fm["reason"]
    assert out["sources"]["fabric_manager"] is True


def test_a_host_without_gpus_has_nothing_to_judge(monkeypatch, capsys):
    out = _run(monkeypatch, capsys, {"journalctl": "/usr/bin/journalctl"}, {})
    assert (out["status"], out["checks"], out["gpus"]) == ("ok", [], [])
    assert out["_calls"] == []


def test_a_host_expected_to_have_gpus_without_nvidia_smi_fails(monkeypatch, capsys):
    out = _run(monkeypatch, capsys, {"journalctl": "/usr/bin/journalctl"}, {}, {"expected_gpus": 4})
    assert out["status"] == "fail"
    driver = next(c for c in out["checks"] if c["name"] == "driver_responds")
    assert driver["value"] == "nvidia-smi is not installed"


def test_a_stand_in_nvidia_smi_by_path(monkeypatch, capsys):
    outputs = {"nvidia-smi -q -x": fixture("smi_h100_x8_thermal.xml"), "nvidia-smi nvlink -s": (0, "", "")}
    out = _run(
        monkeypatch,
        capsys,
        {},
        outputs,
        {"nvidia_smi": "/opt/standin/nvidia-smi", "kernel_log": False, "nvswitches": 0},
    )
    assert out["status"] == "fail"
    assert {c["name"] for c in out["checks"] if c["status"] == "fail"} == {"pcie_link", "clocks_slowdown"}


def test_dcgm_diag_when_asked_for(monkeypatch, capsys):
    outputs = healthy_outputs()
    # dcgmi exits non-zero when a test fails and prints the document all the same
    outputs["dcgmi diag -r 1 -j"] = (226, (FIX / "dcgm3_r1_fail.json").read_text(encoding="utf-8"), "")
    tools = {**GPU_TOOLS, "dcgmi": "/usr/bin/dcgmi"}
    out = _run(monkeypatch, capsys, tools, outputs, {"dcgm_diag": 1})
    assert out["status"] == "fail"
    (bad,) = [c for c in out["checks"] if c["status"] == "fail"]
    assert bad["name"] == "dcgm_diag"
    assert "Page Retirement/Row Remap" in bad["reason"]
    assert out["sources"]["dcgmi"] is True
    assert len(out["dcgm_diag"]["results"]) == 9
    # not asked for: dcgmi is not run
    out = _run(monkeypatch, capsys, tools, outputs)
    assert not [c for c in out["_calls"] if c.startswith("dcgmi")]
    assert "dcgm_diag" not in [c["name"] for c in out["checks"]]


def test_dcgm_diag_without_dcgmi_or_host_engine_is_a_warning(monkeypatch, capsys):
    out = _run(monkeypatch, capsys, GPU_TOOLS, healthy_outputs(), {"dcgm_diag": 1})
    check = next(c for c in out["checks"] if c["name"] == "dcgm_diag")
    assert (check["status"], check["value"]) == ("warn", "not installed")
    outputs = healthy_outputs()
    outputs["dcgmi diag -r 1 -j"] = (255, (FIX / "dcgmi_no_hostengine.txt").read_text(encoding="utf-8"), "")
    out = _run(monkeypatch, capsys, {**GPU_TOOLS, "dcgmi": "/usr/bin/dcgmi"}, outputs, {"dcgm_diag": 1})
    check = next(c for c in out["checks"] if c["name"] == "dcgm_diag")
    assert check["status"] == "warn"
    assert "Unable to connect to host engine" in check["reason"]
