#!/usr/bin/env bash
# The development venv (requirements-dev.txt) as `make venv` makes it: built once per machine in the machine-level
# test cache (scripts/test-cache-dir.sh) under the hash of requirements-dev.txt and the Python version, and linked
# from the checkout as .venv. A clean clone on a machine that ran make test before reuses it instead of installing
# ansible, molecule and the linters again (about two minutes on these 2-core machines); a changed requirements file
# makes a new one, `make clean-caches` removes them. A checkout whose .venv is a real directory (made before) keeps it.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

python=${PYTHON:-python3}
req=requirements-dev.txt
cache=$(scripts/test-cache-dir.sh)
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv="$cache/venvs/dev-py$pyver-$(sha256sum "$req" | cut -c1-12)"

if [ -d .venv ] && [ ! -L .venv ]; then
    # a venv made in the checkout before this script: kept, brought up to date when the requirements changed (remove
    # it to use the machine's)
    if [ "$req" -nt .venv/.stamp ]; then
        .venv/bin/pip install --quiet -r "$req"
        touch .venv/.stamp
    fi
    exit 0
fi
mkdir -p "$cache/venvs"
(
    flock 9
    if [ ! -f "$venv/.complete" ]; then
        echo "dev-venv: making $venv (once per machine and requirements-dev.txt) ..."
        rm -rf "$venv"
        "$python" -m venv "$venv"
        "$venv/bin/pip" install --quiet --upgrade pip
        "$venv/bin/pip" install --quiet -r "$req"
        touch "$venv/.complete"
    fi
) 9>"$cache/venvs/.dev-venv.lock"
# relinked only when it points elsewhere: the test tiers run `make venv` at the same time
[ "$(readlink .venv 2>/dev/null)" = "$venv" ] || ln -sfn "$venv" .venv
