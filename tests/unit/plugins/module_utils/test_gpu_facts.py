"""gpu_facts parsers on tool outputs (tests/unit/fixtures/gpu_facts/README.md says where each comes from)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.module_utils import _gpu_facts as p
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import gpu_arch

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "gpu_facts"


def read(name: str) -> str:
    return (FIX / name).read_text(encoding="utf-8")


def test_lspci_p4d_lists_the_eight_gpus_not_the_nvswitches():
    gpus = p.parse_lspci(read("lspci_p4d_a100.txt"))
    assert len(gpus) == 8
    assert {g["pci_id"] for g in gpus} == {"10de:20b0"}
    assert gpus[0] == {
        "pci_slot": "10:1c.0",
        "pci_id": "10de:20b0",
        "name": "A100 SXM4 40GB",
        "chip": "GA100",
        "source": "lspci",
    }
    assert gpu_arch(gpus[0]["name"])["sm"] == "8.0"


def test_lspci_k80_next_to_a_non_nvidia_vga():
    gpus = p.parse_lspci(read("lspci_p2_k80.txt"))
    assert [g["name"] for g in gpus] == ["Tesla K80"]
    assert gpu_arch(gpus[0]["name"])["arch"] == "Kepler"


def test_lspci_workstation_skips_the_hdmi_audio_function():
    gpus = p.parse_lspci(read("lspci_workstation_4090.txt"))
    assert [(g["name"], g["pci_id"]) for g in gpus] == [("GeForce RTX 4090", "10de:2684")]
    assert gpu_arch(gpus[0]["name"])["sm"] == "8.9"


@pytest.mark.parametrize("text", ["", "lspci: command not found", None])
def test_lspci_empty_inputs(text):
    assert p.parse_lspci(text) == []


def test_lspci_without_gpus_is_empty():
    assert p.parse_lspci(read("lspci_no_gpu.txt")) == []


def test_nvidia_smi_query():
    gpus = p.parse_nvidia_smi_csv(read("smi_query_h100.csv"))
    assert len(gpus) == 4
    first = gpus[0]
    assert first["index"] == 0
    assert first["name"] == "NVIDIA H100 80GB HBM3"
    assert first["compute_cap"] == "9.0"
    assert first["memory_mib"] == 81559
    assert first["driver_version"] == "550.54.15"
    assert first["pci_bus_id"] == "00000000:18:00.0"
    assert gpu_arch(first["name"])["sm"] == first["compute_cap"]


def test_nvidia_smi_old_driver_reports_the_unknown_field():
    text = read("smi_query_old_driver.txt")
    assert p.smi_query_failed(text)
    assert p.parse_nvidia_smi_csv(text) == []


def test_nvidia_smi_without_compute_cap_field():
    fields = [f for f in p.SMI_FIELDS if f != "compute_cap"]
    gpus = p.parse_nvidia_smi_csv(read("smi_query_k80_no_cc.csv"), fields)
    assert gpus[0]["name"] == "Tesla K80"
    assert gpus[0]["compute_cap"] is None
    assert gpus[0]["driver_version"] == "470.256.02"


def test_nvidia_smi_banner_cuda_version():
    assert p.parse_smi_cuda_version(read("smi_header_535.txt")) == "12.2"
    assert p.parse_smi_cuda_version("") is None


@pytest.mark.parametrize(
    ("name", "version", "flavour"),
    [
        ("proc_version_proprietary.txt", "535.183.01", "proprietary"),
        ("proc_version_open.txt", "550.54.15", "open"),
    ],
)
def test_proc_driver_version(name, version, flavour):
    assert p.parse_proc_driver_version(read(name)) == {"driver_version": version, "kernel_module": flavour}


def test_proc_driver_version_absent():
    assert p.parse_proc_driver_version("") == {"driver_version": None, "kernel_module": None}


def test_nouveau_loaded():
    text = read("proc_modules_nouveau.txt")
    assert p.module_loaded(text, "nouveau")
    assert not p.module_loaded(text, "nvidia")
    assert not p.module_loaded(text, "video_nouveau")


@pytest.mark.parametrize(
    ("name", "state"), [("mokutil_enabled.txt", True), ("mokutil_disabled.txt", False), ("mokutil_no_efi.txt", None)]
)
def test_mokutil(name, state):
    assert p.parse_mokutil_sb_state(read(name)) is state


def test_merge_prefers_nvidia_smi_and_keeps_the_pci_id():
    lspci = p.parse_lspci(
        "18:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)"
    )
    smi = p.parse_nvidia_smi_csv(read("smi_query_h100.csv"))[:1]
    merged = p.merge(lspci, smi)
    assert merged[0]["source"] == "nvidia-smi"
    assert merged[0]["pci_id"] == "10de:2330"


def test_merge_falls_back_to_lspci():
    merged = p.merge(p.parse_lspci(read("lspci_p2_k80.txt")), [])
    assert merged == [dict(p.parse_lspci(read("lspci_p2_k80.txt"))[0], index=0)]


@pytest.mark.parametrize(
    "fixture, count, pci_id, name",
    [
        ("lspci_p4d_a100.txt", 6, "10de:1af1", "A100 NVSwitch"),
        ("lspci_hgx_h100.txt", 4, "10de:22a3", "H100 NVSwitch"),
    ],
)
def test_lspci_nvswitches_on_hgx_boards(fixture, count, pci_id, name):
    switches = p.parse_lspci_nvswitches(read(fixture))
    assert len(switches) == count
    assert {s["pci_id"] for s in switches} == {pci_id}
    assert {s["name"] for s in switches} == {name}
    # the GPUs of the same board are still found, and the switches are not counted as GPUs
    assert len(p.parse_lspci(read(fixture))) == 8


@pytest.mark.parametrize("fixture", ["lspci_workstation_4090.txt", "lspci_p2_k80.txt", "lspci_no_gpu.txt"])
def test_lspci_no_nvswitches(fixture):
    assert p.parse_lspci_nvswitches(read(fixture)) == []


def test_smi_error_names_the_mismatch_and_the_library_version():
    out = p.parse_smi_error((FIX / "smi_mismatch_580.txt").read_text())
    assert out == {
        "error": "Failed to initialize NVML: Driver/library version mismatch",
        "mismatch": True,
        "library_version": "580.95",
    }


def test_smi_error_other_failures_and_none():
    out = p.parse_smi_error(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    assert out["mismatch"] is False and out["library_version"] is None
    assert out["error"].startswith("NVIDIA-SMI has failed")
    assert p.parse_smi_error("") == {"error": None, "mismatch": False, "library_version": None}
    # the mismatch line of drivers before R535 (no library version line)
    assert p.parse_smi_error("Failed to initialize NVML: Driver/library version mismatch\n")["mismatch"] is True
