"""Print the few lines that say why a molecule scenario failed, from its log.

scripts/test-all.sh prints this at the very end of `make test`, so the end of CI's output (often
all of it that is kept) names the phase, the failed task and its message, not only "FAILED".
Usage: python scripts/failure-digest.py LOG [LOG ...]
"""

import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
BOX = re.compile(r"^\s*│ ?")
PHASE = re.compile(r"➜ (\w+): (Executing|Executed: (\w+))")
FAIL_START = re.compile(r"^(fatal|failed): \[")
BLOCK_END = re.compile(r"^(TASK \[|PLAY |RUNNING HANDLER|\.\.\.ignoring|\S.* \*{3,}$)")
RECAP_FAILED = re.compile(r"\b(failed=[1-9]|unreachable=[1-9])")
WIDTH = 300


def clean(line):
    return BOX.sub("", ANSI.sub("", line.rstrip("\n")))


def digest(path, max_lines=14):
    """The failed phase, molecule's CRITICAL/ERROR lines and the last failure block before it."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [clean(line) for line in handle]
    except OSError as err:
        return [f"(cannot read {path}: {err})"]
    out = []
    phase, failed_phase = None, None
    block, task, last_block = [], None, None
    in_block = False
    for line in lines:
        match = PHASE.search(line)
        if match:
            phase = match.group(1)
            if match.group(3) and match.group(3) != "Successful" and failed_phase is None:
                failed_phase = phase
        if line.startswith("TASK ["):
            task = line
        if in_block:
            if BLOCK_END.match(line) or not line.strip():
                in_block = False
                if not line.startswith("...ignoring"):
                    last_block = (phase, task, block)
            else:
                block.append(line)
        if FAIL_START.match(line):
            in_block, block = True, [line]
        if RECAP_FAILED.search(line) and failed_phase is None:
            failed_phase = phase
        if (line.startswith("CRITICAL") and "glob failed" not in line) or line.startswith("ERROR"):
            out.append(line[:WIDTH])
    head = [f"failed phase: {failed_phase or 'unknown'}"]
    if last_block:
        block_phase, block_task, block_lines = last_block
        head.append(f"last failure (in {block_phase}): {block_task or '(no task name)'}")
        head += [text[:WIDTH] for text in block_lines[:max_lines]]
    return head + out[-6:]


def main(argv):
    for path in argv[1:]:
        print(f"--- {path}")
        for text in digest(path):
            print(f"    {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
