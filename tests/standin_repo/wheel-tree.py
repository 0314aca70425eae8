# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""STAND-IN PACKAGE CONTENT (tests only): a package's file tree from the real files of NVIDIA's wheels.

The stand-in repository (build-repo.sh) carries NVIDIA's package names and versions; with a content
directory a stand-in package installs real files instead of a marker only. This script lays the files of a
wheel out at the paths NVIDIA's packages use, so the roles' repo methods install real libraries and headers
and their compile-and-run checks are real on that path too:

    wheel-tree.py --wheel W --dest DIR --put 'lib/libnccl.so.*=usr/lib/x86_64-linux-gnu' \
                  --link usr/lib/x86_64-linux-gnu/libnccl.so=libnccl.so.2

--put GLOB=DIR copies the files of the wheel's tree (nvidia/<pkg>/ or nvidia/cu13/) matching GLOB into DIR,
keeping their path below the glob's first directory (include/crt/x.h -> DIR/crt/x.h for 'include/*');
--link PATH=TARGET adds a symbolic link. Several --wheel/--put groups may follow each other: each --put uses
the last --wheel before it. A --wheel that is a glob must match exactly one file.
"""

from __future__ import annotations

import argparse
import fnmatch
import glob
import os
import re
import sys
import zipfile
from pathlib import Path


def wheel_root(names):
    for name in names:
        match = re.match(r"^(nvidia/[^/]+/)(bin|include|lib|nvvm)/", name)
        if match:
            return match.group(1)
    raise SystemExit("no nvidia/<dir>/{bin,include,lib} in the wheel")


def put(wheel: Path, pattern: str, dest: Path) -> int:
    count = 0
    with zipfile.ZipFile(wheel) as zf:
        root = wheel_root(zf.namelist())
        base = pattern.split("/", maxsplit=1)[0]
        for info in zf.infolist():
            if info.is_dir() or not info.filename.startswith(root):
                continue
            sub = info.filename[len(root) :]
            if sub.endswith("__init__.py") or not fnmatch.fnmatch(sub, pattern):
                continue
            rel = sub[len(base) + 1 :] if sub.startswith(base + "/") else sub
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
            mode = ((info.external_attr >> 16) & 0o777) or 0o644
            target.chmod(mode | 0o755 if sub.startswith("bin/") else mode | 0o644)
            count += 1
    return count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dest", required=True, type=Path)
    # The steps (--wheel W, --put GLOB=DIR, --link PATH=TARGET) are read in order, after --dest.
    args, steps = parser.parse_known_args(argv)
    wheel = None
    while steps:
        flag, value = steps.pop(0), steps.pop(0) if steps else ""
        if flag == "--wheel":
            # A glob names the one downloaded wheel of a version range (nvidia_cuda_runtime-13.0.*.whl).
            found = sorted(glob.glob(value)) if glob.has_magic(value) else [value]
            if len(found) != 1:
                parser.error(f"--wheel {value}: {len(found)} files match, not one")
            wheel = Path(found[0])
        elif flag == "--put":
            if wheel is None:
                parser.error("--put before any --wheel")
            pattern, directory = value.split("=", 1) if "=" in value else (value, "")
            if put(wheel, pattern, args.dest / directory) == 0:
                parser.error(f"--put {value}: no file of {wheel.name} matches")
        elif flag == "--link":
            path, target = value.split("=", 1) if "=" in value else (value, "")
            link = args.dest / path
            link.parent.mkdir(parents=True, exist_ok=True)
            if link.is_symlink() or link.exists():
                link.unlink()
            os.symlink(target, link)
        else:
            parser.error(f"unknown step {flag}")
    print(f"{args.dest}: {sum(len(walked[2]) for walked in os.walk(args.dest))} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
