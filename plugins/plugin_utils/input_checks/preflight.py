# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the preflight role (the cluster-wide inputs: framework, pins, training user, SSH)."""

from __future__ import annotations

import re

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import FRAMEWORKS, PIN_KEYS

from ._base import WARNING, Finding, check, inventory_host, inventory_hosts, tcp_port, training_user

_GPU_PINS = ("cuda", "cudnn", "nccl", "driver_branch")


@check("preflight_framework", description="one of the frameworks the engine knows, or none (GPU stack only)")
def _framework(values, ctx):
    value = values["preflight_framework"]
    known = [*sorted(FRAMEWORKS), "none"]
    if value not in known:
        yield Finding("preflight_framework", value, "unknown framework", ", ".join(known))


@check("preflight_python", description="empty or a Python 3 version such as 3.11")
def _python(values, ctx):
    value = values["preflight_python"]
    if value and not re.match(r"^3\.\d+$", str(value)):
        yield Finding("preflight_python", value, "not a Python 3 version", "empty or e.g. 3.11")


@check("preflight_pins", description="only the keys the engine can pin")
def _pin_keys(values, ctx):
    pins = values["preflight_pins"] or {}
    unknown = sorted(set(pins) - set(PIN_KEYS))
    if unknown:
        yield Finding("preflight_pins", pins, f"unknown pin {', '.join(unknown)}", ", ".join(PIN_KEYS))


@check(
    "preflight_pins",
    description="warns about GPU pins (cuda, cudnn, nccl, driver_branch) on a host where gpu_facts found no GPU",
    level=WARNING,
)
def _gpu_pins_without_gpu(values, ctx):
    pins = values["preflight_pins"] or {}
    gpu_pins = sorted(k for k in pins if k in _GPU_PINS)
    if gpu_pins and ctx.has_gpu is False:
        yield Finding(
            "preflight_pins",
            {k: pins[k] for k in gpu_pins},
            f"{', '.join(gpu_pins)} cannot apply on {ctx.host}: gpu_facts found no NVIDIA GPU there",
            "drop the pin, or run on GPU hosts",
            WARNING,
        )


@check("preflight_node_health", description="fail, warn or off")
def _node_health(values, ctx):
    value = values["preflight_node_health"]
    if value not in ("fail", "warn", "off"):
        yield Finding("preflight_node_health", value, "not a health policy", "fail, warn or off")


@check("preflight_expected_gpus", description="a whole number of GPUs, 0 (not checked) or more")
def _expected_gpus(values, ctx):
    value = values["preflight_expected_gpus"]
    if isinstance(value, bool) or not re.match(r"^\d+$", str(value).strip()):
        yield Finding("preflight_expected_gpus", value, "not a whole number of GPUs", "0 (not checked) or more, e.g. 8")


def _unused_while_health_is_off(variable, verb, fix):
    """A warning check: ``variable`` set (not 0) while preflight_node_health is off, so nothing ``verb`` it."""

    def _unused(values, ctx):
        value = values[variable]
        if values["preflight_node_health"] == "off" and str(value).strip() not in ("", "0"):
            yield Finding(
                variable,
                value,
                f"nothing {verb} it on {ctx.host}: preflight_node_health (gpucluster_node_health) is off",
                f"gpucluster_node_health: fail or warn, or {fix}",
                WARNING,
            )

    return _unused


_expected_gpus_unused = check(
    "preflight_expected_gpus",
    description="warns when an expected GPU count is set while preflight_node_health is off (nothing checks it)",
    level=WARNING,
)(_unused_while_health_is_off("preflight_expected_gpus", "checks", "drop the expected count"))

_dcgm_diag_unused = check(
    "preflight_dcgm_diag",
    description="warns when DCGM's diagnostic is asked for while preflight_node_health is off (nothing runs it)",
    level=WARNING,
)(_unused_while_health_is_off("preflight_dcgm_diag", "runs", "gpucluster_dcgm_diag: 0"))


CHECKS = [
    _framework,
    _python,
    _pin_keys,
    _gpu_pins_without_gpu,
    _node_health,
    _expected_gpus,
    _expected_gpus_unused,
    _dcgm_diag_unused,
    training_user("preflight_training_user"),
    tcp_port("preflight_ssh_port"),
    inventory_host("preflight_launcher"),
    inventory_hosts("preflight_hosts", non_empty=False),
]
