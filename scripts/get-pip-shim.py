"""Stand-in for pip's get-pip.py bootstrap script, used by scripts/sanity.sh.

ansible-test bootstraps pip into its sanity-test virtual environments with get-pip.py from a
host that the build machines cannot reach. This script does the same job offline: it installs
the pip wheel bundled with Python (ensurepip), then runs `pip install` with the arguments
ansible-test passed (the pinned pip version and packages), from the configured package index.
"""

import ensurepip
import os
import subprocess
import sys

# ensurepip sets PIP_CONFIG_FILE=/dev/null in this process; the real install must see the
# machine's pip configuration (index, certificates), so it runs with the environment from before.
environment = dict(os.environ)
ensurepip.bootstrap(upgrade=True)
args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", *args], env=environment))
