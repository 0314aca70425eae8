"""The host's fabric from sysfs (module_utils/_fabric.py) on the fixture trees of tests/unit/fixtures/fabric/, and the
fabric_facts module around it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpucluster.horovod.plugins.module_utils import _fabric as fabric
from ansible_collections.gpucluster.horovod.plugins.modules import fabric_facts

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "fabric"


def summary(name):
    return fabric.summarize(fabric.read_tree(str(FIX / name)))


def test_two_hdr_infiniband_ports():
    devices = fabric.read_tree(str(FIX / "ib_hdr_2"))
    assert [d["name"] for d in devices] == ["mlx5_0", "mlx5_1"]
    assert devices[1]["numa_node"] == 1 and devices[1]["netdevs"] == ["ibp75s0"] and devices[0]["hca_type"] == "MT4123"
    port = devices[0]["ports"][0]
    assert (port["state"], port["state_code"], port["phys_state"], port["link_layer"]) == (
        "ACTIVE",
        4,
        "LinkUp",
        "InfiniBand",
    )
    assert port["rate_gbps"] == 200.0 and port["gids"][0]["index"] == 0  # the zero GIDs are left out
    s = summary("ib_hdr_2")
    assert s["kind"] == "infiniband"
    assert s["ports"] == ["mlx5_0:1", "mlx5_1:1"] and s["port_count"] == 2
    assert s["rate_gbps"] == 200.0 and s["gid_index"] is None and s["unusable"] == []


def test_a_port_down_is_named_with_why():
    s = summary("ib_hdr_1_down")
    assert s["kind"] == "infiniband" and s["ports"] == ["mlx5_0:1"]
    assert s["unusable"] == [{"port": "mlx5_1:1", "reason": "state DOWN"}]
    assert s["rate_gbps"] == 200.0  # the down port's rate is not the link limit


def test_roce_v2_picks_the_ipv4_roce_v2_gid():
    s = summary("roce_v2")
    assert s["kind"] == "roce" and s["ports"] == ["mlx5_0:1"]
    assert s["gid_index"] == 3 and s["gid_indexes"] == [3]
    assert s["rate_gbps"] == 100.0


def test_roce_without_an_ip_address_is_not_usable():
    s = summary("roce_no_ip")
    assert s["kind"] == "none" and s["ports"] == []
    assert s["unusable"][0]["port"] == "mlx5_0:1"
    assert "RoCE v2 GID" in s["unusable"][0]["reason"]


def test_mixed_and_none():
    assert summary("mixed")["kind"] == "mixed"
    assert summary("mixed")["ports"] == ["mlx5_0:1", "mlx5_1:1"]
    none = summary("none")
    assert none == {
        "kind": "none",
        "ports": [],
        "port_count": 0,
        "rates_gbps": [],
        "rate_gbps": None,
        "gid_index": None,
        "gid_indexes": [],
        "unusable": [],
    }
    assert fabric.read_tree(str(FIX / "no-such-root")) == []  # no ib_core loaded: no class directory at all


@pytest.mark.parametrize(
    ("text", "rate"),
    [("200 Gb/sec (4X HDR)", 200.0), ("2.5 Gb/sec (1X SDR)", 2.5), ("400 Gb/sec (4X NDR)", 400.0), ("", None)],
)
def test_rates(text, rate):
    assert fabric.parse_rate(text) == rate


def test_ibv_devinfo_list():
    assert fabric.parse_ibv_devinfo_list("2 HCAs found:\n\tmlx5_0\n\tmlx5_1\n") == ["mlx5_0", "mlx5_1"]
    assert fabric.parse_ibv_devinfo_list("0 HCAs found:\n") == []


def _module(monkeypatch, capsys, args, tools=None, outputs=None):
    tools = tools or {}
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, *a, **k: tools.get(name))

    def run_command(self, argv, **kwargs):
        key = " ".join([argv[0].rsplit("/", 1)[-1], *argv[1:]])
        return (outputs or {}).get(key, (1, "", "unexpected " + key))

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    with patch_module_args({"_ansible_check_mode": True, **args}), pytest.raises(SystemExit):
        fabric_facts.main()
    return json.loads(capsys.readouterr().out)


def test_module_reads_a_fixture_root_and_runs_nothing_on_the_host(monkeypatch, capsys):
    out = _module(monkeypatch, capsys, {"root": str(FIX / "roce_v2")}, tools={"ibv_devinfo": "/usr/bin/ibv_devinfo"})
    assert out["changed"] is False
    assert out["fabric"]["kind"] == "roce" and out["fabric"]["gid_index"] == 3
    assert out["fabric"]["verbs_devices"] is None  # a fixture root: the host's verbs library is not asked
    assert out["fabric"]["ofed"] is False and out["fabric"]["peermem_module"] is False


def test_module_names_a_device_the_verbs_library_does_not_see(monkeypatch, capsys):
    # The real root, pointed at a copy of a fixture through a monkeypatched SYSFS path.
    monkeypatch.setattr(fabric, "SYSFS", str(FIX / "ib_hdr_2" / "sys" / "class" / "infiniband").lstrip("/"))
    tools = {"ibv_devinfo": "/usr/bin/ibv_devinfo", "modinfo": "/sbin/modinfo"}
    outputs = {"ibv_devinfo -l": (0, "1 HCA found:\n\tmlx5_0\n", ""), "modinfo -F filename nvidia-peermem": (1, "", "")}
    out = _module(monkeypatch, capsys, {}, tools=tools, outputs=outputs)
    assert out["fabric"]["verbs_devices"] == ["mlx5_0"]
    assert out["fabric"]["problems"] == [
        "mlx5_1 in sysfs but not seen by the verbs library (ibv_devinfo): its provider (for example libmlx5-1 of "
        "rdma-core) is missing"
    ]
    assert out["fabric"]["peermem_module"] is False
