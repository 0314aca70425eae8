#!/usr/bin/env bash
# The venv of the ecosystem checks (requirements-ecosystem.txt: ansible-builder, antsibull-docs and Sphinx,
# galaxy-importer), made once per machine and requirements file in the machine-level test cache as the dev venv is
# (scripts/dev-venv.sh), so a clean clone reuses it. Prints its path.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1
python=${PYTHON:-python3}
req=requirements-ecosystem.txt
cache=$(scripts/test-cache-dir.sh)
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv="$cache/venvs/ecosystem-py$pyver-$(sha256sum "$req" | cut -c1-12)"
mkdir -p "$cache/venvs"
(
    flock 9
    if [ ! -f "$venv/.complete" ]; then
        echo "ecosystem-venv: making $venv (once per machine and $req) ..." >&2
        rm -rf "$venv"
        "$python" -m venv "$venv"
        "$venv/bin/pip" install --quiet --upgrade pip >&2
        "$venv/bin/pip" install --quiet -r "$req" >&2
        touch "$venv/.complete"
    fi
) 9>"$cache/venvs/.ecosystem-venv.lock"
echo "$venv"
