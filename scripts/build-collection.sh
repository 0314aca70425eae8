#!/usr/bin/env bash
# Build the collection tarball, install it into a temporary collections path and check that the
# site playbook resolves by FQCN from the installed copy (not from the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mkdir -p build
rm -f build/gpucluster-horovod-*.tar.gz
ansible-galaxy collection build --force --output-path build .
tarball=$PWD/$(ls build/gpucluster-horovod-*.tar.gz)
# Development files stay out of the artifact (galaxy.yml build_ignore).
if tar tzf "$tarball" | grep -E '^(molecule|tests|scripts|tools|images|\.cache|\.venv)/' | head -n 5 | grep .; then
    echo "the artifact ships development files (above); add them to build_ignore in galaxy.yml" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/empty.cfg"
# Only the temporary path and the `ansible` package's bundled collections are visible.
export ANSIBLE_CONFIG="$tmp/empty.cfg" ANSIBLE_COLLECTIONS_PATH="$tmp" ANSIBLE_INJECT_FACT_VARS=false
cd "$tmp"
ansible-galaxy collection install --no-deps -p "$tmp" "$tarball"
ansible-galaxy collection list gpucluster.horovod -p "$tmp"
ansible-playbook --syntax-check -i localhost, gpucluster.horovod.site
echo "collection $(basename "$tarball") installs and gpucluster.horovod.site resolves"
# Galaxy's importer, a clean environment with ansible-core alone, the execution environment's build context and the
# documentation site (scripts/ecosystem-check.sh)
cd "$root"
scripts/ecosystem-check.sh "$tarball"
