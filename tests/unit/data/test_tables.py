"""The compatibility tables are self-consistent, carry their provenance and the generated docs are current."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    TABLE_NAMES,
    gpu_arch,
    known_cuda,
    load_tables,
    min_driver_for_cuda,
    vcmp,
    vtuple,
)

ROOT = Path(__file__).resolve().parents[3]
T = load_tables()
CONFIDENCE = {"high", "medium", "low"}


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_every_table_has_provenance(name):
    meta = T[name]["meta"]
    assert meta["table"] == name
    assert isinstance(meta["version"], int)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", meta["retrieved"])
    assert meta["sources"] and all(isinstance(s, str) and s for s in meta["sources"])


ROW_LISTS = [
    ("cuda_driver", "toolkits"),
    ("gpu_arch", "architectures"),
    ("gpu_arch", "gpu_models"),
    ("cudnn", "releases"),
    ("nccl", "releases"),
    ("pytorch", "releases"),
    ("tensorflow", "releases"),
    ("mxnet", "releases"),
    ("os", "releases"),
    ("openmpi", "known_bad"),
]


@pytest.mark.parametrize(("table", "key"), ROW_LISTS)
def test_every_row_has_a_confidence(table, key):
    for row in T[table][key]:
        assert row.get("confidence") in CONFIDENCE, row


def _variants():
    for r in T["pytorch"]["releases"]:
        for v in r["variants"]:
            yield "torch {} {}".format(r["torch"], v["variant"]), v["cuda"]
    for r in T["tensorflow"]["releases"]:
        yield "tf {}".format(r["tf"]), r["cuda"]
    for r in T["mxnet"]["releases"]:
        for v in r["variants"]:
            yield "mxnet {} {}".format(r["mxnet"], v["variant"]), v["cuda"]


@pytest.mark.parametrize(("what", "cuda"), list(_variants()))
def test_every_framework_cuda_variant_has_a_driver_row(what, cuda):
    assert min_driver_for_cuda(cuda), what


def test_variant_names_match_their_cuda():
    for r in T["pytorch"]["releases"] + T["mxnet"]["releases"]:
        for v in r["variants"]:
            assert v["variant"] == "cu" + v["cuda"].replace(".", ""), v


def test_every_gpu_model_maps_to_an_architecture_row():
    sms = {a["sm"] for a in T["gpu_arch"]["architectures"]}
    for model in T["gpu_arch"]["gpu_models"]:
        assert model["cc"] in sms, model
        assert gpu_arch(model["model"])["sm"] == model["cc"]


def test_driver_minimums_are_monotonic_within_a_major():
    rows = sorted(T["cuda_driver"]["toolkits"], key=lambda r: vtuple(r["cuda"]))
    for older, newer in zip(rows, rows[1:]):
        if vtuple(older["cuda"])[0] == vtuple(newer["cuda"])[0]:
            assert vcmp(newer["driver_min"], older["driver_min"]) >= 0, (older, newer)


def test_minor_compat_floor_is_at_most_every_toolkit_minimum_of_its_major():
    for floor in T["cuda_driver"]["minor_compat"]:
        for row in T["cuda_driver"]["toolkits"]:
            if vtuple(row["cuda"])[0] == floor["cuda_major"]:
                assert vcmp(floor["driver_min"], row["driver_min"]) <= 0 or row["cuda"].startswith("11.0"), row


def test_branches_are_ordered_and_run_the_cuda_they_claim():
    branches = T["cuda_driver"]["branches"]
    assert [b["branch"] for b in branches] == sorted(b["branch"] for b in branches)
    for older, newer in zip(branches, branches[1:]):
        assert vcmp(newer["max_cuda"], older["max_cuda"]) > 0
    for b in branches:
        if vcmp(b["max_cuda"], "7.0") >= 0:
            assert vtuple(min_driver_for_cuda(b["max_cuda"]))[0] <= b["branch"], b


def test_architecture_ranges_are_sane():
    for a in T["gpu_arch"]["architectures"]:
        assert a["max_cuda"] is None or vcmp(a["min_cuda"], a["max_cuda"]) <= 0
        assert a["kernel_module"] in ("proprietary", "open_or_proprietary", "open_required")
        if a["last_driver_branch"]:
            assert a["kernel_module"] == "proprietary"  # only pre-Turing GPUs have a last branch


def test_cudnn_ranges_name_known_cuda():
    cudas = set(known_cuda(T))
    for row in T["cudnn"]["releases"]:
        for lo, hi in row["cuda"]:
            assert vcmp(lo, hi) <= 0
            assert lo in cudas or vcmp(lo, "9.0") < 0, row
    versions = [r["cudnn"] for r in T["cudnn"]["releases"]]
    assert versions == sorted(versions, key=vtuple, reverse=True)


def test_nccl_pairing_names_releases_built_for_that_major():
    releases = {r["nccl"]: r for r in T["nccl"]["releases"]}
    for cuda, nccl in T["nccl"]["paired_with_cuda"].items():
        assert nccl in releases, (cuda, nccl)
        assert vtuple(cuda)[0] in releases[nccl]["cuda_majors"], (cuda, nccl)
    versions = [r["nccl"] for r in T["nccl"]["releases"]]
    assert versions == sorted(versions, key=vtuple, reverse=True)
    assert len(set(versions)) == len(versions)


def test_architecture_nccl_floors_are_releases():
    releases = {r["nccl"] for r in T["nccl"]["releases"]}
    for a in T["gpu_arch"]["architectures"]:
        if a.get("min_nccl"):
            assert a["min_nccl"] in releases, a


def test_bundled_versions_are_consistent():
    releases = {r["nccl"] for r in T["nccl"]["releases"]}
    for r in T["pytorch"]["releases"]:
        assert vtuple(r["latest"])[:2] == vtuple(r["torch"])
        for v in r["variants"]:
            if v.get("nccl"):
                assert v["nccl"] in releases, (r["torch"], v)


def test_horovod_rules_are_consistent():
    versions = {r["horovod"] for r in T["horovod"]["releases"]}
    for r in T["horovod"]["releases"]:
        for fw, rule in r["frameworks"].items():
            assert fw in ("pytorch", "tensorflow", "mxnet")
            assert vcmp(rule["known_max"], rule["tested_max"]) >= 0, (r["horovod"], fw)
            if rule.get("broken_from"):
                assert vcmp(rule["known_max"], rule["broken_from"]) < 0
        assert vcmp(r["cuda_known_max"], r["cuda_tested_max"]) >= 0
    for patch in T["horovod"]["patches"]:
        assert set(patch["horovod"]) <= versions
        assert patch["changes"] and patch["upstream"]


def test_os_rows_are_consistent():
    branches = {str(b["branch"]) for b in T["cuda_driver"]["branches"]}
    cudas = set(known_cuda(T))
    for row in T["os"]["releases"]:
        lo, hi = row["cuda_repo"]
        assert lo in cudas and (hi is None or hi in cudas), row
        if row.get("distro_driver"):
            assert row["distro_driver"] in branches
        if row.get("distro_cuda"):
            assert row["distro_cuda"] in cudas


def test_generated_docs_are_current():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_compat_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_os_rows_name_their_compilers():
    families = set(T["host_compiler"]["packages"])
    for row in T["os"]["releases"]:
        assert isinstance(row["gcc_default"], int), row["os"]
        assert row["gcc_default"] in row["gcc_available"], row["os"]
        assert row["gcc_available"] == sorted(set(row["gcc_available"])), row["os"]
        assert row["family"] in families, row["os"]


@pytest.mark.parametrize(
    ("os_name", "gcc"),
    # Default GCC per release (packages.debian.org / packages.ubuntu.com 'gcc' package; RHEL's system GCC).
    [("debian11", 10), ("debian12", 12), ("debian13", 14), ("ubuntu20.04", 9), ("ubuntu22.04", 11),
     ("ubuntu24.04", 13), ("rhel8", 8), ("rhel9", 11), ("rhel10", 14)],
)  # fmt: skip
def test_default_gcc_per_release(os_name, gcc):
    assert {r["os"]: r["gcc_default"] for r in T["os"]["releases"]}[os_name] == gcc


def test_host_compiler_table_covers_the_cuda_releases_horovod_builds_with():
    rows = {r["cuda"]: r for r in T["host_compiler"]["cuda"]}
    wanted = ["11.8", "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9", "13.0"]
    assert set(wanted) <= set(rows)
    cudas = set(known_cuda(T))
    maxima = []
    for cuda in sorted(rows, key=vtuple):
        row = rows[cuda]
        assert cuda in cudas, cuda
        assert row["confidence"] in CONFIDENCE
        assert row["gcc_min"] is None or row["gcc_min"] <= row["gcc_max"]
        maxima.append(row["gcc_max"])
    assert maxima == sorted(maxima), "a newer CUDA never accepts an older newest GCC"
    # crt/host_config.h: 11.8 -> GCC 11, 12.0-12.3 -> 12, 12.4-12.6 -> 13, 12.8/12.9 -> 14.
    assert [rows[c]["gcc_max"] for c in ("11.8", "12.3", "12.4", "12.6", "12.8")] == [11, 12, 13, 13, 14]


def test_compiler_patch_rows_are_complete():
    for patch in T["horovod"]["patches"]:
        if "framework" not in patch:
            assert isinstance(patch["gcc_min"], int) and patch["fixed_after"], patch["name"]
