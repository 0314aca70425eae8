#!/usr/bin/env bash
# Build the collection tarball, install it into a temporary collections path and check that the
# site playbook resolves by FQCN from the installed copy.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
rm -f build/gpucluster-horovod-*.tar.gz
ansible-galaxy collection build --force --output-path build . 
tarball=$(ls build/gpucluster-horovod-*.tar.gz)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Dependencies (ansible.posix, community.*) come from the `ansible` package already installed.
ansible-galaxy collection install --no-deps -p "$tmp" "$tarball"
ANSIBLE_COLLECTIONS_PATH="$tmp" ANSIBLE_CONFIG=/dev/null \
    ansible-galaxy collection list gpucluster.horovod -p "$tmp"
cd "$tmp"
ANSIBLE_COLLECTIONS_PATH="$tmp" ANSIBLE_CONFIG=/dev/null ANSIBLE_INJECT_FACT_VARS=false \
    ansible-playbook --syntax-check -i localhost, gpucluster.horovod.site
echo "collection $tarball installs and gpucluster.horovod.site resolves"
