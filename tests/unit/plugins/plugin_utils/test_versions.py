"""The collection's one version module (plugins/plugin_utils/versions.py), and that no other plugin reads versions
its own way."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import versions as v
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import versions as compat_versions
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.gpu_libs import PlanError

PLUGINS = Path(__file__).resolve().parents[4] / "plugins"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("11.8.0", (11, 8, 0)),
        ("2.21.5-1+cuda12.4", (2, 21, 5, 1)),
        ("535.261.03-1", (535, 261, 3, 1)),
        ("580.95.05-1.el9", (580, 95, 5, 1, 9)),
        ("2.13.0+cpu", (2, 13, 0)),
        (12.4, (12, 4)),
        ("", ()),
    ],
)
def test_vtuple_is_lenient(text, expected):
    assert v.vtuple(text) == expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("11.8", "11.8.0", 0),
        ("2.13.0+cpu", "2.13", 0),
        ("2.10", "2.9", 1),
        ("535.261.03", "525.60.13", 1),
        ("535", "535.0.1", -1),
    ],
)
def test_vcmp_pads_with_zeros(a, b, expected):
    assert v.vcmp(a, b) == expected
    older, newer = (a, b) if expected < 0 else (b, a)
    assert v.vcmp(newer, older) == abs(expected)


def test_mm_vprefix_in_range():
    assert v.mm("12.4.1") == "12.4" and v.mm("2") == "2.0"
    assert v.vprefix("2.0.1", "2.0") and v.vprefix("2.0.1", "2") and not v.vprefix("2.10", "2.1")
    assert not v.vprefix("2.0", "")
    assert v.in_range("12.4.1", "11.8", "12.4") and not v.in_range("12.5", None, "12.4")
    assert v.in_range("9.0", None, None) and not v.in_range("11.7", "11.8", None)


def test_dotted_is_strict_and_raises_the_callers_error():
    assert v.dotted(" 12.4.1 ") == (12, 4, 1)
    for bad in ["12.x", "12.4-1", "", "cuda12"]:
        with pytest.raises(ValueError, match="is not a version"):
            v.dotted(bad)
    with pytest.raises(PlanError, match=r"'12\.x' is not a version"):
        v.dotted("12.x", PlanError)
    assert v.dotted_mm("12.4.1") == "12.4"
    with pytest.raises(PlanError, match=r"needs at least major\.minor"):
        v.dotted_mm("12", PlanError)


@pytest.mark.parametrize(
    "resolved, found, expected",
    [
        ("12.4", "12.4.131", True),
        ("9.1.0.70", "9.1.0", True),
        ("9.1.0.70", "9.1.1", False),
        ("12", "12.4", False),
        ("2.21.5", "2.21.5", True),
    ],
)
def test_agrees(resolved, found, expected):
    assert v.agrees(resolved, found) is expected


# Reading a version's numbers by hand (a regex for digits turned into ints, or splitting on dots into ints) belongs in
# versions.py alone; module_utils run on the nodes and cannot import plugin_utils, so they are not held to it.
_HAND_MADE = re.compile(r"int\([^)]*\) for \w+ in (re\.findall\(r\"\\d\+\"|[\w.]*split\(\"\.\"\))")


def test_no_plugin_reads_versions_its_own_way():
    offenders = [
        str(p.relative_to(PLUGINS))
        for p in sorted(PLUGINS.rglob("*.py"))
        if "module_utils" not in p.parts and p.name != "versions.py" and _HAND_MADE.search(p.read_text())
    ]
    assert offenders == [], f"read versions through plugin_utils/versions.py: {offenders}"


def test_the_old_helpers_are_this_module():
    assert compat_versions.vtuple is v.vtuple and compat_versions.vcmp is v.vcmp and compat_versions.mm is v.mm
