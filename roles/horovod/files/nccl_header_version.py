# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Print "<version> <path>" of the nccl.h a Horovod build compiles against, or nothing when there is none.

Arguments: the NCCL home the build is given (HOROVOD_NCCL_HOME; may be empty) and the CUDA home. With a home, only
<home>/include/nccl.h counts (Horovod's CMake looks nowhere else); without one, the CUDA home's include directory,
then the system's (Debian's and Ubuntu's libnccl-dev, NVIDIA's repository packages). Run by the
gpucluster.horovod.horovod role on the builder with `python -c`.
"""

import glob
import os
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


def candidates(nccl_home, cuda_home):
    if nccl_home:
        return [os.path.join(nccl_home, "include", "nccl.h")]
    found = [os.path.join(cuda_home, "include", "nccl.h")] if cuda_home else []
    found += ["/usr/local/include/nccl.h", "/usr/include/nccl.h"]
    return found + sorted(glob.glob("/usr/include/*-linux-gnu*/nccl.h"))


def main(argv):
    nccl_home = argv[0] if argv else ""
    cuda_home = argv[1] if len(argv) > 1 else ""
    for path in candidates(nccl_home, cuda_home):
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as handle:
                version = header_version(handle.read())
            if version:
                print(version, os.path.realpath(path))
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
