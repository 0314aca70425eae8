"""The horovod role's Slurm batch script (templates/gpucluster-horovod.sbatch.j2), rendered and run.

Rendered as the role renders it (Jinja2 with Ansible's quote filter), then run by bash as sbatch runs it on the first
node of an allocation, with stand-ins first on the PATH for srun, scontrol and horovodrun that record how they were
called, and a stand-in hvd-env (the job environment). The preflight_openmpi_default scenario submits it to a real
Slurm.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import jinja2
import pytest

TEMPLATE = Path(__file__).resolve().parents[3] / "roles" / "horovod" / "templates" / "gpucluster-horovod.sbatch.j2"
RECORD = '#!/bin/sh\necho "$(basename "$0") $*" >> "$CALLS"\n'


def _render(venv: str, *, gpus: int = 0, gres: bool = False, mpi: str = "pmix", port: int = 22) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True)
    env.filters["quote"] = lambda s: shlex.quote(str(s))
    return env.from_string(TEMPLATE.read_text()).render(
        ansible_managed="Ansible managed",
        horovod_venv=venv,
        horovod_profile_path=f"{venv}/profile.sh",
        horovod_slurm_batch_script="/opt/gpucluster/gpucluster-horovod.sbatch",
        _horovod_sbatch={
            "cluster": "lab",
            "nodes": 2,
            "tasks_per_node": max(gpus, 1),
            "gres": f"gpu:{gpus}" if gres and gpus else "",
            "mpi": mpi,
            "ssh_port": port,
        },
    )


def _run(tmp_path: Path, script: str, *args: str, mpi_built: bool = True, **env: str) -> subprocess.CompletedProcess:
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True, exist_ok=True)
    # hvd-env as the role writes it: loads the job environment, then runs its arguments
    (venv_bin / "hvd-env").write_text('. "$(dirname "$0")/../profile.sh"\nif [ "$#" -gt 0 ]; then exec "$@"; fi\n')
    (venv_bin.parent / "profile.sh").write_text("export JOB_ENV_LOADED=1\n")
    check = "[X] MPI" if mpi_built else "[ ] MPI"
    (venv_bin / "horovodrun").write_text(
        RECORD.replace("$*", "$* env=${JOB_ENV_LOADED:-0}")
        + f'case "$1" in --check-build) printf "Available Controllers:\\n    {check}\\n    [X] Gloo\\n" ;; esac\n'
    )
    (venv_bin / "srun").write_text(RECORD.replace("$*", "$* env=${JOB_ENV_LOADED:-0}"))
    (venv_bin / "scontrol").write_text(RECORD + 'printf "n1\\nn2\\n"\n')
    for tool in venv_bin.iterdir():
        tool.chmod(0o755)
    path = tmp_path / "job.sbatch"
    path.write_text(script)
    full = {
        "PATH": f"{venv_bin}:/usr/bin:/bin",
        "CALLS": str(tmp_path / "calls"),
        "SLURM_JOB_ID": "42",
        "SLURM_JOB_NODELIST": "n[1-2]",
        "SLURM_JOB_NUM_NODES": "2",
        **env,
    }
    return subprocess.run(
        ["/bin/bash", str(path), *args], env=full, capture_output=True, text=True, check=False, timeout=30
    )


def _calls(tmp_path: Path) -> list[str]:
    calls = tmp_path / "calls"
    return calls.read_text().splitlines() if calls.exists() else []


def test_the_header_asks_for_one_task_per_gpu_and_the_gres_where_the_site_has_it(tmp_path):
    venv = str(tmp_path / "venv")
    gpu = _render(venv, gpus=8, gres=True)
    assert "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gres=gpu:8\n" in gpu
    # no gpu gres at the site (or a node without GPUs): no --gres line, one task per node without GPUs
    assert "--gres" not in _render(venv, gpus=8, gres=False).split("set -euo")[0].replace("the gpu gres", "")
    cpu = _render(venv)
    assert "#SBATCH --ntasks-per-node=1\n#SBATCH --output=horovod-%j.out\n" in cpu
    assert subprocess.run(["/bin/bash", "-n"], input=cpu, text=True, check=False).returncode == 0


@pytest.mark.skipif(not shutil.which("shellcheck"), reason="shellcheck is not installed")
def test_shellcheck_finds_nothing(tmp_path):
    path = tmp_path / "job.sbatch"
    path.write_text(_render("/opt/gpucluster/venv", gpus=4, gres=True))
    out = subprocess.run(["shellcheck", str(path)], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout


def test_with_mpi_every_rank_is_started_by_srun_through_pmix_in_the_job_environment(tmp_path):
    out = _run(tmp_path, _render(str(tmp_path / "venv"), gpus=4), "python", "train.py", "--epochs", "1")
    assert out.returncode == 0, out.stderr
    assert "job 42, 8 tasks on n[1-2], launcher srun" in out.stdout
    hvd_env = tmp_path / "venv" / "bin" / "hvd-env"
    assert _calls(tmp_path) == [
        "horovodrun --check-build env=1",
        f"srun --mpi=pmix --kill-on-bad-exit=1 {hvd_env} python train.py --epochs 1 env=1",
    ]


def test_without_mpi_horovodrun_starts_gloo_ranks_on_the_allocated_nodes(tmp_path):
    script = _render(str(tmp_path / "venv"), gpus=2, port=12345)
    out = _run(tmp_path, script, "python", "train.py", mpi_built=False, SLURM_NTASKS_PER_NODE="2", SLURM_NTASKS="4")
    assert out.returncode == 0, out.stderr
    assert _calls(tmp_path)[1:] == [
        "scontrol show hostnames n[1-2]",
        "horovodrun --gloo -np 4 -H n1:2,n2:2 -p 12345 python train.py env=1",
    ]


def test_the_launcher_can_be_chosen_and_a_wrong_one_is_named(tmp_path):
    script = _render(str(tmp_path / "venv"), mpi="pmi2")
    out = _run(tmp_path, script, "./a.out", GPUCLUSTER_LAUNCH="srun")
    assert out.returncode == 0 and _calls(tmp_path)[0].startswith("srun --mpi=pmi2 --kill-on-bad-exit=1 ")
    out = _run(tmp_path, script, "./a.out", GPUCLUSTER_LAUNCH="mpirun")
    assert out.returncode == 2 and "GPUCLUSTER_LAUNCH is 'mpirun'; valid: auto, srun, gloo" in out.stderr


def test_it_refuses_to_run_without_a_program_or_outside_a_job(tmp_path):
    script = _render(str(tmp_path / "venv"))
    out = _run(tmp_path, script)
    assert out.returncode == 2 and "usage: sbatch [sbatch options]" in out.stderr
    out = _run(tmp_path, script, "python", "train.py", SLURM_JOB_ID="")
    assert out.returncode == 2 and "not in a Slurm job" in out.stderr
    assert _calls(tmp_path) == []
