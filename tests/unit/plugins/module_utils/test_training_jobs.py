"""The training jobs on a host (module_utils/_training_jobs.py) on /proc trees built here, on this machine's real /proc
with real processes, and the training_jobs module around it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpucluster.horovod.plugins.module_utils import _training_jobs as training
from ansible_collections.gpucluster.horovod.plugins.modules import training_jobs


def _stat(pid, comm, ppid, sid, start):
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
    # priority nice num_threads itrealvalue starttime ...
    return f"{pid} ({comm}) S {ppid} {sid} {sid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 {start} 0 0\n"


def make_proc(root, processes, uptime=1000.0):
    """processes: dicts with pid, comm, ppid, sid, start (ticks), uid, argv, env, and optional maps, exe, cgroup."""
    proc = root / "proc"
    proc.mkdir(parents=True)
    (proc / "uptime").write_text(f"{uptime} 1.0\n")
    (proc / "self").mkdir()  # not a process directory
    for spec in processes:
        base = proc / str(spec["pid"])
        base.mkdir()
        (base / "stat").write_text(_stat(spec["pid"], spec.get("comm", "x"), spec["ppid"], spec["sid"], spec["start"]))
        (base / "status").write_text(f"Name:\t{spec.get('comm', 'x')}\nUid:\t{spec['uid']}\t{spec['uid']}\t0\t0\n")
        (base / "cmdline").write_bytes(b"".join(arg.encode() + b"\0" for arg in spec["argv"]))
        (base / "environ").write_bytes(b"".join(f"{k}={v}".encode() + b"\0" for k, v in spec.get("env", {}).items()))
        (base / "maps").write_text(
            "".join(f"7f00-7f01 r-xp 00000000 fd:01 1 {path}\n" for path in spec.get("maps", []))
            + "7ffd-7ffe rw-p 00000000 00:00 0 [stack]\n"
        )
        (base / "cgroup").write_text(spec.get("cgroup", "0::/user.slice\n"))
        if "exe" in spec:
            os.symlink(spec["exe"], base / "exe")
    return str(root)


VENV = "/opt/horovod/venv"
# A node of a two-node Gloo job, started with setsid nohup by the training user (uid 1001): horovodrun and its ssh
# clients in session 500, the local rank in session 500, the rank the other node's horovodrun started through sshd in
# session 700; beside it: sshd, a login shell, a plain Python process using the venv (no rank), one outside it, an
# Open MPI job in a container (orted and a rank), and a kernel thread.
NODE = [
    {"pid": 1, "comm": "systemd", "ppid": 0, "sid": 1, "start": 1, "uid": 0, "argv": ["/sbin/init"]},
    {"pid": 300, "comm": "sshd", "ppid": 1, "sid": 300, "start": 50, "uid": 0, "argv": ["sshd: /usr/sbin/sshd -D"]},
    {"pid": 400, "comm": "bash", "ppid": 300, "sid": 400, "start": 60, "uid": 1001, "argv": ["-bash"]},
    {
        "pid": 500,
        "comm": "horovodrun",
        "ppid": 1,
        "sid": 500,
        "start": 40000,
        "uid": 1001,
        "argv": [
            f"{VENV}/bin/python",
            f"{VENV}/bin/horovodrun",
            "-np",
            "2",
            "-H",
            "n1:1,n2:1",
            "--gloo",
            "python",
            "train.py",
        ],
        "exe": "/usr/bin/python3.11",
        "maps": ["/usr/lib/x86_64-linux-gnu/libc.so.6"],
    },
    {
        "pid": 510,
        "comm": "ssh",
        "ppid": 500,
        "sid": 500,
        "start": 40100,
        "uid": 1001,
        "argv": ["ssh", "-o", "PasswordAuthentication=no", "n2", "HOROVOD_RANK=1 python train.py"],
    },
    {
        "pid": 520,
        "comm": "python",
        "ppid": 500,
        "sid": 500,
        "start": 40200,
        "uid": 1001,
        "argv": ["python", "train.py"],
        "env": {"HOROVOD_RANK": "0", "HOROVOD_SIZE": "2", "PATH": "/usr/bin"},
        "exe": f"{VENV}/bin/python3.11",
        "maps": [f"{VENV}/lib/python3.11/site-packages/horovod/torch/mpi_lib_v2.so"],
    },
    {
        "pid": 700,
        "comm": "python",
        "ppid": 300,
        "sid": 700,
        "start": 41000,
        "uid": 1001,
        "argv": ["python", "train.py"],
        "env": {"HOROVOD_RANK": "1", "HOROVOD_SIZE": "2"},
    },
    {
        "pid": 800,
        "comm": "python",
        "ppid": 400,
        "sid": 400,
        "start": 42000,
        "uid": 1001,
        "argv": [f"{VENV}/bin/python", "notebook.py"],
        "exe": f"{VENV}/bin/python3.11",
        "maps": [f"{VENV}/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so"],
    },
    {
        "pid": 810,
        "comm": "python3",
        "ppid": 400,
        "sid": 400,
        "start": 42100,
        "uid": 1001,
        "argv": ["/usr/bin/python3", "-c", "pass"],
        "exe": "/usr/bin/python3.11",
        "env": {"RANK": "0", "WORLD_SIZE": "2"},
    },
    {
        "pid": 900,
        "comm": "orted",
        "ppid": 880,
        "sid": 880,
        "start": 43000,
        "uid": 1001,
        "argv": ["/usr/bin/orted", "-mca", "ess", "env"],
        "cgroup": "0::/system.slice/docker-c0ffee.scope\n",
    },
    {
        "pid": 910,
        "comm": "python",
        "ppid": 900,
        "sid": 880,
        "start": 43100,
        "uid": 1001,
        "argv": ["python", "bench.py"],
        "env": {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4"},
        "cgroup": "0::/system.slice/docker-c0ffee.scope\n",
    },
    {"pid": 2, "comm": "kthreadd", "ppid": 0, "sid": 0, "start": 0, "uid": 0, "argv": []},
]


def jobs_of(tmp_path, processes=None, **kwargs):
    root = make_proc(tmp_path, NODE if processes is None else processes)
    paths = kwargs.pop("paths", ())
    entries = training.read_proc(root, with_maps=bool(paths), within=kwargs.pop("within", ""))
    return training.group_jobs(entries, paths=paths, uptime_s=1000.0, ticks_per_s=100, users={1001: "hvd"}, **kwargs)


def test_parse_stat_reads_past_a_command_name_with_spaces_and_parentheses():
    assert training.parse_stat("42 (a (b) c) S 7 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0") == (7, 42, 12345)
    assert training.parse_stat("garbage") is None
    assert training.parse_stat("1 (x) S") is None


def test_launchers_daemons_and_ranks_grouped_by_session(tmp_path):
    jobs = jobs_of(tmp_path)
    assert [job["session"] for job in jobs] == [500, 700, 880]
    gloo = jobs[0]
    assert gloo["user"] == "hvd" and gloo["leader"]["pid"] == 500
    assert [(p["pid"], p["role"], p["framework"], p["rank"], p["size"]) for p in gloo["processes"]] == [
        (500, "launcher", "horovodrun", None, None),
        (520, "rank", "Horovod (Gloo)", 0, 2),
    ]
    # ticks 40000 at 100/s: started 400 s after boot, 600 s ago
    assert gloo["age_s"] == 600
    assert gloo["summary"] == (
        f"{VENV}/bin/python {VENV}/bin/horovodrun -np 2 -H n1:1,n2:1 --gloo python train.py"
        " (pid 500 of hvd, running 10 min, Horovod (Gloo) rank 0 of 2 here)"
    )
    assert jobs[1]["summary"] == "python train.py (pid 700 of hvd, running 9 min, Horovod (Gloo) rank 1 of 2 here)"
    mpi = jobs[2]
    assert [(p["pid"], p["role"]) for p in mpi["processes"]] == [(900, "MPI daemon"), (910, "rank")]
    assert mpi["leader"]["pid"] == 900 and "Open MPI rank 3 of 4 here" in mpi["summary"]


def test_rank_variables_need_their_launchers_context(tmp_path):
    # RANK and WORLD_SIZE without MASTER_ADDR are not torch.distributed's (pid 810); with it they are
    processes = [dict(NODE[8], env={"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "n1"})]
    assert [job["processes"][0]["framework"] for job in jobs_of(tmp_path, processes)] == ["torch.distributed"]
    assert all(810 not in [p["pid"] for p in job["processes"]] for job in jobs_of(tmp_path / "b"))


def test_paths_add_the_processes_that_use_the_venv(tmp_path):
    jobs = jobs_of(tmp_path, paths=(VENV,))
    notebook = [job for job in jobs if job["session"] == 400]
    assert len(notebook) == 1
    assert [(p["pid"], p["role"]) for p in notebook[0]["processes"]] == [(800, f"uses {VENV}/bin/python3.11")]
    # the launcher runs the system's Python (its exe) on the venv's script: a launcher all the same
    assert jobs[0]["processes"][0]["role"] == "launcher"
    # a path that merely starts like the venv's is not under it
    assert not training.classify({"argv": ["x"], "exe": VENV + "2/bin/python", "maps": []}, (VENV,))


def test_within_a_container_reads_only_its_processes(tmp_path):
    jobs = jobs_of(tmp_path, within="c0ffee")
    assert [job["session"] for job in jobs] == [880]
    assert jobs_of(tmp_path / "b", within="deadbeef") == []


def test_own_process_and_its_ancestors_are_never_a_job(tmp_path):
    # the module run by Ansible from inside a job's session (a launcher that runs Ansible) does not name itself
    processes = [
        dict(NODE[3]),
        {
            "pid": 600,
            "comm": "python",
            "ppid": 500,
            "sid": 500,
            "start": 45000,
            "uid": 1001,
            "argv": ["python", "x"],
            "env": {"HOROVOD_RANK": "0", "HOROVOD_SIZE": "1"},
        },
    ]
    assert jobs_of(tmp_path, processes, own_pid=600) == []


def test_the_program_behind_an_interpreter():
    assert training._program(["python3", "-u", "/usr/local/bin/torchrun", "--nproc-per-node", "2"]) == "torchrun"
    assert training._program(["python3.11", "-m", "horovod.runner.launch", "-np", "2"]) == "horovod"
    assert training._program(["/usr/bin/mpirun", "-np", "4"]) == "mpirun"
    assert training._program(["python"]) == "python"


def test_an_empty_or_missing_proc(tmp_path):
    assert training.read_proc(str(tmp_path)) == []
    assert training.group_jobs([]) == []


# This machine's real /proc: a process with a rank in its environment, in its own session, is found and named; the
# test's own process (no rank) is not.
@pytest.fixture
def real_rank():
    env = dict(os.environ, HOROVOD_RANK="1", HOROVOD_SIZE="3")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env, start_new_session=True)
    time.sleep(0.2)
    yield child
    child.kill()
    child.wait()


def test_the_module_on_this_machine_finds_a_real_rank(real_rank, capsys):
    with patch_module_args({"_ansible_check_mode": True}), pytest.raises(SystemExit):
        training_jobs.main()
    out = json.loads(capsys.readouterr().out)
    assert out["changed"] is False
    mine = [job for job in out["jobs"] if job["leader"]["pid"] == real_rank.pid]
    assert len(mine) == 1, out["summaries"]
    assert mine[0]["session"] == real_rank.pid and mine[0]["processes"][0]["rank"] == 1
    assert "Horovod (Gloo) rank 1 of 3 here" in mine[0]["summary"]
    assert all(job["leader"]["pid"] != os.getpid() for job in out["jobs"])


def test_the_module_reads_a_tree_and_only_a_container(tmp_path, capsys):
    root = make_proc(tmp_path, NODE)
    with patch_module_args({"root": root, "within": "c0ffee"}), pytest.raises(SystemExit):
        training_jobs.main()
    out = json.loads(capsys.readouterr().out)
    assert [job["session"] for job in out["jobs"]] == [880]
    assert out["summaries"] == [job["summary"] for job in out["jobs"]]
