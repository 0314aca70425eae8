"""Driver and kernel-module picker: CUDA -> driver floor (NVIDIA release notes), branches, modules.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    CompatError,
    min_driver_for_cuda,
    resolve,
    vcmp,
)

# --------------------------------------------------------------------------- CUDA -> driver (NVIDIA release notes)
CUDA_DRIVER = [
    ("13.2.2", "595.71.05"),
    ("13.2.1", "595.58.03"),
    ("13.2.0", "595.45.04"),
    ("13.1.1", "590.48.01"),
    ("13.1.0", "590.44.01"),
    ("13.0.2", "580.95.05"),
    ("13.0.1", "580.82.07"),
    ("13.0.0", "580.65.06"),
    ("12.9.1", "575.57.08"),
    ("12.9.0", "575.51.03"),
    ("12.8.1", "570.124.06"),
    ("12.8.0", "570.26"),
    ("12.6.3", "560.35.05"),
    ("12.6.2", "560.35.03"),
    ("12.6.1", "560.35.03"),
    ("12.6.0", "560.28.03"),
    ("12.5.1", "555.42.06"),
    ("12.5.0", "555.42.02"),
    ("12.4.1", "550.54.15"),
    ("12.4.0", "550.54.14"),
    ("12.3.1", "545.23.08"),
    ("12.3.0", "545.23.06"),
    ("12.2.2", "535.104.05"),
    ("12.2.1", "535.86.09"),
    ("12.2.0", "535.54.03"),
    ("12.1.1", "530.30.02"),
    ("12.1.0", "530.30.02"),
    ("12.0.1", "525.85.12"),
    ("12.0.0", "525.60.13"),
    ("11.8.0", "520.61.05"),
    ("11.7.1", "515.48.07"),
    ("11.7.0", "515.43.04"),
    ("11.6.2", "510.47.03"),
    ("11.6.1", "510.47.03"),
    ("11.6.0", "510.39.01"),
    ("11.5.2", "495.29.05"),
    ("11.5.1", "495.29.05"),
    ("11.5.0", "495.29.05"),
    ("11.4.4", "470.82.01"),
    ("11.4.3", "470.82.01"),
    ("11.4.2", "470.57.02"),
    ("11.4.1", "470.57.02"),
    ("11.4.0", "470.42.01"),
    ("11.3.1", "465.19.01"),
    ("11.3.0", "465.19.01"),
    ("11.2.2", "460.32.03"),
    ("11.2.1", "460.32.03"),
    ("11.2.0", "460.27.03"),
    ("11.1.1", "455.32"),
    ("11.1.0", "455.23"),
    ("11.0.3", "450.51.06"),
    ("11.0.2", "450.51.05"),
    ("11.0.1", "450.36.06"),
    ("10.2", "440.33"),
    ("10.1", "418.39"),
    ("10.0", "410.48"),
    ("9.2.148", "396.37"),
    ("9.2.88", "396.26"),
    ("9.1", "390.46"),
    ("9.0", "384.81"),
    ("8.0.61", "375.26"),
    ("8.0.44", "367.48"),
    ("7.5", "352.31"),
    ("7.0", "346.46"),
    ("13.3.1", "610.43.02"),
    ("13.3.0", "610.43.02"),
    ("13.4", "615"),
]


@pytest.mark.parametrize(("cuda", "driver"), CUDA_DRIVER)
def test_min_driver_for_cuda_row(cuda, driver):
    assert min_driver_for_cuda(cuda) == driver


@pytest.mark.parametrize(
    ("cuda", "driver"),
    [
        ("11.8", "520.61.05"),
        ("12.6", "560.35.05"),
        ("12.4", "550.54.15"),
        ("11.4", "470.82.01"),
        ("12.2", "535.104.05"),
        ("13.0", "580.95.05"),
    ],
)
def test_min_driver_for_minor_is_its_newest_update(cuda, driver):
    assert min_driver_for_cuda(cuda) == driver


@pytest.mark.parametrize(("cuda", "driver"), [("11.2", "450.80.02"), ("12.9", "525.60.13"), ("13.1", "580.65.06")])
def test_min_driver_minor_compat(cuda, driver):
    assert min_driver_for_cuda(cuda, mode="minor_compat") == driver


def test_driver_min_follows_cuda_and_upgrade_flag():
    old = resolve(
        {"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.0", "cuda": "11.7", "driver": "515.65.01"}
    )
    assert old["driver_min"] == "515.48.07"
    assert old["driver_upgrade_required"] is False
    assert old["driver_branch"] == 515
    new = resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.13", "driver": "515.65.01"})
    assert new["driver_min"] == "560.35.05"
    assert new["driver_upgrade_required"] is True
    assert new["driver_branch"] == 580


def test_k80_stays_on_r470():
    stack = resolve({"os": "ubuntu20.04", "gpus": ["K80"], "framework": "pytorch"})
    assert stack["driver_branch"] == 470
    assert vcmp(stack["cuda"], "11.4") <= 0
    assert stack["kernel_module"] == "proprietary"
    assert stack["framework_version"] == "1.12.1"


def test_installed_driver_kept_when_new_enough():
    stack = resolve({"os": "ubuntu22.04", "gpus": ["A100"], "framework_version": "2.13", "driver": "570.86.15"})
    assert stack["driver_branch"] == 570
    assert stack["driver_upgrade_required"] is False


def test_min_driver_unknown_cuda_lists_known():
    with pytest.raises(CompatError, match=r"CUDA 6\.5 unknown .*11\.8"):
        min_driver_for_cuda("6.5")
