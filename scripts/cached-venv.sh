#!/usr/bin/env bash
# A venv of pinned tools, made once per machine in the machine-level test cache (scripts/test-cache-dir.sh) under the
# hash of its requirements file and the Python version, so a clean clone on a machine that ran make test before reuses
# it; a changed requirements file makes a new one, `make clean-caches` removes them. Prints its path.
#
#   scripts/cached-venv.sh dev requirements-dev.txt               # the development venv (scripts/dev-venv.sh)
#   scripts/cached-venv.sh ecosystem requirements-ecosystem.txt   # ansible-builder, antsibull-docs, galaxy-importer
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1
name=${1:?a name}
req=${2:?a requirements file}
python=${PYTHON:-python3}
cache=$(scripts/test-cache-dir.sh)
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv="$cache/venvs/$name-py$pyver-$(sha256sum "$req" | cut -c1-12)"
mkdir -p "$cache/venvs"
(
    flock 9
    if [ ! -f "$venv/.complete" ]; then
        echo "$name-venv: making $venv (once per machine and $req) ..." >&2
        rm -rf "$venv"
        "$python" -m venv "$venv"
        "$venv/bin/pip" install --quiet --upgrade pip >&2
        "$venv/bin/pip" install --quiet -r "$req" >&2
        touch "$venv/.complete"
    fi
) 9>"$cache/venvs/.$name-venv.lock"
echo "$venv"
