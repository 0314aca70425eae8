#!/bin/sh
# pip-download-once.sh DIR PIP-DOWNLOAD-ARGS...: `pip download --dest DIR ARGS...` into a directory of the machine's
# download cache, once per requirement set (tests only; the prepares of the scenarios that download).
#
# pip resolves against the index on every call, even when every file is already in DIR: horovod_gpu_build's set (torch's
# CUDA build and NVIDIA's wheels, 2.7 GB) took 135 s of network and 7 s of CPU with nothing to download. So a finished
# download leaves a manifest DIR/.complete-<hash of ARGS>.sha256 with the sha256 of each file pip reported for the set
# ("Saved ...", "File was already downloaded ..."), and a later call with the same ARGS checks those files against it
# (sha256sum --check) instead of calling pip. A missing or changed file (removed first: pip would keep it), or other
# ARGS, calls pip again and writes the manifest anew. Everything runs under DIR/.download.lock, the lock the scenarios' pip downloads share.
# Prints "cached" or "downloaded"; pip's output on a failure.
set -eu
dir=$1
shift
mkdir -p "$dir"
key=$(printf '%s\n' "$@" | sha256sum | cut -c1-16)
# shellcheck disable=SC2016  # single-quoted on purpose: the inner script expands its own arguments
exec flock "$dir/.download.lock" sh -eu -c '
dir=$1; key=$2; shift 2
manifest=$dir/.complete-$key.sha256
if [ -s "$manifest" ] && (cd "$dir" && sha256sum --check --quiet --strict "$manifest" >/dev/null 2>&1); then
    echo cached
    exit 0
fi
# A file the manifest lists that no longer matches it is removed first: pip would keep it ("already downloaded").
if [ -s "$manifest" ]; then
    (cd "$dir" && sha256sum --check --strict "$manifest" 2>/dev/null | sed -n "s/: FAILED.*$//p" | while IFS= read -r f; do
        rm -f -- "$f"; done)
fi
log=$dir/.download-$key.log
if ! pip download --dest "$dir" "$@" > "$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
sed -n "s/^[[:space:]]*Saved //p; s/^[[:space:]]*File was already downloaded //p" "$log" | while IFS= read -r f; do basename "$f"; done \
    | sort -u > "$manifest.files"
if [ ! -s "$manifest.files" ]; then
    echo "pip-download-once.sh: pip reported no file for: $*" >&2
    cat "$log" >&2
    exit 1
fi
(cd "$dir" && tr "\n" "\0" < "$manifest.files" | xargs -0 sha256sum --) > "$manifest.tmp"
mv "$manifest.tmp" "$manifest"
rm -f "$manifest.files" "$log"
echo downloaded
' sh "$dir" "$key" "$@"
