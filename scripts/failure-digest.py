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
NO_SPACE = re.compile(r"No space left on device|ENOSPC|Disk quota exceeded")
WIDTH = 300


def clean(line):
    return BOX.sub("", ANSI.sub("", line.rstrip("\n")))


def failed_phase(lines):
    """The first molecule phase that did not end "Successful", or whose PLAY RECAP counts failures."""
    phase = None
    for line in lines:
        match = PHASE.search(line)
        if match:
            phase = match.group(1)
            if match.group(3) and match.group(3) != "Successful":
                return phase
        if RECAP_FAILED.search(line):
            return phase
    return None


def failure_blocks(lines):
    """(phase, task, lines) of each `fatal:`/`failed:` result that was not ignored, in log order."""
    phase, task, block = None, None, None
    for line in lines:
        match = PHASE.search(line)
        if match:
            phase = match.group(1)
        if block is not None and (BLOCK_END.match(line) or not line.strip()):
            if not line.startswith("...ignoring"):
                yield phase, task, block
            block = None
        elif block is not None:
            block.append(line)
        if line.startswith("TASK ["):
            task = line
        if FAIL_START.match(line):
            block = [line]


def digest(path, max_lines=14):
    """The failed phase, the last failure block and molecule's CRITICAL/ERROR lines."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [clean(line) for line in handle]
    except OSError as err:
        return [f"(cannot read {path}: {err})"]
    out = [f"failed phase: {failed_phase(lines) or 'unknown'}"]
    # A full disk fails whatever task ran at the time (dpkg, a module copy, a lookup): say so first.
    full = [line for line in lines if NO_SPACE.search(line)]
    if full:
        out.append(f"THE DISK WAS FULL ({len(full)} lines say so), first: {full[0].strip()[:WIDTH]}")
    blocks = list(failure_blocks(lines))
    if blocks:
        phase, task, block = blocks[-1]
        out.append(f"last failure (in {phase}): {task or '(no task name)'}")
        out += [text[:WIDTH] for text in block[:max_lines]]
    notes = [line for line in lines if line.startswith(("CRITICAL", "ERROR")) and "glob failed" not in line]
    return out + [text[:WIDTH] for text in notes[-6:]]


def main(argv):
    for path in argv[1:]:
        print(f"--- {path}")
        for text in digest(path):
            print(f"    {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
