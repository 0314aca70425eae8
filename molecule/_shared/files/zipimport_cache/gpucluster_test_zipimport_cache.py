"""Test nodes only: the compiled code of the modules Python imports from zip files, kept (molecule/_shared/nodes.yml).

Every Ansible task runs its module as an AnsiballZ zip of Python sources, and zipimport compiles each module it
imports from a zip again every time (a zip holds no .pyc to reuse): about 100 ms of CPU per task and node on the
2-core test machines, a fifth of what a task costs there (docs/testing.md, "Where the CPU goes"). This keeps the code
of each module once, keyed by its source and the Python version, the way Python's own __pycache__ keeps .pyc files
for modules on disk. What runs is the compiler's output for the same source, only its file name set to this run's
zip path (tracebacks name the zip as without the cache), so a module behaves as it does without the cache.

The cache is a directory of the node (GPUCLUSTER_TEST_ZIPIMPORT_CACHE, default below) used only by the user who owns
it and only while no one else can write it: created 0700 by root, so modules run as root (become, the default)
use it and the training user's Python passes it by. Anything unexpected (an unreadable entry, a full disk, a Python
whose zipimport differs) falls back to compiling, as Python does without this file.
"""

import marshal
import os
import sys
import zipimport

_DIR = os.environ.get("GPUCLUSTER_TEST_ZIPIMPORT_CACHE", "/var/cache/gpucluster-test-zipimport")
_compile = getattr(zipimport, "_compile_source", None)


def _renamed(code, filename):
    consts = tuple(_renamed(c, filename) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _compile_source(pathname, source):
    try:
        import hashlib  # noqa: PLC0415 - only when a zip import compiles: no cost for every other Python start

        path = os.path.join(_DIR, hashlib.sha256(sys.version.encode() + b"\0" + source).hexdigest())
        if os.path.exists(path):
            with open(path, "rb") as cached:
                return _renamed(marshal.load(cached), pathname)
        code = _compile(pathname, source)
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "wb") as out:
            marshal.dump(code, out)
        os.replace(tmp, path)
        return code
    except Exception:
        # the cache must never change what runs: compile as Python does
        return _compile(pathname, source)


def _usable():
    try:
        if os.geteuid() == 0:
            os.makedirs(_DIR, mode=0o700, exist_ok=True)
        st = os.stat(_DIR)
    except OSError:
        return False
    return st.st_uid == os.geteuid() and not st.st_mode & 0o077


if _compile is not None and _usable():
    zipimport._compile_source = _compile_source
