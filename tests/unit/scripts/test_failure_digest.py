"""scripts/failure-digest.py: why a molecule scenario failed, from its log, for the end of CI's output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "failure-digest.py"

# The shape of a molecule log (ANSI colours, the box prefix of its rich output), trimmed.
LOG = """\
INFO     s ➜ converge: Executing
  \x1b[2m│\x1b[0m TASK [role : A refusal the scenario expects] ****
  \x1b[2m│\x1b[0m fatal: [s-n1]: FAILED! => {"msg": "expected refusal"}
  \x1b[2m│\x1b[0m ...ignoring
  \x1b[2m│\x1b[0m
  \x1b[2m│\x1b[0m TASK [role : Install the thing] ****
  \x1b[2m│\x1b[0m \x1b[31mfatal: [s-n1]: FAILED! => {\x1b[0m
  \x1b[2m│\x1b[0m     "msg": "s-n1: the download failed: 503"
  \x1b[2m│\x1b[0m }
  \x1b[2m│\x1b[0m
  \x1b[2m│\x1b[0m PLAY RECAP ****
  \x1b[2m│\x1b[0m s-n1 : ok=3 changed=1 unreachable=0 failed=1 skipped=0 rescued=0 ignored=1
CRITICAL Ansible return code was 2, command was: ansible-playbook converge.yml
ERROR    s ➜ converge: Executed: Failed
INFO     s ➜ destroy: Executing
INFO     s ➜ destroy: Executed: Successful
"""


def test_digest_names_the_phase_the_task_and_the_message(tmp_path):
    log = tmp_path / "s.log"
    log.write_text(LOG, encoding="utf-8")
    out = subprocess.run([sys.executable, str(SCRIPT), str(log)], check=True, capture_output=True, text=True).stdout
    assert "failed phase: converge" in out
    assert "TASK [role : Install the thing]" in out
    assert "the download failed: 503" in out
    assert "expected refusal" not in out  # an ignored failure is not the cause
    assert "CRITICAL Ansible return code was 2" in out
    assert "\x1b[" not in out and "│" not in out


def test_digest_of_a_missing_log_says_so(tmp_path):
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "none.log")], check=True, capture_output=True, text=True
    ).stdout
    assert "cannot read" in out


def test_digest_says_first_when_the_disk_was_full(tmp_path):
    log = tmp_path / "s.log"
    full = LOG.replace(
        '"msg": "s-n1: the download failed: 503"',
        '"msg": "dpkg: error processing archive libnccl2.deb: cannot copy extracted data: No space left on device"',
    )
    log.write_text(full, encoding="utf-8")
    out = subprocess.run([sys.executable, str(SCRIPT), str(log)], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert lines[2].strip().startswith("THE DISK WAS FULL (1 lines say so), first:"), out
    assert "No space left on device" in lines[2]
    # a log without it does not say so
    log.write_text(LOG, encoding="utf-8")
    out = subprocess.run([sys.executable, str(SCRIPT), str(log)], check=True, capture_output=True, text=True).stdout
    assert "DISK" not in out
