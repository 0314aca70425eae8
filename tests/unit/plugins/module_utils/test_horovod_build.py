"""Tests of the horovod role's pure logic: check-build parser, failure classifier, build key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.module_utils._horovod_build import (
    BUILD_KEY_FIELDS,
    CheckBuildParseError,
    build_key,
    build_key_inputs,
    classify_build_failure,
    expected_capabilities,
    format_diagnosis,
    framework_libraries,
    missing_capabilities,
    missing_libraries,
    parse_check_build,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CHECK_BUILD = FIXTURES / "horovod_check_build"
BUILD_LOGS = FIXTURES / "horovod_build_logs"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# (fixture, version, frameworks on, controllers on, tensor operations on)
CHECK_BUILD_CASES = [
    ("v0.28.1-pytorch-cpu-gloo-mpi.txt", "0.28.1", {"pytorch"}, {"mpi", "gloo"}, {"mpi", "gloo"}),
    ("v0.28.1-pytorch-gpu-nccl.txt", "0.28.1", {"pytorch"}, {"mpi", "gloo"}, {"nccl", "mpi", "gloo"}),
    (
        "v0.22.1-tf-pytorch-gpu-nccl-no-blank-lines.txt",
        "0.22.1",
        {"tensorflow", "pytorch"},
        {"mpi", "gloo"},
        {"nccl", "mpi", "gloo"},
    ),
    (
        "v0.21.3-tf-pytorch-gpu-nccl-indented.txt",
        "0.21.3",
        {"tensorflow", "pytorch"},
        {"mpi", "gloo"},
        {"nccl", "mpi", "gloo"},
    ),
    (
        "v0.19.1-all-frameworks-gpu-nccl.txt",
        "0.19.1",
        {"tensorflow", "pytorch", "mxnet"},
        {"mpi", "gloo"},
        {"nccl", "mpi", "gloo"},
    ),
    ("v0.18.1-nothing-built-mlsl.txt", "0.18.1", set(), set(), set()),
]


@pytest.mark.parametrize(("fixture", "version", "frameworks", "controllers", "ops"), CHECK_BUILD_CASES)
def test_parse_check_build_real_outputs(fixture, version, frameworks, controllers, ops):
    facts = parse_check_build(_read(CHECK_BUILD / fixture))
    assert facts["version"] == version
    assert {k for k, v in facts["frameworks"].items() if v} == frameworks
    assert {k for k, v in facts["controllers"].items() if v} == controllers
    assert {k for k, v in facts["tensor_operations"].items() if v} == ops
    assert facts["sections"] == ["frameworks", "controllers", "tensor_operations"]
    # Every known item is reported, built or not.
    assert set(facts["tensor_operations"]) >= {"nccl", "ddl", "ccl", "mlsl", "mpi", "gloo"}


def test_parse_check_build_old_release_lists_mlsl_not_ccl():
    facts = parse_check_build(_read(CHECK_BUILD / "v0.18.1-nothing-built-mlsl.txt"))
    assert facts["tensor_operations"]["mlsl"] is False
    assert facts["tensor_operations"]["ccl"] is False


def test_parse_check_build_refuses_a_traceback():
    with pytest.raises(CheckBuildParseError, match="no 'Available"):
        parse_check_build(_read(CHECK_BUILD / "traceback-no-sections.txt"))


def test_parse_check_build_ignores_verbose_lines_between_sections():
    text = "Checking whether extension torch was built.\nExtension torch was built.\n" + _read(
        CHECK_BUILD / "v0.28.1-pytorch-gpu-nccl.txt"
    )
    facts = parse_check_build(text)
    assert facts["frameworks"]["pytorch"] is True
    assert facts["tensor_operations"]["nccl"] is True


EXPECT_CPU = {"HOROVOD_WITH_PYTORCH": 1, "HOROVOD_WITHOUT_TENSORFLOW": 1, "HOROVOD_WITH_GLOO": 1, "HOROVOD_WITH_MPI": 1}
EXPECT_GPU = dict(EXPECT_CPU, HOROVOD_GPU_OPERATIONS="NCCL")


def test_expected_capabilities_cpu_and_gpu():
    assert expected_capabilities(EXPECT_CPU, "pytorch") == {
        "frameworks": ["pytorch"],
        "controllers": ["mpi", "gloo"],
        "tensor_operations": ["mpi", "gloo"],
    }
    assert "nccl" in expected_capabilities(EXPECT_GPU, "pytorch")["tensor_operations"]
    assert expected_capabilities({"HOROVOD_WITHOUT_MPI": "1", "HOROVOD_WITH_GLOO": "1"}, "tensorflow") == {
        "frameworks": ["tensorflow"],
        "controllers": ["gloo"],
        "tensor_operations": ["gloo"],
    }


@pytest.mark.parametrize(
    ("fixture", "build_env", "framework", "missing"),
    [
        ("v0.28.1-pytorch-cpu-gloo-mpi.txt", EXPECT_CPU, "pytorch", []),
        # The seed: asked for NCCL, got a CPU-only Horovod: training silently ran on the CPU.
        ("v0.28.1-pytorch-cpu-gloo-mpi.txt", EXPECT_GPU, "pytorch", ["tensor_operations/nccl"]),
        ("v0.28.1-pytorch-gpu-nccl.txt", EXPECT_GPU, "pytorch", []),
        ("v0.28.1-pytorch-gpu-nccl.txt", EXPECT_GPU, "tensorflow", ["frameworks/tensorflow"]),
        (
            "v0.18.1-nothing-built-mlsl.txt",
            EXPECT_CPU,
            "pytorch",
            [
                "frameworks/pytorch",
                "controllers/mpi",
                "controllers/gloo",
                "tensor_operations/mpi",
                "tensor_operations/gloo",
            ],
        ),
    ],
)
def test_missing_capabilities(fixture, build_env, framework, missing):
    facts = parse_check_build(_read(CHECK_BUILD / fixture))
    assert missing_capabilities(facts, **expected_capabilities(build_env, framework)) == missing


# --- failure classifier ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "cause"),
    [
        ("cxx14-torch-2.13-headers.log", "cxx17_required"),
        ("oom-ulimit.log", "out_of_memory"),
        ("nccl-not-found.log", "nccl_not_found"),
        ("mpi-not-found.log", "mpi_not_found"),
    ],
)
def test_classify_real_failure_logs(fixture, cause):
    diagnosis = classify_build_failure(_read(BUILD_LOGS / fixture))
    assert diagnosis["cause"] == cause
    assert diagnosis["evidence"]
    assert diagnosis["tail"]


@pytest.mark.parametrize(
    ("line", "cause"),
    [
        ("c++: fatal error: Killed signal terminated program cc1plus", "out_of_memory"),
        (
            "CMake Error: Horovod build with GPU support was requested but this PyTorch installation does not support "
            "CUDA.",
            "cuda_mismatch",
        ),
        ("nvcc fatal   : Unsupported gpu architecture 'compute_90'", "cuda_mismatch"),
        ("fatal error: nccl.h: No such file or directory", "nccl_not_found"),
        (
            "CMake Error at CMakeLists.txt:325 (message): MPI is not installed, try changing HOROVOD_CPU_OPERATIONS.",
            "mpi_not_found",
        ),
        ("ModuleNotFoundError: No module named 'torch'", "framework_not_found"),
        ("fatal error: Python.h: No such file or directory", "python_headers_missing"),
        ("-- No CMAKE_CXX_COMPILER could be found.", "compiler_missing"),
        ("ERROR: No matching distribution found for horovod==0.28.1", "download_failed"),
    ],
)
def test_classify_single_lines(line, cause):
    assert classify_build_failure("building...\n" + line + "\nerror: command failed\n")["cause"] == cause


def test_classify_prefers_cxx17_over_the_errors_it_causes():
    text = _read(BUILD_LOGS / "cxx14-torch-2.13-headers.log") + "\nc++: fatal error: Killed signal\n"
    diagnosis = classify_build_failure(text)
    assert diagnosis["cause"] == "cxx17_required"
    assert diagnosis["causes"] == ["cxx17_required", "out_of_memory"]


def test_classify_unknown_keeps_error_lines_and_tail():
    text = "line 1\nfoo.cc:3:1: error: expected ';'\nmake: *** [all] Error 2\n"
    diagnosis = classify_build_failure(text, max_lines=2)
    assert diagnosis["cause"] == "unknown"
    assert diagnosis["evidence"] == ["foo.cc:3:1: error: expected ';'", "make: *** [all] Error 2"]
    assert diagnosis["tail"] == ["foo.cc:3:1: error: expected ';'", "make: *** [all] Error 2"]


def test_format_diagnosis_names_cause_log_and_tail():
    message = format_diagnosis(
        classify_build_failure(_read(BUILD_LOGS / "cxx14-torch-2.13-headers.log")),
        "/var/log/gpucluster/horovod-build-abc.log on n1",
    )
    assert "Likely cause: cxx17_required" in message
    assert "horovod_patches" in message
    assert "C++17 or later compatible compiler is required" in message
    assert "/var/log/gpucluster/horovod-build-abc.log on n1" in message


# --- build key ------------------------------------------------------------------------------------

BASE = {
    "os": "Debian",
    "os_version": "12",
    "arch": "x86_64",
    "python": "3.11",
    "framework": "pytorch",
    "framework_version": "2.13.0",
    "framework_cuda_variant": "cpu",
    "cuda": None,
    "nccl": None,
    "mpi": "Open MPI 4.1.4",
    "horovod": "0.28.1",
    "patches": ["cxx17"],
    "build_env": {"HOROVOD_WITH_PYTORCH": "1", "HOROVOD_WITH_GLOO": "1", "HOROVOD_WITH_MPI": "1"},
}


def test_build_key_is_stable_and_short():
    key = build_key(BASE)
    assert key == build_key(dict(BASE))
    assert len(key) == 16
    assert all(c in "0123456789abcdef" for c in key)


def test_build_key_ignores_order_and_empty_spellings():
    reordered = dict(
        BASE, patches=list(reversed(BASE["patches"])), build_env=dict(reversed(list(BASE["build_env"].items())))
    )
    assert build_key(reordered) == build_key(BASE)
    assert build_key(dict(BASE, cuda="", nccl="None")) == build_key(BASE)
    assert build_key(dict(BASE, build_env={k: int(v) for k, v in BASE["build_env"].items()})) == build_key(BASE)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("framework_version", "2.12.0"),
        ("framework", "tensorflow"),
        ("framework_cuda_variant", "cu121"),
        ("cuda", "12.1"),
        ("nccl", "2.18.3"),
        ("mpi", "Open MPI 5.0.3"),
        ("python", "3.12"),
        ("os_version", "13"),
        ("horovod", "0.28.0"),
        ("patches", []),
        ("build_env", {"HOROVOD_WITH_PYTORCH": "1", "HOROVOD_GPU_OPERATIONS": "NCCL"}),
        ("host_gcc", "11"),
        ("extra_frameworks", ["torch==2.13.0+cpu"]),
        ("framework_builds", ["torch==2.13.0"]),
    ],
)
def test_build_key_changes_with_every_input(field, value):
    assert build_key(dict(BASE, **{field: value})) != build_key(BASE)


def test_build_key_refuses_unknown_and_missing_inputs():
    with pytest.raises(ValueError, match="unknown input"):
        build_key(dict(BASE, colour="blue"))
    with pytest.raises(ValueError, match="framework_version"):
        build_key(dict(BASE, framework_version=""))
    with pytest.raises(ValueError, match="length"):
        build_key(BASE, length=4)


def test_build_key_inputs_cover_every_field():
    # extra_frameworks and framework_builds are left out while empty (the keys of builds from before they existed
    # stay valid)
    assert set(build_key_inputs(BASE)) == set(BUILD_KEY_FIELDS) - {"extra_frameworks", "framework_builds"}
    both = dict(BASE, extra_frameworks=["torch==2.13.0+cpu"], framework_builds=["tensorflow==2.15.0"])
    assert set(build_key_inputs(both)) == set(BUILD_KEY_FIELDS)


def test_build_key_without_extra_frameworks_is_the_key_of_before():
    """An empty extra_frameworks gives the key computed without the field (cached wheels stay valid)."""
    assert build_key(dict(BASE, extra_frameworks=[])) == build_key(BASE)
    assert build_key(dict(BASE, extra_frameworks=None)) == build_key(BASE)
    assert build_key(dict(BASE, framework_builds=[])) == build_key(BASE)
    canon = dict(build_key_inputs(BASE))
    blob = json.dumps(canon, sort_keys=True, separators=(",", ":"))
    assert build_key(BASE) == hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def test_framework_libraries_and_missing(tmp_path):
    hvd = tmp_path / "horovod"
    (hvd / "tensorflow").mkdir(parents=True)
    (hvd / "torch").mkdir()
    (hvd / "tensorflow" / "mpi_lib.cpython-311-x86_64-linux-gnu.so").write_text("")
    # horovod/torch has its Python files but no mpi_lib_v2: --check-build would still say [X] PyTorch
    (hvd / "torch" / "__init__.py").write_text("")
    libs = framework_libraries(str(hvd))
    assert [p.rsplit("/", 1)[1] for p in libs["tensorflow"]] == ["mpi_lib.cpython-311-x86_64-linux-gnu.so"]
    assert libs["pytorch"] == []
    assert missing_libraries(libs, ["tensorflow"]) == []
    assert missing_libraries(libs, ["tensorflow", "pytorch"]) == ["library/pytorch"]


def test_check_build_shows_pytorch_without_its_library():
    """Real output of a TensorFlow-only build: --check-build claims PyTorch, the library check does not."""
    facts = parse_check_build((CHECK_BUILD / "v0.28.1-tensorflow-cpu-phantom-pytorch.txt").read_text())
    assert facts["version"] == "0.28.1"
    assert facts["frameworks"] == {"tensorflow": True, "pytorch": True, "mxnet": False}
    expected = expected_capabilities({"HOROVOD_WITH_TENSORFLOW": "1", "HOROVOD_WITH_PYTORCH": "1"}, "tensorflow")
    assert missing_capabilities(facts, **expected) == []
    libraries = {"tensorflow": ["/v/horovod/tensorflow/mpi_lib.cpython-311-x86_64-linux-gnu.so"], "pytorch": []}
    assert missing_libraries(libraries, expected["frameworks"]) == ["library/pytorch"]
