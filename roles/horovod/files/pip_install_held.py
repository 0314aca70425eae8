# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`pip install ARGS` into the environment of the interpreter that runs this, every distribution installed there
held at its version (a pip constraint each): pip may add what is missing but changes nothing that is there.

Installed by the gpucluster.horovod.horovod role for horovod_venv_mode: existing; run as the environment's owner.
"""

import os
import subprocess
import sys
import tempfile
from importlib import metadata


def held():
    pins = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower() not in pins:
            pins[name.lower()] = f"{name}=={dist.version}"
    return sorted(pins.values())


def main(args):
    with tempfile.NamedTemporaryFile("w", prefix="gpucluster-held-", suffix=".txt", delete=False) as constraints:
        constraints.write("\n".join(held()) + "\n")
    try:
        return subprocess.call([sys.executable, "-m", "pip", "install", "--constraint", constraints.name, *args])
    finally:
        os.unlink(constraints.name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
