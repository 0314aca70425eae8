"""Run Galaxy's importer (galaxy-importer) as Galaxy runs it, with one difference: the time its ansible-lint call gets.

galaxy-importer gives its ansible-lint run a fixed 180 s (galaxy_importer/loaders/collection.py) and logs
"ERROR: Timeout on call to ansible-lint" past it. Galaxy runs the import on a machine of its own; the build tier runs
it on 2 cores beside the molecule tier, where the same lint of this collection took longer than 180 s (CI, 2026-11-28:
the only failure of a run whose every test passed). The lint command, its rules and the log are the importer's own;
only the limit is raised (GALAXY_IMPORTER_LINT_TIMEOUT seconds, default 900), and the time the lint took is printed
so that a lint that grows toward Galaxy's limit shows.

Usage: python tools/galaxy_importer_run.py ARTIFACT [galaxy-importer arguments]
"""

import os
import subprocess
import sys
import time

from galaxy_importer import main as importer_main
from galaxy_importer.loaders import collection as importer_collection

GALAXY_LIMIT_S = 180
LIMIT_S = int(os.environ.get("GALAXY_IMPORTER_LINT_TIMEOUT", "900"))


class _LintPopen(subprocess.Popen):
    """The importer's Popen for its ansible-lint call: the same process, a longer wait, the wait measured."""

    def communicate(self, input=None, timeout=None):
        started = time.monotonic()
        try:
            return super().communicate(input, timeout=None if timeout is None else max(timeout, LIMIT_S))
        finally:
            took = time.monotonic() - started
            if timeout is not None:
                print(
                    f"galaxy-importer's ansible-lint took {took:.0f} s (Galaxy's own limit {GALAXY_LIMIT_S} s, "
                    f"here {LIMIT_S} s)",
                    file=sys.stderr,
                )


if importer_collection.Popen is not subprocess.Popen:
    sys.exit("galaxy-importer no longer calls subprocess.Popen in loaders/collection.py: review this wrapper")
importer_collection.Popen = _LintPopen

if __name__ == "__main__":
    sys.exit(importer_main.main(sys.argv[1:]))
