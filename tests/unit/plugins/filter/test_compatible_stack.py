"""The filter entry points wrap the engine and turn its errors into AnsibleFilterError."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter import compat_helpers
from ansible_collections.gpucluster.horovod.plugins.filter.compatible_stack import FilterModule, compatible_stack


def test_filter_is_registered():
    assert FilterModule().filters()["compatible_stack"] is compatible_stack
    assert set(compat_helpers.FilterModule().filters()) == {
        "min_driver_for_cuda",
        "cuda_arch_for_gpu",
        "cuda_cc_list",
        "openmpi_version_ok",
        "openmpi_version_problem",
        "compat_table",
    }


def test_filter_resolves_the_acceptance_request():
    stack = compatible_stack({"os": "ubuntu22.04", "gpus": ["A100"], "framework": "pytorch"})
    assert stack["framework_cuda_variant"] == "cu126"
    assert stack["horovod_patches"] == ["cxx17"]


def test_filter_raises_ansible_filter_error_with_the_conflicts():
    with pytest.raises(AnsibleFilterError, match=r"Open MPI 3\.1\.3 is known bad"):
        compatible_stack({"os": "debian12", "openmpi": "3.1.3"})


def test_filter_raises_on_unknown_os():
    with pytest.raises(AnsibleFilterError, match="os 'plan9' unknown"):
        compatible_stack({"os": "plan9"})


def test_helpers():
    assert compat_helpers.min_driver_for_cuda("12.4.1") == "550.54.15"
    assert compat_helpers.min_driver_for_cuda("12.9", mode="minor_compat") == "525.60.13"
    arch = compat_helpers.cuda_arch_for_gpu("NVIDIA H100 80GB HBM3")
    assert (arch["sm"], arch["arch"], arch["min_nccl"]) == ("9.0", "Hopper", "2.15.1")
    assert compat_helpers.cuda_cc_list(["H100", "A100", "8.0"]) == "80,90"
    assert compat_helpers.openmpi_version_ok("3.1.3") is False
    assert compat_helpers.openmpi_version_ok("4.1.4") is True
    assert compat_helpers.openmpi_version_problem("4.1.4") == ""
    assert compat_helpers.openmpi_version_problem("3.1.3").startswith("Open MPI 3.1.3 is known bad: ")
    assert "use 3.1.2 or >= 4.0.0" in compat_helpers.openmpi_version_problem("3.1.3")
    assert "older than 3.0.0" in compat_helpers.openmpi_version_problem("2.1.1")
    assert compat_helpers.openmpi_version_problem("four") == "'four' is not an Open MPI version"
    with pytest.raises(AnsibleFilterError, match="cuda_arch_for_gpu: GPU 'Voodoo2' is unknown"):
        compat_helpers.cuda_arch_for_gpu("Voodoo2")
    with pytest.raises(AnsibleFilterError, match=r"min_driver_for_cuda: CUDA 99\.0 unknown"):
        compat_helpers.min_driver_for_cuda("99.0")


def test_compat_table_lines():
    stack = compatible_stack({"os": "debian12", "framework_version": "2.13"})
    lines = compat_helpers.compat_table(stack)
    assert lines[0].split() == ["key", "value", "why"]
    assert any(line.startswith("framework_version") and "2.13.0" in line for line in lines)
    assert any("HOROVOD_WITH_PYTORCH=1" in line for line in lines)
