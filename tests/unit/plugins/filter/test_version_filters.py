"""Version filters for role YAML: the parts of a version as plugin_utils/versions.py reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter import versions as f


def test_filters_are_registered_and_documented():
    names = set(f.FilterModule().filters())
    assert names == {"version_parts", "version_major", "version_mm"}
    for name in names:
        assert (Path(f.__file__).parent / f"{name}.yml").is_file(), name


@pytest.mark.parametrize(
    ("version", "parts", "major", "mm"),
    [
        ("12.4.1", [12, 4, 1], "12", "12.4"),
        ("13", [13], "13", "13.0"),
        (12.4, [12, 4], "12", "12.4"),
        ("1:535.261.03-1", [535, 261, 3, 1], "535", "535.261"),  # a Debian package version with its epoch
        ("2.21.5-1+cuda12.4", [2, 21, 5, 1], "2", "2.21"),  # the local label is not the version
        ("5.0.8", [5, 0, 8], "5", "5.0"),
    ],
)
def test_parts_major_and_major_minor(version, parts, major, mm):
    assert f.version_parts(version) == parts
    assert f.version_major(version) == major
    assert f.version_mm(version) == mm


@pytest.mark.parametrize("bad", ["", "none", None])
def test_no_number_is_an_error_naming_the_value(bad):
    with pytest.raises(AnsibleFilterError, match="has no version number"):
        f.version_mm(bad)
