# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Print "<version> <path>" of the nccl.h a Horovod build compiles against, or nothing when there is none.

Arguments: HOROVOD_NCCL_INCLUDE, HOROVOD_NCCL_HOME (each may be empty), the CUDA home and the build's PATH. The search
follows Horovod's FindNCCL.cmake and CMake's find_path: the include directory given, the NCCL home's include/, the
CUDA home's, then <prefix>/include/<arch> and <prefix>/include for the prefix of every bin directory on PATH (the
venv - a conda environment's NCCL -, /usr/local, /usr). Run by the gpucluster.horovod.horovod role on the builder
with `python -c`.
"""

import os
import platform
import re
import sys


def header_version(text):
    """The NCCL_MAJOR.NCCL_MINOR.NCCL_PATCH defined in an nccl.h text, or None."""
    parts = []
    for name in ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"):
        m = re.search(r"^\s*#\s*define\s+" + name + r"\s+(\d+)\b", text, re.M)
        if not m:
            return None
        parts.append(m.group(1))
    return ".".join(parts)


def candidates(include_dir, nccl_home, cuda_home, path, arch=None):
    arch = arch or platform.machine() + "-linux-gnu"
    dirs = [
        d
        for d in (
            include_dir,
            nccl_home and os.path.join(nccl_home, "include"),
            cuda_home and os.path.join(cuda_home, "include"),
        )
        if d
    ]
    for entry in (path or "").split(os.pathsep):
        if entry:
            prefix = os.path.dirname(entry.rstrip("/")) or "/"
            dirs += [os.path.join(prefix, "include", arch), os.path.join(prefix, "include")]
    out = []
    for d in dirs:
        header = os.path.join(d, "nccl.h")
        if header not in out:
            out.append(header)
    return out


def main(argv):
    argv = list(argv) + [""] * (4 - len(argv))
    for header in candidates(*argv[:4]):
        if os.path.isfile(header):
            with open(header, encoding="utf-8", errors="replace") as handle:
                version = header_version(handle.read())
            if version:
                print(version, os.path.realpath(header))
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
