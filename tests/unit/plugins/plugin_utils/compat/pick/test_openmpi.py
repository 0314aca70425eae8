"""Open MPI picker and helpers.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    openmpi_version_ok,
)


def test_openmpi_helpers():
    assert openmpi_version_ok("4.1.4")
    assert openmpi_version_ok("3.1.2")
    assert not openmpi_version_ok("3.1.3")
    assert not openmpi_version_ok("2.1.1")
