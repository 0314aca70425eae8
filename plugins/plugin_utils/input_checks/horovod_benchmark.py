# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the horovod_benchmark role."""

from __future__ import annotations

from ._base import (
    WARNING,
    Finding,
    absolute_path,
    at_least,
    check,
    inventory_host,
    inventory_hosts,
    parse_sizes,
    positive,
    set_by_user,
    tcp_port,
    training_user,
)


@check("horovod_benchmark_sizes", description="a comma list of sizes with K/M/G suffixes, each > 0")
def _sizes(values, ctx):
    value = values["horovod_benchmark_sizes"]
    try:
        parse_sizes(value)
    except ValueError as exc:
        yield Finding("horovod_benchmark_sizes", value, str(exc), "e.g. 4K,64K,1M,16M")


@check("horovod_benchmark_worker_counts", description="worker counts > 0, each once")
def _worker_counts(values, ctx):
    counts = values["horovod_benchmark_worker_counts"] or []
    bad = [c for c in counts if not isinstance(c, int) or c < 1]
    if bad:
        yield Finding("horovod_benchmark_worker_counts", counts, f"{bad} not a worker count", "integers >= 1")
    elif len(set(counts)) != len(counts):
        yield Finding("horovod_benchmark_worker_counts", counts, "a count is listed twice", "each count once")


@check(
    "horovod_benchmark_warmup_steps",
    "horovod_benchmark_steps",
    description="fewer warm-up steps than steps",
)
def _warmup_steps(values, ctx):
    warm, steps = values["horovod_benchmark_warmup_steps"], values["horovod_benchmark_steps"]
    if isinstance(warm, int) and isinstance(steps, int) and steps > 0 and warm >= steps:
        yield Finding(
            "horovod_benchmark_warmup_steps",
            warm,
            f"not fewer than horovod_benchmark_steps ({steps})",
            f"0..{steps - 1}",
        )


@check(
    "horovod_benchmark_elastic",
    "horovod_benchmark_framework",
    description="the elastic run trains with PyTorch (the program's elastic mode)",
)
def _elastic_framework(values, ctx):
    if values["horovod_benchmark_elastic"] is True and values["horovod_benchmark_framework"] != "pytorch":
        yield Finding(
            "horovod_benchmark_elastic",
            True,
            f"the elastic run trains with PyTorch, and the framework is {values['horovod_benchmark_framework']}",
            "false, or the pytorch framework",
        )


_ELASTIC_SETTINGS = (
    "horovod_benchmark_elastic_min_workers",
    "horovod_benchmark_elastic_seconds",
    "horovod_benchmark_elastic_commit_steps",
)


@check(
    "horovod_benchmark_elastic",
    *_ELASTIC_SETTINGS,
    description="warns when the elastic run's settings are set while horovod_benchmark_elastic is false",
    level=WARNING,
)
def _elastic_settings_unused(values, ctx):
    if values["horovod_benchmark_elastic"] is not True:
        yield from _unused(
            values, ctx, _ELASTIC_SETTINGS, "horovod_benchmark_elastic is false, so no elastic run happens",
            "horovod_benchmark_elastic: true",
        )  # fmt: skip


def _unused(values, ctx, names, why, fix):
    """A warning for each of ``names`` the user set although ``why`` says it is not used on this host."""
    for name in names:
        if set_by_user(ctx, name):
            yield Finding(name, values[name], f"not used on {ctx.host}: {why}", f"{fix}, or drop {name}", WARNING)


@check(
    "horovod_benchmark_plain_rounds",
    "horovod_benchmark_plain_baseline",
    "horovod_benchmark_training",
    description="warns when horovod_benchmark_plain_rounds is set while no one-worker comparison runs",
    level=WARNING,
)
def _plain_rounds_unused(values, ctx):
    off = [n for n in ("horovod_benchmark_plain_baseline", "horovod_benchmark_training") if values[n] is not True]
    if off:
        why = f"{' and '.join(off)} false, so no one-worker comparison runs"
        yield from _unused(values, ctx, ("horovod_benchmark_plain_rounds",), why, f"{': true, '.join(off)}: true")


_SLURM_SETTINGS = ("horovod_benchmark_slurm_partition", "horovod_benchmark_slurm_args")


@check(
    *_SLURM_SETTINGS,
    "horovod_benchmark_launch_method",
    description="warns when the Slurm jobs' settings are set while horovod_benchmark_launch_method is horovodrun",
    level=WARNING,
)
def _slurm_settings_unused(values, ctx):
    # auto decides on the site's Slurm, which the first play reads after these checks: only horovodrun is certain
    if values["horovod_benchmark_launch_method"] == "horovodrun":
        yield from _unused(
            values, ctx, _SLURM_SETTINGS, "horovod_benchmark_launch_method is horovodrun, so no run is a Slurm job",
            "horovod_benchmark_launch_method: slurm (or auto on a Slurm site)",
        )  # fmt: skip


@check("horovod_benchmark_nccl_tests", description="auto, true or false")
def _nccl_tests(values, ctx):
    value = values["horovod_benchmark_nccl_tests"]
    if str(value).lower() not in ("auto", "true", "false"):
        yield Finding("horovod_benchmark_nccl_tests", value, "not a choice", "auto, true or false")


@check("horovod_slots", description="horovod_slots (a host variable), when set: a whole number >= 1")
def _host_slots(values, ctx):
    slots = values["horovod_slots"]
    if slots in (None, ""):
        return
    try:
        number = int(str(slots).strip())
    except ValueError:
        number = 0
    if number < 1:
        yield Finding("horovod_slots", slots, f"not a worker count for {ctx.host}", "a whole number >= 1, or unset")


CHECKS = [
    _host_slots,
    _sizes,
    _worker_counts,
    _warmup_steps,
    _elastic_framework,
    _elastic_settings_unused,
    _plain_rounds_unused,
    _slurm_settings_unused,
    _nccl_tests,
    training_user("horovod_benchmark_user"),
    absolute_path(
        "horovod_benchmark_venv",
        "horovod_benchmark_program_dir",
        "horovod_benchmark_work_dir",
        "horovod_benchmark_results_dir",
        "horovod_benchmark_nccl_tests_dir",
    ),
    inventory_hosts("horovod_benchmark_nodes"),
    inventory_host("horovod_benchmark_launcher"),
    tcp_port("horovod_benchmark_ssh_port", "horovod_benchmark_iperf_port"),
    positive(
        "horovod_benchmark_default_slots",
        "horovod_benchmark_iters",
        "horovod_benchmark_large_iters",
        "horovod_benchmark_batch_size",
        "horovod_benchmark_image_size",
        "horovod_benchmark_steps",
        "horovod_benchmark_iperf_seconds",
        "horovod_benchmark_elastic_min_workers",
        "horovod_benchmark_elastic_commit_steps",
        "horovod_benchmark_plain_rounds",
        what="a count",
    ),
    at_least(0, "horovod_benchmark_warmup", "horovod_benchmark_warmup_steps", what="a count >= 0"),
    positive(
        "horovod_benchmark_start_timeout",
        "horovod_benchmark_run_timeout",
        "horovod_benchmark_ssh_timeout",
        "horovod_benchmark_elastic_seconds",
        what="seconds",
    ),
    at_least(0, "horovod_benchmark_fusion_threshold_mb", what="MiB >= 0 (0: no tensor fusion)"),
    positive("horovod_benchmark_cycle_time_ms", what="milliseconds"),
    at_least(0, "horovod_benchmark_poll_us", what="microseconds >= 0 (0: synchronize())"),
]
