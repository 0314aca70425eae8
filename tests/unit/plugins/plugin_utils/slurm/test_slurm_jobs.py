"""The benchmark's runs as Slurm jobs (plugin_utils/slurm/jobs.py)."""

from __future__ import annotations

import pytest

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.slurm import jobs


def _hosts(*slots, gpus=0):
    return [{"name": f"node{i + 1}", "slots": s, "gpus": gpus} for i, s in enumerate(slots)]


NAMES = {"node1": "gpu001", "node2": "gpu002", "node3": "gpu003"}


def _argv(hosts, workers, **kw):
    options = {"slurm_nodes": NAMES, "job_name": f"bench-hvd-np{workers}", "time_limit_s": 900}
    options.update(kw)
    return jobs.job_argv(hosts, workers, ["srun", "--mpi=pmix", "python", "b.py"], **options)


def _before_command(argv):
    return argv[: argv.index("bash")]


def test_a_job_takes_the_hosts_horovodrun_would_fill_in_order_under_their_slurm_names():
    argv = _argv(_hosts(1, 1, 1), 2)
    assert _before_command(argv) == [
        "salloc",
        "--job-name=bench-hvd-np2",
        "--nodes=2",
        "--ntasks=2",
        "--ntasks-per-node=1",
        "--nodelist=gpu001,gpu002",
        "--time=15",
    ]
    assert argv[-4:] == ["srun", "--mpi=pmix", "python", "b.py"]


def test_the_job_line_comes_first_inside_the_allocation_then_the_command_replaces_it():
    argv = _argv(_hosts(1), 1)
    i = argv.index("bash")
    assert argv[i + 1] == "-c"
    assert argv[i + 2].startswith('echo "gpucluster-benchmark-job: id=${SLURM_JOB_ID:-}')
    assert argv[i + 2].endswith('exec "$@"')
    assert argv[i + 3] == "gpucluster-benchmark-job"  # $0; the command is "$@"


def test_uneven_ranks_per_node_leave_the_per_node_count_to_slurm():
    argv = _argv(_hosts(4, 4), 6)
    assert "--ntasks=6" in argv and "--nodes=2" in argv
    assert not [a for a in argv if a.startswith("--ntasks-per-node")]
    assert _argv(_hosts(4, 4), 8)[4] == "--ntasks-per-node=4"


def test_gpus_as_gres_partition_extra_arguments_and_an_outer_timeout():
    argv = _argv(
        _hosts(8, 8, gpus=8), 16, partition="h100", gres_gpu=True, extra_args=["--account=ml"], run_timeout=900
    )
    assert argv[:3] == ["timeout", "--kill-after=15", "900"]
    before = _before_command(argv)
    assert "--partition=h100" in before and "--gres=gpu:8" in before and before[-1] == "--account=ml"
    assert not [a for a in _argv(_hosts(1, 1), 2, gres_gpu=True) if a.startswith("--gres")]  # no GPUs, no gres


def test_an_elastic_job_asks_slurm_to_keep_its_allocation_when_a_node_fails():
    # without --no-kill Slurm ends the whole job once it marks one of its nodes down: the elastic run that was to go
    # on without the node would be killed with it
    before = _before_command(_argv(_hosts(1, 1), 2, no_kill=True))
    assert before[-1] == "--no-kill"
    assert "--no-kill" not in _argv(_hosts(1, 1), 2)


@pytest.mark.parametrize(("seconds", "minutes"), [(1, 1), (60, 1), (61, 2), (900, 15), (901, 16)])
def test_the_time_limit_is_whole_minutes_rounded_up(seconds, minutes):
    assert f"--time={minutes}" in _argv(_hosts(1), 1, time_limit_s=seconds)


def test_a_host_slurm_does_not_know_is_named_with_the_fix():
    with pytest.raises(jobs.SlurmJobError, match=r"node2 is not a node of the site's Slurm.*slurm\.conf"):
        _argv(_hosts(1, 1), 2, slurm_nodes={"node1": "gpu001", "node2": ""})
    # a host the job does not take needs no name
    assert "--nodelist=gpu001" in _argv(_hosts(1, 1), 1, slurm_nodes={"node1": "gpu001"})


@pytest.mark.parametrize(
    ("workers", "kw", "message"),
    [
        (3, {}, "3 workers do not fit the 2 slots"),
        (0, {}, "the worker count must be a whole number >= 1"),
        (1, {"job_name": "a b"}, "the job name must be"),
        (1, {"job_name": ""}, "the job name must be"),
        (1, {"time_limit_s": 0}, "the job's time limit must be at least 1"),
    ],
)
def test_bad_requests_are_refused_saying_what_is_valid(workers, kw, message):
    with pytest.raises(jobs.SlurmJobError, match=message):
        _argv(_hosts(1, 1), workers, **kw)


def test_a_job_needs_a_command():
    with pytest.raises(jobs.SlurmJobError, match="needs a command"):
        jobs.job_argv(_hosts(1), 1, [], slurm_nodes=NAMES, job_name="x", time_limit_s=60)


def test_the_job_line_is_read_back_from_the_run_output():
    out = "noise\ngpucluster-benchmark-job: id=4711 partition=batch nodes=n[1-2] tasks=2\nrank 0 ...\n"
    assert jobs.job_from_output(out) == {"id": "4711", "partition": "batch", "nodes": "n[1-2]", "tasks": 2}


def test_without_the_line_salloc_s_own_grant_gives_the_id_and_nothing_gives_nothing():
    err = "salloc: Granted job allocation 12\nsalloc: Relinquishing job allocation 12\n"
    assert jobs.job_from_output("", err) == {"id": "12", "partition": "", "nodes": "", "tasks": None}
    assert jobs.job_from_output("", "salloc: error: Job submit/allocate failed: Invalid node name specified") == {}
    assert jobs.job_from_output(None) == {}
