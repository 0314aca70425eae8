"""Python picker: the interpreter chosen per OS.

Expected values are transcribed independently from the upstream sources, not read back from data/compat,
so a wrong table row fails a test (moved from test_compat.py).
"""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    resolve,
)


def test_python_default_per_os():
    assert resolve({"os": "debian12"})["python"] == "3.11"
    assert resolve({"os": "ubuntu22.04"})["python"] == "3.10"
    assert resolve({"os": "rocky9", "framework": "none"})["python"] == "3.9"
    # torch 2.13 needs Python >= 3.10: the newest AppStream interpreter is used instead of 3.9.
    assert resolve({"os": "rocky9"})["python"] == "3.12"


def test_rhel8_falls_back_to_a_vendor_python_the_framework_supports():
    stack = resolve({"os": "rhel8", "framework": "pytorch"})
    assert stack["python"] != "3.6"
    assert "vendor interpreter" in stack["reasons"]["python"]
