#!/usr/bin/env bash
# The unit tests marked `frameworks` (the benchmark program with the CPU builds of PyTorch and TensorFlow), in a
# venv of tests/requirements-frameworks.txt kept in the machine-level test cache (scripts/test-cache-dir.sh) under
# the hash of that file: made once per machine (its wheels downloaded once into the cache's downloads, with the
# index's checksums as pip checks them), reused by every checkout. The dev venv deselects these tests.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

req=tests/requirements-frameworks.txt
cache=$(scripts/test-cache-dir.sh)
venv="$cache/venvs/frameworks-$(sha256sum "$req" | cut -c1-12)"
wheels="$cache/downloads/wheelhouse-unit-frameworks"
if [ ! -f "$venv/.complete" ]; then
    echo "unit-frameworks: making $venv (once per machine) ..."
    mkdir -p "$wheels" "$(dirname "$venv")"
    flock "$wheels/.download.lock" pip download --quiet --dest "$wheels" -r "$req"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --no-index --find-links "$wheels" -r "$req"
    touch "$venv/.complete"
fi
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider -m frameworks tests/unit/roles/test_hvd_benchmark_program.py
