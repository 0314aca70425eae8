"""Which NCCL a GPU build of Horovod compiles against (plugin_utils/horovod/nccl.py) and where the nccl role says
it put NCCL (gpu_libs/nccl.py nccl_location): the producer and the reader of the fact gpucluster_nccl."""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.gpu_libs import nccl_location, nccl_plan
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.horovod.nccl import build_nccl

KEY = "/var/lib/gpucluster/horovod-build/0123abcd"
PIP = nccl_location(nccl_plan("pip", "2.28.9", "13.0", "debian12"), "/opt/gpucluster/nccl")
REPO = nccl_location(nccl_plan("repo", "2.28.9", "13.0", "debian12", available=["2.28.9-1+cuda13.0"]))


def test_the_nccl_role_publishes_a_home_horovod_can_build_against():
    assert PIP == {"version": "2.28.9", "method": "pip", "home": "/opt/gpucluster/nccl", "link": "SHARED"}
    # The packages put nccl.h in /usr/include and libnccl.so in the linker's directory.
    assert REPO["home"] == "/usr"
    # Without the stable link the version's own directory, which has include/ and lib/ too.
    own = nccl_location(nccl_plan("pip", "2.28.9", "13.0", "debian12"))
    assert own["home"].endswith("nccl-2.28.9-cu13/nvidia/nccl")


def test_the_framework_wheel_comes_before_the_installed_nccl():
    got = build_nccl("", {"HOROVOD_GPU_OPERATIONS": "NCCL"}, "/venv/nvidia/nccl", PIP, KEY)
    assert got["source"] == "framework wheel"
    assert got["env"] == {"HOROVOD_NCCL_HOME": KEY + "/nccl"}
    assert got["home"] == KEY + "/nccl"


def test_the_nccl_role_home_without_a_wheel_no_wiring_by_hand():
    got = build_nccl("", {"HOROVOD_GPU_OPERATIONS": "NCCL"}, "", PIP, KEY)
    assert got["source"] == "nccl role"
    assert got["env"] == {"HOROVOD_NCCL_HOME": "/opt/gpucluster/nccl"}
    assert "NCCL 2.28.9 the nccl role installed (pip, /opt/gpucluster/nccl)" in got["reason"]


def test_what_the_user_says_wins():
    mine = build_nccl("/srv/nccl", {"HOROVOD_NCCL_HOME": "/srv/nccl"}, "/venv/nvidia/nccl", PIP, KEY)
    assert (mine["source"], mine["home"], mine["env"]) == ("horovod_nccl_home", "/srv/nccl", {})
    env = build_nccl("", {"HOROVOD_NCCL_INCLUDE": "/srv/inc"}, "/venv/nvidia/nccl", PIP, KEY)
    assert (env["source"], env["env"]) == ("horovod_build_env", {})


def test_nothing_known_leaves_it_to_horovods_search():
    got = build_nccl("", {}, "", {}, KEY)
    assert (got["source"], got["home"], got["env"]) == ("system", "", {})
