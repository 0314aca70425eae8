"""scripts/engine/ansible-playbook: which strategy each run of a scenario's `molecule test` gets (docs/testing.md)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

WRAPPER = Path(__file__).resolve().parents[3] / "scripts" / "engine" / "ansible-playbook"


@pytest.fixture
def run(tmp_path):
    """Run the wrapper in front of a stand-in ansible-playbook that prints the strategy it was given."""
    real = tmp_path / "real-ansible-playbook"
    real.write_text('#!/bin/sh\necho "${ANSIBLE_STRATEGY}|${ANSIBLE_STRATEGY_PLUGINS:-}|$*"\n')
    real.chmod(0o755)
    ephemeral = tmp_path / "molecule.x.scenario"
    ephemeral.mkdir()

    def _run(playbook: str, converged: bool | None = None) -> list[str]:
        if converged is not None:
            (ephemeral / "state.yml").write_text(f"---\nconverged: {str(converged).lower()}\ncreated: true\n")
        env = dict(
            os.environ,
            GPUCLUSTER_REAL_ANSIBLE_PLAYBOOK=str(real),
            GPUCLUSTER_MITOGEN_STRATEGY_PLUGINS="/mitogen/plugins/strategy",
            MOLECULE_EPHEMERAL_DIRECTORY=str(ephemeral),
        )
        env.pop("ANSIBLE_STRATEGY", None)
        env.pop("ANSIBLE_STRATEGY_PLUGINS", None)
        out = subprocess.run(
            [str(WRAPPER), "--inventory", "inv", "--skip-tags", "notest", playbook],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip().split("|")

    return _run


def test_the_first_converge_runs_under_ansibles_own_strategy(run):
    strategy, plugins, args = run("/repo/molecule/_shared/converge.yml", converged=False)
    assert (strategy, plugins) == ("linear", "")
    # the arguments reach the real command unchanged
    assert args == "--inventory inv --skip-tags notest /repo/molecule/_shared/converge.yml"


def test_a_converge_before_any_state_runs_under_ansibles_own_strategy(run):
    assert run("/repo/molecule/site_badinput/converge.yml")[0] == "linear"


def test_the_idempotence_converge_runs_under_mitogen(run):
    strategy, plugins, _ = run("/repo/molecule/_shared/converge.yml", converged=True)
    assert (strategy, plugins) == ("mitogen_linear", "/mitogen/plugins/strategy")


@pytest.mark.parametrize("playbook", ["/repo/molecule/_shared/prepare.yml", "/repo/molecule/_shared/verify.yml"])
def test_prepare_and_verify_run_under_mitogen(run, playbook):
    assert run(playbook, converged=False)[0] == "mitogen_linear"


@pytest.mark.parametrize("playbook", ["create.yml", "destroy.yml"])
def test_the_drivers_plays_run_under_ansibles_own_strategy(run, playbook):
    path = f"/venv/lib/python3.11/site-packages/molecule_plugins/docker/playbooks/{playbook}"
    assert run(path, converged=True)[0] == "linear"


def test_without_the_real_command_it_says_what_is_missing(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUCLUSTER_")}
    out = subprocess.run([str(WRAPPER), "x.yml"], env=env, capture_output=True, text=True, check=False)
    assert out.returncode != 0
    assert "scripts/molecule.sh sets it" in out.stderr
