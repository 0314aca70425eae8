"""Node health parsers and checks on fixtures (tests/unit/fixtures/node_health/README.md says where each comes from)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.module_utils import _node_health as h

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "node_health"


def read(name: str) -> str:
    return (FIX / name).read_text(encoding="utf-8")


def by_name(checks, name, gpu=None):
    found = [c for c in checks if c["name"] == name and (gpu is None or c.get("gpu") == gpu)]
    assert found, f"no {name} check in {[c['name'] for c in checks]}"
    return found[0]


def test_the_captured_h100_parses_into_what_the_checks_read():
    smi = h.parse_smi_xml(read("smi_h100_healthy.xml"))
    assert (smi["driver_version"], smi["cuda_version"], smi["attached_gpus"]) == ("580.159.04", "13.0", 1)
    (gpu,) = smi["gpus"]
    assert gpu["pci_bus_id"] == "00000000:00:06.0"
    assert gpu["name"] == "NVIDIA H100 80GB HBM3"
    assert gpu["persistence_mode"] is True
    assert (gpu["ecc_volatile_uncorrectable"], gpu["ecc_aggregate_uncorrectable"]) == (0, 0)
    # H100 has row remapping instead of page retirement: the retirement counters are N/A
    assert (gpu["retired_pages_sbe"], gpu["retired_pages_dbe"], gpu["retired_pages_pending"]) == (None, None, None)
    assert (gpu["remapped_rows_pending"], gpu["remapped_rows_failure"]) == (False, False)
    assert (gpu["pcie_gen_max"], gpu["pcie_gen_current"], gpu["pcie_width_max"], gpu["pcie_width_current"]) == (
        5,
        5,
        16,
        16,
    )
    assert gpu["clocks_event_reasons_active"] == ["gpu_idle"]
    # a single PCIe H100 in a VM: no NVLink fabric (N/A)
    assert (gpu["fabric_state"], gpu["fabric_status"]) == (None, None)


def test_a_healthy_node_passes_every_check():
    checks = h.evaluate(
        h.parse_smi_xml(read("smi_h100_healthy.xml")),
        xids=h.parse_xids(read("kern_healthy.txt")),
        nvlink=h.parse_nvlink_status(read("nvlink_pcie_no_links.txt")),
        expected_gpus=1,
    )
    assert {c["status"] for c in checks} == {"ok"}, [c for c in checks if c["status"] != "ok"]
    assert h.summary(checks) == "ok"
    names = [c["name"] for c in checks]
    for name in ("driver_responds", "gpu_count", "xid_hardware", "ecc_uncorrectable", "row_remap", "pcie_link"):
        assert name in names
    for c in checks:
        assert set(c) >= {"name", "status", "value", "expected", "reason"}


def test_every_check_names_a_known_status():
    for fixture in FIX.glob("smi_*.xml"):
        for c in h.evaluate(h.parse_smi_xml(fixture.read_text(encoding="utf-8")), expected_gpus=1):
            assert c["status"] in h.STATUSES


def test_a_missing_gpu_fails_the_count():
    checks = h.evaluate(h.parse_smi_xml(read("smi_h100_healthy.xml")), expected_gpus=8)
    c = by_name(checks, "gpu_count")
    assert (c["status"], c["value"], c["expected"]) == ("fail", 1, 8)
    assert "8 expected" in c["reason"]


def test_without_an_expected_count_the_count_is_reported():
    c = by_name(h.evaluate(h.parse_smi_xml(read("smi_h100_healthy.xml"))), "gpu_count")
    assert (c["status"], c["value"]) == ("ok", 1)


def test_a_driver_that_does_not_answer_fails_and_the_rest_is_not_judged():
    msg = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    checks = h.evaluate(None, smi_error=msg, expected_gpus=8, xids=[])
    assert by_name(checks, "driver_responds")["status"] == "fail"
    assert by_name(checks, "driver_responds")["value"] == msg
    assert by_name(checks, "gpu_count")["value"] == 0
    assert not [c for c in checks if c.get("gpu")]


def test_xid_79_names_the_gpu_and_fails_the_node():
    xids = h.parse_xids(read("kern_xid79.txt"))
    assert [(x["pci"], x["xid"], x["class"]) for x in xids] == [("0000:3b:00", 79, "hardware")]
    assert xids[0]["detail"].endswith("GPU has fallen off the bus.")
    c = by_name(h.evaluate(h.parse_smi_xml(read("smi_h100_healthy.xml")), xids=xids), "xid_hardware")
    assert c["status"] == "fail"
    assert c["value"] == ["XID 79 on 0000:3b:00 (GPU has fallen off the bus)"]


def test_hardware_xids_fail_and_application_xids_are_information():
    xids = h.parse_xids(read("kern_xid48_94_13.txt"))
    assert [(x["xid"], x["class"]) for x in xids] == [
        (13, "application"),
        (48, "hardware"),
        (94, "hardware"),
        (31, "application"),
    ]
    checks = h.evaluate(h.parse_smi_xml(read("smi_h100_healthy.xml")), xids=xids)
    hw = by_name(checks, "xid_hardware")
    assert hw["status"] == "fail"
    assert "XID 48 on 0000:2a:00 (double-bit ECC error (DBE))" in hw["value"]
    assert "XID 94 on 0000:2a:00 (contained ECC error)" in hw["value"]
    other = by_name(checks, "xid_other")
    assert other["status"] == "ok"
    assert other["value"] == [
        "XID 13 on 0000:18:00 (graphics engine exception)",
        "XID 31 on 0000:18:00 (GPU memory page fault)",
    ]


def test_the_old_xid_format_and_a_remap_event_warn():
    xids = h.parse_xids(read("kern_xid63_old_format.txt"))
    assert [(x["pci"], x["xid"]) for x in xids] == [("0000:03:00", 63), ("0000:03:00", 13)]
    assert by_name(h.evaluate(h.parse_smi_xml(read("smi_h100_healthy.xml")), xids=xids), "xid_hardware")["status"] == (
        "warn"
    )


def test_no_kernel_log_is_a_warning_not_a_pass():
    c = by_name(h.evaluate(h.parse_smi_xml(read("smi_h100_healthy.xml")), kernel_log_read=False), "xid_hardware")
    assert c["status"] == "warn"
    assert "could not be read" in c["reason"]


def test_uncorrectable_ecc_and_a_pending_row_remap_fail():
    smi = h.parse_smi_xml(read("smi_h100_ecc_remap_pending.xml"))
    assert smi["gpus"][0]["ecc_volatile_uncorrectable"] == 2
    checks = h.evaluate(smi)
    assert by_name(checks, "ecc_uncorrectable")["status"] == "fail"
    remap = by_name(checks, "row_remap")
    assert (remap["status"], remap["value"]) == ("fail", "pending")
    assert "reset the GPU" in remap["reason"]
    assert remap["gpu"] == "00000000:00:06.0"
    assert h.summary(checks) == "fail"


def test_a_row_remap_failure_fails():
    c = by_name(h.evaluate(h.parse_smi_xml(read("smi_h100_remap_failure.xml"))), "row_remap")
    assert (c["status"], c["value"]) == ("fail", "failure")


def test_an_x8_link_a_thermal_slowdown_and_persistence_off():
    checks = h.evaluate(h.parse_smi_xml(read("smi_h100_x8_thermal.xml")))
    link = by_name(checks, "pcie_link")
    assert (link["status"], link["value"], link["expected"]) == ("fail", "x8 Gen5", "x16")
    clocks = by_name(checks, "clocks_slowdown")
    assert clocks["status"] == "fail"
    assert "hw_thermal_slowdown" in clocks["reason"]
    assert by_name(checks, "persistence_mode")["status"] == "warn"


def test_a_lower_link_generation_alone_is_an_idle_gpu():
    smi = h.parse_smi_xml(read("smi_h100_healthy.xml"))
    smi["gpus"][0]["pcie_gen_current"] = 1
    c = by_name(h.evaluate(smi), "pcie_link")
    assert c["status"] == "ok"
    assert "idle" in c["reason"]


def test_a_gpu_that_has_not_joined_the_fabric_fails_and_the_other_passes():
    smi = h.parse_smi_xml(read("smi_hgx_2gpu_fabric_pending.xml"))
    assert [g["pci_bus_id"] for g in smi["gpus"]] == ["00000000:18:00.0", "00000000:2A:00.0"]
    checks = h.evaluate(smi, expected_gpus=2, nvswitches=4, fabric_manager_active=True)
    fabric = [c for c in checks if c["name"] == "gpu_fabric"]
    assert [(c["gpu"], c["value"]) for c in fabric] == [("00000000:2A:00.0", "In Progress/None")]
    assert by_name(checks, "fabric_manager")["status"] == "ok"


def test_nvswitches_without_fabric_manager_fail():
    smi = h.parse_smi_xml(read("smi_h100_healthy.xml"))
    c = by_name(h.evaluate(smi, nvswitches=4, fabric_manager_active=False), "fabric_manager")
    assert (c["status"], c["value"]) == ("fail", "inactive")
    assert "4 NVSwitch" in c["reason"]
    assert not [c for c in h.evaluate(smi) if c["name"] == "fabric_manager"]


def test_nvlink_links_are_parsed_and_a_link_down_fails():
    up = h.parse_nvlink_status(read("nvlink_h100_sxm_active.txt"))
    assert [(g["index"], len(g["links"])) for g in up] == [(0, 4), (1, 4)]
    assert up[0]["links"][0] == {"link": 0, "active": True, "speed": "26.562 GB/s"}
    smi = h.parse_smi_xml(read("smi_h100_healthy.xml"))
    assert {c["status"] for c in h.evaluate(smi, nvlink=up) if c["name"] == "nvlink"} == {"ok"}
    down = h.evaluate(smi, nvlink=h.parse_nvlink_status(read("nvlink_one_link_down.txt")))
    bad = [c for c in down if c["name"] == "nvlink" and c["status"] == "fail"]
    assert [(c["gpu"], c["value"]) for c in bad] == [("0", {"down": [1], "links": 4})]


def test_a_board_without_nvlink_gets_no_nvlink_check():
    nvlink = h.parse_nvlink_status(read("nvlink_pcie_no_links.txt"))
    assert nvlink == [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "links": []}]
    assert not [
        c for c in h.evaluate(h.parse_smi_xml(read("smi_h100_healthy.xml")), nvlink=nvlink) if c["name"] == "nvlink"
    ]


@pytest.mark.parametrize("text", ["", "NVIDIA-SMI has failed", "<html/>"])
def test_text_that_is_not_nvidia_smis_xml_is_refused(text):
    with pytest.raises(ValueError, match="nvidia-smi -q -x"):
        h.parse_smi_xml(text)


def test_summary_is_the_worst_status():
    assert h.summary([]) == "ok"
    assert h.summary([{"status": "ok"}, {"status": "warn"}]) == "warn"
    assert h.summary([{"status": "warn"}, {"status": "fail"}, {"status": "ok"}]) == "fail"


@pytest.mark.parametrize(
    ("xml", "kern", "model"),
    [
        ("smi_h200_healthy.xml", "kern_h200_dmesg.txt", "NVIDIA H200"),
        # the second lent machine: one correctable SRAM error in the lifetime counters, none since the driver loaded
        ("smi_h100_lent_aggregate_sram_correctable.xml", "kern_h100_dmesg.txt", "NVIDIA H100 80GB HBM3"),
    ],
)
def test_the_gpus_of_the_lent_gpu_servers_are_healthy_as_the_module_said_there(xml, kern, model):
    # Captured by tools/gpu-host-check.sh on the lent GPU servers (fixtures README): the module reported these eight
    # checks ok there; the same parsers and rules must say so here. Their dmesg has NVRM lines that are not XIDs (an
    # FBHUB interrupt cleared at boot, the persistence-mode deprecation notice) and nvlink -s printed nothing on either.
    smi = h.parse_smi_xml(read(xml))
    assert (smi["driver_version"], smi["cuda_version"], smi["attached_gpus"]) == ("580.159.04", "13.0", 1)
    (gpu,) = smi["gpus"]
    assert gpu["name"] == model
    assert (gpu["pcie_width_max"], gpu["pcie_width_current"]) == (16, 16)
    assert (gpu["ecc_volatile_uncorrectable"], gpu["ecc_aggregate_uncorrectable"]) == (0, 0)
    xids = h.parse_xids(read(kern))
    assert xids == []
    checks = h.evaluate(smi, xids=xids, nvlink=h.parse_nvlink_status(read("nvlink_h200_vm_empty.txt")), expected_gpus=1)
    assert [(c["name"], c["status"]) for c in checks] == [
        ("driver_responds", "ok"),
        ("gpu_count", "ok"),
        ("xid_hardware", "ok"),
        ("ecc_uncorrectable", "ok"),
        ("row_remap", "ok"),
        ("pcie_link", "ok"),
        ("clocks_slowdown", "ok"),
        ("persistence_mode", "ok"),
    ]


def test_the_h100_checks_here_are_the_ones_the_module_returned_there():
    # what node_health returned on the lent H100 (fixtures/benchmark/h100/node_health-vm.json) is what the parsers
    # and rules give here for the XML and kernel log read from that machine a minute later
    there = json.loads((FIX.parent / "benchmark" / "h100" / "node_health-vm.json").read_text())
    smi = h.parse_smi_xml(read("smi_h100_lent_aggregate_sram_correctable.xml"))
    here = h.evaluate(
        smi,
        xids=h.parse_xids(read("kern_h100_dmesg.txt")),
        nvlink=h.parse_nvlink_status(read("nvlink_h200_vm_empty.txt")),
        expected_gpus=1,
    )
    assert there["status"] == h.summary(here) == "ok"
    assert [(c["name"], c["status"], c["reason"]) for c in there["checks"]] == [
        (c["name"], c["status"], c["reason"]) for c in here
    ]


# --- DCGM's diagnostic (dcgmi diag -r N -j) ------------------------------------------------------------------------


def test_dcgm3_level1_all_passed_is_ok():
    diag = h.parse_dcgm_diag(read("dcgm3_r1_pass.json"))
    assert diag["version"] == "3.3.9" and diag["error"] is None
    assert len(diag["results"]) == 9
    assert {r["status"] for r in diag["results"]} == {"pass"}
    assert diag["results"][0] == {
        "category": "Deployment",
        "test": "Denylist",
        "gpu": "0,1,2,3,4,5,6,7",
        "status": "pass",
        "raw": "Pass",
        "reasons": [],
    }
    smi = h.parse_smi_xml(read("smi_h100_healthy.xml"))
    check = by_name(h.evaluate(smi, xids=[], dcgm_diag=diag, dcgm_level=1), "dcgm_diag")
    assert check["status"] == "ok"
    assert check["value"] == {"pass": 9, "fail": 0, "warn": 0, "skip": 0, "not run": 0}


def test_dcgm3_a_failed_test_fails_the_node_with_dcgms_words():
    diag = h.parse_dcgm_diag(read("dcgm3_r1_fail.json"))  # dcgmi's line before the document is skipped
    check = h._dcgm_check(diag, 1)[0]
    assert check["status"] == "fail"
    assert check["reason"].startswith("dcgmi diag -r 1 failed: Page Retirement/Row Remap (GPU 0,1,2,3,4,5,6,7): GPU 3")
    assert "row remapping failed" in check["reason"]
    # DCGM's sentence ends with a period; the health gate joins the reasons into its own sentence
    assert check["reason"].endswith("Drain the GPU and reset it or reboot the node")
    # the warning and the skip are counted, the skip is no finding
    assert check["value"] == {"pass": 6, "fail": 1, "warn": 1, "skip": 1, "not run": 0}


def test_dcgm3_a_warning_alone_warns():
    diag = h.parse_dcgm_diag(read("dcgm3_r1_fail.json"))
    only_warn = [r for r in diag["results"] if r["status"] != "fail"]
    check = h._dcgm_check({"results": only_warn}, 1)[0]
    assert check["status"] == "warn"
    assert "Persistence Mode (GPU 0,1,2,3,4,5,6,7): Persistence mode for GPU 0 is disabled" in check["reason"]


def test_dcgm4_per_entity_results_name_the_gpu():
    diag = h.parse_dcgm_diag(read("dcgm4_r2_memory_fail.json"))
    assert diag["version"] == "4.2.3"
    memory = [r for r in diag["results"] if r["test"] == "memory"]
    assert [r["gpu"] for r in memory] == ["0", "1", "2", "3"]
    check = h._dcgm_check(diag, 2)[0]
    assert check["status"] == "fail"
    assert check["reason"] == (
        "dcgmi diag -r 2 failed: memory (GPU 1): GPU 1: DBE (double bit ECC) error detected during the memory test"
    )


def test_a_status_dcgm_has_not_used_is_not_a_pass():
    doc = '{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "pcie", "results": [{"gpu_ids": "0", "status": "Incomplete"}]}]}]}}'  # noqa: E501
    check = h._dcgm_check(h.parse_dcgm_diag(doc), 2)[0]
    assert check["status"] == "warn"
    assert "pcie (GPU 0)" in check["reason"]


def test_no_host_engine_no_dcgmi_and_not_asked():
    diag = h.parse_dcgm_diag(read("dcgmi_no_hostengine.txt"))
    assert diag["results"] == []
    assert diag["error"] == "Error: Unable to connect to host engine. Host engine connection invalid/disconnected."
    check = h._dcgm_check(diag, 1)[0]
    assert (check["status"], check["value"]) == ("warn", "no results")
    assert "Unable to connect to host engine" in check["reason"]
    missing = h._dcgm_check({"missing": True}, 1)[0]
    assert missing["status"] == "warn" and "dcgmi is not installed" in missing["reason"]
    smi = h.parse_smi_xml(read("smi_h100_healthy.xml"))
    assert not [c for c in h.evaluate(smi, xids=[]) if c["name"] == "dcgm_diag"]
    # a driver that does not answer still gets DCGM's verdict
    assert by_name(h.evaluate(None, smi_error="x", dcgm_diag={"missing": True}), "dcgm_diag")["status"] == "warn"
