#!/usr/bin/env bash
# STAND-IN APT REPOSITORY — for tests only.
#
# NVIDIA's CUDA and container-toolkit repositories and Docker's repository cannot be reached
# from the machines this collection is tested on. To test the roles' install path for them
# (keyring, `signed-by`, pinning, holds, upgrades) this script builds a local, signed apt
# repository of STAND-IN packages that carry the real package names and version strings but
# contain only a marker file (and, when asked, a stub command printing the version), or, when a content
# directory is given, that directory's files (real files of NVIDIA's wheels laid out at the package's paths by
# wheel-tree.py). It is never used where a real package is reachable.
#
#   build-repo.sh <outdir> <manifest> [suite] [component]
#
# manifest: one package per line, `name|version|depends|command[|content]`, e.g.
#   nvidia-container-toolkit|1.17.8-1|nvidia-container-toolkit-base (= 1.17.8-1)|nvidia-ctk
#   libnccl2|2.27.7-1+cuda13.0|||/srv/standin-trees/libnccl2   (content: a directory copied into the package)
# Produces <outdir>/{pool,dists}, signed with a key generated for this run (InRelease and
# Release.gpg), and <outdir>/standin-archive-keyring.gpg (binary keyring for `signed-by`).
set -euo pipefail

out=${1:?outdir}
manifest=${2:?manifest}
suite=${3:-stable}
component=${4:-main}
arch=$(dpkg --print-architecture)

for tool in dpkg-deb apt-ftparchive gpg; do
    command -v "$tool" >/dev/null || { echo "build-repo.sh: $tool missing (apt-get install dpkg-dev apt-utils gnupg)" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out/pool/$component" "$out/dists/$suite/$component/binary-$arch"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

while IFS='|' read -r name version depends command content; do
    case "$name" in ''|'#'*) continue ;; esac
    pkg="$work/$name"
    mkdir -p "$pkg/DEBIAN" "$pkg/usr/share/doc/$name"
    {
        echo "Package: $name"
        echo "Version: $version"
        echo "Architecture: $arch"
        echo "Maintainer: gpucluster.horovod tests <tests@gpucluster.invalid>"
        [ -n "$depends" ] && echo "Depends: $depends"
        echo "Description: STAND-IN for $name $version (gpucluster.horovod tests)"
        echo " Not the real package: the real repository is unreachable from the test machines."
    } > "$pkg/DEBIAN/control"
    echo "stand-in $name $version" > "$pkg/usr/share/doc/$name/STANDIN"
    if [ -n "${content:-}" ]; then
        cp -a "$content/." "$pkg/"
    fi
    if [ -n "$command" ]; then
        mkdir -p "$pkg/usr/bin"
        printf '#!/bin/sh\necho "%s version %s (stand-in)"\n' "$command" "$version" > "$pkg/usr/bin/$command"
        chmod 0755 "$pkg/usr/bin/$command"
    fi
    dpkg-deb --root-owner-group --build "$pkg" "$out/pool/$component/${name}_${version//:/%3a}_${arch}.deb" >/dev/null
done < "$manifest"

(
    cd "$out"
    apt-ftparchive packages "pool/$component" > "dists/$suite/$component/binary-$arch/Packages"
    gzip -9k "dists/$suite/$component/binary-$arch/Packages"
    apt-ftparchive \
        -o "APT::FTPArchive::Release::Origin=gpucluster-standin" \
        -o "APT::FTPArchive::Release::Label=gpucluster STAND-IN (not the vendor repository)" \
        -o "APT::FTPArchive::Release::Suite=$suite" \
        -o "APT::FTPArchive::Release::Codename=$suite" \
        -o "APT::FTPArchive::Release::Architectures=$arch" \
        -o "APT::FTPArchive::Release::Components=$component" \
        release "dists/$suite" > "$work/Release"
    mv "$work/Release" "dists/$suite/Release"
)

# A fresh signing key for every build: nothing secret is kept between runs.
export GNUPGHOME="$work/gnupg"
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key "gpucluster stand-in repository <standin@gpucluster.invalid>" ed25519 sign 1d
gpg --batch --quiet --yes --armor --detach-sign -o "$out/dists/$suite/Release.gpg" "$out/dists/$suite/Release"
gpg --batch --quiet --yes --clearsign -o "$out/dists/$suite/InRelease" "$out/dists/$suite/Release"
gpg --batch --quiet --export > "$out/standin-archive-keyring.gpg"
gpg --batch --quiet --armor --export > "$out/standin-archive-keyring.asc"
echo "stand-in repository: $(grep -c . "$manifest") manifest lines, suite $suite, in $out"
