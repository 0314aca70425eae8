#!/usr/bin/env bash
# Build a Debian base image (python3, sshd, sudo, systemd as PID 1) with debootstrap and
# `docker import`. No image registry is reachable from the build machines, so nothing is pulled.
#
#   scripts/build-image.sh <suite> <tag>      e.g. scripts/build-image.sh bookworm gpucluster/debian:12
#
# The image is cached by tag and carries the hash of its recipe (this script, the package list
# and the rootfs setup) as a label; it is rebuilt only when that hash changes.
# DEBIAN_MIRROR overrides debootstrap's own default mirror.
# The control node's extra CA certificates (/usr/local/share/ca-certificates/*.crt: the test machines reach the package
# index through a TLS-intercepting proxy) go into the image and into the recipe hash, so that molecule's shared prepare
# finds them in place instead of copying them and rebuilding the CA bundle on every node of every scenario.
set -euo pipefail

suite=${1:?suite (bookworm, trixie)}
tag=${2:?image tag}
here=$(cd "$(dirname "$0")/.." && pwd)

shopt -s nullglob
extra_cas=(/usr/local/share/ca-certificates/*.crt)
shopt -u nullglob
recipe_hash=$( { cat "$0" "$here/images/debian.packages" "$here/images/setup-rootfs.sh" ${extra_cas[@]+"${extra_cas[@]}"}; \
                 echo "$suite"; } | sha256sum | cut -c1-16)

current=$(docker image inspect --format '{{ index .Config.Labels "org.gpucluster.recipe" }}' "$tag" 2>/dev/null || true)
if [ "$current" = "$recipe_hash" ]; then
    echo "image $tag is up to date (recipe $recipe_hash)"
    exit 0
fi

command -v debootstrap >/dev/null || { echo "debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/gpucluster-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
packages=$(grep -v '^#' "$here/images/debian.packages" | grep -v '^$' | paste -sd, -)

echo "building $tag from Debian $suite (recipe $recipe_hash) ..."
start=$(date +%s)
# shellcheck disable=SC2086
debootstrap --variant=minbase --components=main --include="$packages" \
    "$suite" "$rootfs" ${DEBIAN_MIRROR:-} > "$work/debootstrap.log" 2>&1 \
    || { tail -n 30 "$work/debootstrap.log" >&2; echo "debootstrap of $suite failed" >&2; exit 1; }

mkdir -p "$rootfs/usr/local/share/ca-certificates"
for ca in ${extra_cas[@]+"${extra_cas[@]}"}; do
    install -m 0644 "$ca" "$rootfs/usr/local/share/ca-certificates/"
done
cp "$here/images/setup-rootfs.sh" "$rootfs/tmp/setup-rootfs.sh"
chroot "$rootfs" /bin/sh /tmp/setup-rootfs.sh
rm -f "$rootfs/tmp/setup-rootfs.sh"

tar -C "$rootfs" --numeric-owner -c . | docker import \
    --change 'CMD ["/sbin/init"]' \
    --change 'ENV container=docker' \
    --change "LABEL org.gpucluster.recipe=$recipe_hash" \
    --change "LABEL org.gpucluster.suite=$suite" \
    - "$tag" > /dev/null
echo "built $tag in $(( $(date +%s) - start ))s"
