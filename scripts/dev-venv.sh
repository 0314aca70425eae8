#!/usr/bin/env bash
# The development venv (requirements-dev.txt) as `make venv` makes it: built once per machine in the machine-level
# test cache by scripts/cached-venv.sh (under the hash of requirements-dev.txt and the Python version), and linked
# from the checkout as .venv. A clean clone on a machine that ran make test before reuses it instead of installing
# ansible, molecule and the linters again (about two minutes on these 2-core machines); a changed requirements file
# makes a new one, `make clean-caches` removes them. A checkout whose .venv is a real directory (made before) keeps it.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

req=requirements-dev.txt

if [ -d .venv ] && [ ! -L .venv ]; then
    # a venv made in the checkout before this script: kept, brought up to date when the requirements changed (remove
    # it to use the machine's)
    if [ "$req" -nt .venv/.stamp ]; then
        .venv/bin/pip install --quiet -r "$req"
        touch .venv/.stamp
    fi
    exit 0
fi
venv=$(scripts/cached-venv.sh dev "$req")
# relinked only when it points elsewhere: the test tiers run `make venv` at the same time
[ "$(readlink .venv 2>/dev/null)" = "$venv" ] || ln -sfn "$venv" .venv
