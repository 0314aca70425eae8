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
# suite `/` builds a FLAT repository (the layout of NVIDIA's CUDA and libnvidia-container repositories, whose
# sources line is `deb <uri> /`): the component argument is then the repository's path under <outdir> (e.g.
# stable/deb/amd64), holding the .deb files, Packages, Release, InRelease and Release.gpg side by side.
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
if [ "$suite" = / ]; then
    # Flat: apt reads <uri>/InRelease and <uri>/Packages; the Filename fields are relative to <uri>.
    top=$out/$component
    pool=.
    index=.
    release_dir=.
    mkdir -p "$top"
else
    top=$out
    pool=pool/$component
    index=dists/$suite/$component/binary-$arch
    release_dir=dists/$suite
    mkdir -p "$top/$pool" "$top/$index"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

while IFS='|' read -r name version depends command content; do
    case "$name" in ''|'#'*) continue ;; esac
    # One directory per package version: two versions of one name (a real build and a marker-only one)
    # must not share files.
    pkg="$work/$name=$version"
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
    # gzip -1: packages with real libraries (hundreds of MB) take minutes with dpkg-deb's default xz.
    dpkg-deb --root-owner-group -Zgzip -z1 --build "$pkg" "$top/$pool/${name}_${version//:/%3a}_${arch}.deb" >/dev/null
done < "$manifest"

(
    cd "$top"
    apt-ftparchive packages "$pool" > "$index/Packages"
    gzip -9k "$index/Packages"
    components=$component
    [ "$suite" = / ] && components=
    apt-ftparchive \
        -o "APT::FTPArchive::Release::Origin=gpucluster-standin" \
        -o "APT::FTPArchive::Release::Label=gpucluster STAND-IN (not the vendor repository)" \
        -o "APT::FTPArchive::Release::Suite=$suite" \
        -o "APT::FTPArchive::Release::Codename=$suite" \
        -o "APT::FTPArchive::Release::Architectures=$arch" \
        -o "APT::FTPArchive::Release::Components=$components" \
        release "$release_dir" > "$work/Release"
    mv "$work/Release" "$release_dir/Release"
)

# A fresh signing key for every build: nothing secret is kept between runs.
export GNUPGHOME="$work/gnupg"
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key "gpucluster stand-in repository <standin@gpucluster.invalid>" ed25519 sign 1d
gpg --batch --quiet --yes --armor --detach-sign -o "$top/$release_dir/Release.gpg" "$top/$release_dir/Release"
gpg --batch --quiet --yes --clearsign -o "$top/$release_dir/InRelease" "$top/$release_dir/Release"
gpg --batch --quiet --export > "$out/standin-archive-keyring.gpg"
gpg --batch --quiet --armor --export > "$out/standin-archive-keyring.asc"
echo "stand-in repository: $(grep -c . "$manifest") manifest lines, suite $suite, in $out"
