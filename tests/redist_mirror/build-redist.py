# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""STAND-IN REDISTRIBUTABLE MIRROR (tests only): NVIDIA's redist layout built from the real files of NVIDIA's wheels.

NVIDIA's redistributable site (developer.download.nvidia.com/compute/<product>/redist) cannot be reached from the
test machines; NVIDIA's component wheels on the package index can. This script repackages the files of those
wheels the way the redist site ships them, so the roles' redist method is tested on real binaries and headers:

    <out>/redistrib_<release>.json
    <out>/<component>/<platform>/<component>-<platform>-<version>-archive.tar.xz
        <component>-<platform>-<version>-archive/{bin,include,lib,...}, LICENSE

The manifest has NVIDIA's shape (component -> name, license, version, platform -> relative_path, sha256, md5,
size; with --variant, platform -> cudaN -> ...). With --tampered DIR, a copy of the tree is written there with one
byte of every archive flipped and the same manifest: the mirror of a corrupted download that must be refused.
With --only, the archive keeps a subset of the wheel's files (cuDNN: the libcudnn.so.9 loader, libcudnn_graph
and the headers, enough for cudnnGetVersion, instead of 1 GB of engines).

    build-redist.py --out DIR --release 13.0.2 --component cuda_cudart=WHEEL [--component ...] [--tampered DIR]
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import tarfile
import zipfile
from pathlib import Path

TOP = ("bin", "include", "lib", "nvvm")


def wheel_root(names):
    """The wheel's directory that holds bin/include/lib: nvidia/<pkg>/ (CUDA 12) or nvidia/cu13/ (CUDA 13)."""
    for name in names:
        match = re.match(r"^(nvidia/[^/]+/)(bin|include|lib|nvvm)/", name)
        if match:
            return match.group(1)
    raise SystemExit("no nvidia/<dir>/{bin,include,lib} in the wheel")


def wheel_version(path: Path) -> str:
    return path.name.split("-")[1]


def build_archive(component: str, wheel: Path, platform: str, out: Path, *, variant: str, only=()):
    version = wheel_version(wheel)
    suffix = f"_{variant}" if variant else ""
    top = f"{component}-{platform}-{version}{suffix}-archive"
    rel = f"{component}/{platform}/{top}.tar.xz"
    dest = out / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        root = wheel_root(names)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            libs = []
            for info in zf.infolist():
                if not info.filename.startswith(root) or info.is_dir():
                    continue
                sub = info.filename[len(root) :]
                if sub.split("/")[0] not in TOP or sub.endswith("__init__.py") or "__pycache__" in sub:
                    continue
                if only and not any(fnmatch.fnmatch(sub, pattern) for pattern in only):
                    continue
                data = zf.read(info)
                entry = tarfile.TarInfo(f"{top}/{sub}")
                entry.size = len(data)
                mode = (info.external_attr >> 16) & 0o777
                entry.mode = mode or (0o755 if sub.startswith("bin/") else 0o644)
                entry.mtime = 0
                tar.addfile(entry, io.BytesIO(data))
                if re.match(r"^lib/lib[^/]+\.so\.\d+$", sub):
                    libs.append(sub)
            # The redist archives carry the development links (libcudart.so -> libcudart.so.13); wheels do not.
            for sub in libs:
                dev = re.sub(r"\.so\.\d+$", ".so", sub)
                link = tarfile.TarInfo(f"{top}/{dev}")
                link.type, link.linkname, link.mtime = tarfile.SYMTYPE, os.path.basename(sub), 0
                tar.addfile(link)
            license_text = f"{component} {version}: files of NVIDIA's {wheel.name} (stand-in for tests)\n".encode()
            entry = tarfile.TarInfo(f"{top}/LICENSE")
            entry.size, entry.mtime = len(license_text), 0
            tar.addfile(entry, io.BytesIO(license_text))
    dest.write_bytes(lzma.compress(buf.getvalue(), preset=1))
    blob = dest.read_bytes()
    return version, {
        "relative_path": rel,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "md5": hashlib.md5(blob).hexdigest(),  # NVIDIA's manifests carry md5 too; the roles check sha256
        "size": str(len(blob)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--release", required=True)
    parser.add_argument("--product", default="cuda")
    parser.add_argument("--platform", default="linux-x86_64")
    parser.add_argument("--variant", default="", help="per-CUDA archives (cuDNN): cuda12, cuda13")
    parser.add_argument("--component", action="append", required=True, help="name=path/to/wheel")
    parser.add_argument("--tampered", type=Path)
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="keep only these paths of the wheel's tree (fnmatch, e.g. 'include/*'); the archive is then a subset",
    )
    args = parser.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    manifest = {"release_date": "stand-in", "release_label": args.release, "release_product": args.product}
    for spec in args.component:
        component, wheel = spec.split("=", 1)
        version, archive = build_archive(
            component, Path(wheel), args.platform, args.out, variant=args.variant, only=args.only
        )
        entry = {"name": component, "license": "stand-in", "version": version}
        entry[args.platform] = {args.variant: archive} if args.variant else archive
        manifest[component] = entry
    text = json.dumps(manifest, indent=2) + "\n"
    (args.out / f"redistrib_{args.release}.json").write_text(text)
    if args.tampered:
        if args.tampered.exists():
            shutil.rmtree(args.tampered)
        shutil.copytree(args.out, args.tampered)
        for path in args.tampered.rglob("*.tar.xz"):
            blob = bytearray(path.read_bytes())
            blob[len(blob) // 2] ^= 0xFF
            path.write_bytes(bytes(blob))
    print(text)


if __name__ == "__main__":
    main()
