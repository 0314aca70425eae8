#!/usr/bin/env bash
# `make images`: both base images (scripts/build-image.sh) at the same time. A new machine builds both with debootstrap,
# which mostly waits on the archive and on dpkg's single-threaded unpacking: side by side they take about as long as
# the longer one instead of both one after the other. Each build's output is printed whole when it ends, prefixed with
# its tag; the target fails when either build does (both are waited for).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

images=("bookworm gpucluster/debian:12" "trixie gpucluster/debian:13")
logs=$(mktemp -d /var/tmp/gpucluster-images.XXXXXX)
trap 'rm -rf "$logs"' EXIT
pids=()
for i in "${!images[@]}"; do
    read -r suite tag <<< "${images[$i]}"
    scripts/build-image.sh "$suite" "$tag" > "$logs/$i.log" 2>&1 &
    pids+=("$!")
done
failed=0
for i in "${!images[@]}"; do
    read -r _ tag <<< "${images[$i]}"
    if wait "${pids[$i]}"; then rc=0; else rc=$?; failed=1; fi
    sed "s|^|[$tag] |" "$logs/$i.log"
    [ "$rc" -eq 0 ] || echo "[$tag] failed (rc $rc)" >&2
done
exit "$failed"
