# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pip requirement, distribution and build flag of each framework of a Horovod venv."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.horovod.plugins.filter.horovod_frameworks import (
    horovod_frameworks,
    horovod_frameworks_missing,
)
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.framework_plan import framework_plan, satisfied


@pytest.mark.parametrize(
    ("spec", "distribution", "requirement", "label"),
    [
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "torch", "torch==2.13.0+cpu", True),
        ({"name": "pytorch", "version": "2.11.0", "variant": "cu130"}, "torch", "torch==2.11.0+cu130", True),
        ({"name": "pytorch", "version": "2.11.0", "variant": ""}, "torch", "torch==2.11.0", False),
        (
            {"name": "tensorflow", "version": "2.15.0", "variant": "cpu"},
            "tensorflow-cpu",
            "tensorflow-cpu==2.15.0",
            False,
        ),
        (
            {"name": "tensorflow", "version": "2.15.0", "variant": "cu122"},
            "tensorflow",
            "tensorflow[and-cuda]==2.15.0",
            False,
        ),
        # no [and-cuda] extra before 2.14: the plain package (the CUDA libraries come from the system)
        ({"name": "tensorflow", "version": "2.12.0", "variant": "cu118"}, "tensorflow", "tensorflow==2.12.0", False),
        ({"name": "tensorflow", "version": "2.15.0", "variant": ""}, "tensorflow", "tensorflow==2.15.0", False),
        ({"name": "mxnet", "version": "1.9.1", "variant": "cu112"}, "mxnet-cu112", "mxnet-cu112==1.9.1", False),
        ({"name": "mxnet", "version": "1.9.1", "variant": "cpu"}, "mxnet", "mxnet==1.9.1", False),
    ],
)
def test_plan(spec, distribution, requirement, label):
    plan = framework_plan(spec)
    assert (plan["distribution"], plan["requirement"], plan["local_label"]) == (distribution, requirement, label)


def test_flags_modules_and_default_variant():
    plans = horovod_frameworks(
        [{"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, {"name": "pytorch", "version": "2.13.0"}],
        "cpu",
    )
    assert [p["flag"] for p in plans] == ["HOROVOD_WITH_TENSORFLOW", "HOROVOD_WITH_PYTORCH"]
    assert [p["without_flag"] for p in plans] == ["HOROVOD_WITHOUT_TENSORFLOW", "HOROVOD_WITHOUT_PYTORCH"]
    assert [p["module"] for p in plans] == ["tensorflow", "torch"]
    # the extra framework without a variant takes the resolved one
    assert plans[1]["requirement"] == "torch==2.13.0+cpu"


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        ([{"name": "jax", "version": "0.4"}], "unknown framework 'jax'"),
        ([{"name": "pytorch"}], "pytorch has no version"),
        ([{"name": "pytorch", "version": "2.1"}, {"name": "pytorch", "version": "2.2"}], "more than once: pytorch"),
        (["pytorch"], "must be a dict"),
    ],
)
def test_refused(specs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        horovod_frameworks(specs)


@pytest.mark.parametrize(
    ("spec", "have", "ok"),
    [
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "2.13.0+cpu", True),
        # the CUDA build of the same version does not satisfy a +cpu pin, nor a build without a label
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "2.13.0+cu121", False),
        ({"name": "pytorch", "version": "2.13.0", "variant": "cpu"}, "2.13.0", False),
        ({"name": "pytorch", "version": "2.13.0", "variant": ""}, "2.13.0+cu121", True),
        ({"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, "2.15.0", True),
        # trailing zeros do not count (PEP 440)
        ({"name": "tensorflow", "version": "2.15", "variant": "cpu"}, "2.15.0", True),
        ({"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, "2.15.1", False),
        ({"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, None, False),
    ],
)
def test_satisfied(spec, have, ok):
    assert satisfied(framework_plan(spec), have) is ok


def test_missing_reads_the_probe_by_distribution():
    plans = horovod_frameworks(
        [{"name": "tensorflow", "version": "2.15.0", "variant": "cpu"}, {"name": "pytorch", "version": "2.13.0"}], "cpu"
    )
    assert horovod_frameworks_missing(plans, {"tensorflow-cpu": "2.15.0", "torch": None}) == ["torch==2.13.0+cpu"]
    # the plain tensorflow distribution does not count for tensorflow-cpu
    assert horovod_frameworks_missing(plans, {"tensorflow": "2.15.0", "torch": "2.13.0+cpu"}) == [
        "tensorflow-cpu==2.15.0"
    ]
    assert horovod_frameworks_missing(plans, {"tensorflow-cpu": "2.15.0", "torch": "2.13.0+cpu"}) == []
