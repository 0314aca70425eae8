#!/usr/bin/env bash
# ansible-test needs the collection at .../ansible_collections/<namespace>/<name>: copy the
# tracked and new files there (not .venv, .cache, build outputs) and run sanity in its own venvs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dest=build/sanity/ansible_collections/gpucluster/horovod
rm -rf build/sanity
mkdir -p "$dest"
git ls-files -z --cached --others --exclude-standard | rsync -a --from0 --files-from=- ./ "$dest/"
cd "$dest"
git init -q && git add -A
# --venv: ansible-test installs the exact linters each sanity test wants into its own venvs.
ansible-test sanity --venv --python 3.11 --color no "$@" 2>&1 | tee "$root/build/sanity.log"
