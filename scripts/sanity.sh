#!/usr/bin/env bash
# ansible-test needs the collection at .../ansible_collections/<namespace>/<name>: copy the
# tracked and new files there (not .venv, .cache, build outputs) and run `ansible-test sanity`.
# ansible-test's own --venv mode bootstraps pip from a host these machines cannot reach, so the
# sanity requirements go into a dedicated venv and run with --local. That venv (ansible-core and what
# `ansible-test sanity --requirements` installs into it) is kept in the machine-level test cache per ansible-core
# version, as the dev venv is (scripts/dev-venv.sh): a clean clone reuses it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
core=$(grep -E '^ansible-core==' requirements-dev.txt)
cache=$(scripts/test-cache-dir.sh)
svenv=$cache/venvs/sanity-py3.11-${core#ansible-core==}
mkdir -p "$cache/venvs"
exec 9>"$cache/venvs/.sanity-venv.lock"
# one sanity run at a time per machine: ansible-test installs the sanity requirements into the shared venv
flock 9
if [ ! -x "$svenv/bin/ansible-test" ] || ! grep -qx "$core" "$svenv/.core" 2>/dev/null; then
    rm -rf "$svenv"
    python3 -m venv "$svenv"
    "$svenv/bin/pip" install --quiet --upgrade pip
    "$svenv/bin/pip" install --quiet "$core"
    echo "$core" > "$svenv/.core"
fi
# Offline stand-in for the get-pip.py that ansible-test downloads (scripts/get-pip-shim.py).
pip_version=$(grep -oP "pip='\\K[0-9.]+" "$svenv"/lib/python3*/site-packages/ansible_test/_internal/python_requirements.py | head -n1)
mkdir -p ~/.ansible/test/cache
cp scripts/get-pip-shim.py ~/.ansible/test/cache/"get_pip_${pip_version//./_}.py"

dest=build/sanity/ansible_collections/gpucluster/horovod
rm -rf build/sanity
mkdir -p "$dest"
git ls-files -z --cached --others --exclude-standard | rsync -a --from0 --files-from=- ./ "$dest/"
cd "$dest"
git init -q && git add -A
export PATH="$svenv/bin:$PATH"
ansible-test sanity --local --requirements --python 3.11 --color no "$@" 2>&1 | tee "$root/build/sanity.log" \
    | grep -vE '^(Collecting|Requirement already|Downloading|Installing collected|Successfully installed|Looking in|Processing|WARNING: Location|  )'
exit "${PIPESTATUS[0]}"
