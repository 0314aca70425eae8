#!/usr/bin/env bash
# Make the bundle tools/gpu-host-check.sh needs on a GPU server that reaches no network: everything it would
# otherwise download, for the server's Python. Run on a machine that reaches the package index (pip's own
# configuration chooses which: no index is named here).
#
#   tools/gpu-host-bundle.sh [DIR] [PYTHON_VERSION]      default: .gpu-host 3.12 (Ubuntu 24.04)
#
# DIR/wheels       ansible-core and its dependencies (to run Ansible on the server, with the server's Python),
#                  the Horovod sdist, its build requirements and its runtime dependencies, numpy: the horovod
#                  role's wheelhouse (horovod_wheelhouse, horovod_pip_no_index)
# DIR/collections.tar.gz
#                  the collections galaxy.yml declares, from the Python environment this runs in
# DIR/SHA256SUMS   every file's checksum; gpu-host-check.sh checks them before it uses anything
#
# Keep DIR out of git (.git/info/exclude); it is about 40 MB.
set -euo pipefail

dir=${1:-.gpu-host}
pyver=${2:-3.12}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
# the role's default (the stack's version where the engine resolves none)
horovod_version=${HOROVOD_VERSION:-$(sed -n "s/^horovod_version: .*default('\([0-9.]*\)'.*/\1/p" "$here/roles/horovod/defaults/main.yml")}
ansible_core=$("$python" -c 'import ansible; print(ansible.__version__)')

mkdir -p "$dir/wheels"
pip_download=("$python" -m pip download --quiet --isolated --dest "$dir/wheels")
# --isolated drops the local find-links directory of pip's configuration; the index comes back explicitly
index=$("$python" -m pip config get global.index-url 2>/dev/null || true)
extra=$("$python" -m pip config get global.extra-index-url 2>/dev/null || true)
[ -n "$index" ] && pip_download+=(--index-url "$index")
for url in $extra; do pip_download+=(--extra-index-url "$url"); done
cert=$("$python" -m pip config get global.cert 2>/dev/null || true)
[ -n "$cert" ] && pip_download+=(--cert "$cert")

platform=(--only-binary :all: --implementation cp --python-version "$pyver"
          --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64
          --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64)
echo "wheels for Python $pyver: ansible-core $ansible_core, Horovod's build and runtime requirements, numpy"
"${pip_download[@]}" "${platform[@]}" "ansible-core==$ansible_core" setuptools wheel packaging pyyaml psutil \
  cloudpickle "cffi>=1.4.0" numpy
echo "Horovod $horovod_version sdist"
"${pip_download[@]}" --no-deps --no-binary :all: "horovod==$horovod_version"

echo "collections: $(sed -n '/^dependencies:/,/^[a-z]/p' "$here/galaxy.yml" | sed -n 's/^  \([a-z_.]*\):.*/\1/p' | xargs)"
root=$("$python" -c 'import ansible_collections, os; print(os.path.dirname(list(ansible_collections.__path__)[0]))')
mapfile -t collections < <(sed -n '/^dependencies:/,/^[a-z]/p' "$here/galaxy.yml" \
                             | sed -n 's/^  \([a-z_]*\)\.\([a-z_]*\):.*/ansible_collections\/\1\/\2/p')
tar -C "$root" -czf "$dir/collections.tar.gz" --exclude='__pycache__' --exclude='tests' "${collections[@]}"

(cd "$dir" && find . -type f ! -name 'SHA256SUMS*' -printf '%P\n' | sort | xargs sha256sum > SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS)
du -sh "$dir"
