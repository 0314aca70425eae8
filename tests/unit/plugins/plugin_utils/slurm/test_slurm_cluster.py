"""Whether the play's nodes fit the site's Slurm (plugin_utils/slurm, filter slurm_cluster_problems)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter.slurm import slurm_cluster_problems
from ansible_collections.gpucluster.horovod.plugins.module_utils import _slurm

NODES = [{"name": n} for n in ("n1", "n2", "n3")]


def _fact(node, cluster="lab", problems=(), warnings=(), names=None):
    return {
        "present": True,
        "cluster": cluster,
        "node": {"name": node} if node else None,
        "nodes": NODES,
        "names": names or [node or "x"],
        "problems": list(problems),
        "warnings": list(warnings),
    }


def test_no_slurm_anywhere_is_no_problem():
    absent = _slurm.absent("scontrol is not installed")
    assert slurm_cluster_problems({"a": absent, "b": absent}) == {"problems": [], "warnings": []}


def test_every_node_known():
    facts = {"a": _fact("n1"), "b": _fact("n2")}
    assert slurm_cluster_problems(facts) == {"problems": [], "warnings": []}


def test_an_inventory_node_slurm_does_not_know_is_named():
    facts = {
        "a": _fact("n1"),
        "b": _fact("n2"),
        "c": _fact(None, names=["c", "c.lab", "10.0.0.9"]),
        "d": _slurm.absent("scontrol is not installed"),
    }
    found = slurm_cluster_problems(facts)
    assert found["problems"] == [
        "Slurm (lab) has a, b as nodes but not c (looked for as c or c.lab or 10.0.0.9); "
        "d (no Slurm: scontrol is not installed); the nodes Slurm knows: n1, n2, n3"
    ]


def test_nodes_of_two_clusters():
    found = slurm_cluster_problems({"a": _fact("n1"), "b": _fact("n2", cluster="other")})
    assert found["problems"] == ["the nodes belong to different Slurm clusters: lab (a); other (b)"]


def test_each_nodes_own_problems_and_warnings_carry_its_name():
    facts = {"a": _fact("n1", warnings=["pam_slurm_adopt is in the PAM stack"]), "b": _fact("n2", problems=["p"])}
    assert slurm_cluster_problems(facts) == {
        "problems": ["b: p"],
        "warnings": ["a: pam_slurm_adopt is in the PAM stack"],
    }


def test_refuses_a_list():
    with pytest.raises(AnsibleFilterError, match="dict of host"):
        slurm_cluster_problems([])
