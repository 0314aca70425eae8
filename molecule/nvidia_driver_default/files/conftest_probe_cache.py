"""Test machines only: the results of NVIDIA's kernel-module configuration probes, kept between scenario runs.

NVIDIA's conftest.sh decides how the kernel module is built by compiling a few hundred small probes against the
kernel headers (`$CC $CFLAGS -c conftest$$.c`): whether one compiles, and sometimes the object it leaves, is the
answer. Each probe is named after the shell's process ID, so ccache never finds it again, and a probe that fails to
compile (about half of them, by design) is never cached at all. On the 2-core test machine they are about 95% of a
DKMS build's compiler time with a warm ccache (molecule nvidia_driver_default, docs/testing.md "Caches").

The compiler wrapper of that scenario's prepare.yml calls this for a compile of a `conftest<N>.c`. The key is
everything the answer depends on: the real compiler (path, size, modification time: ccache's own compiler check),
the arguments with the probe's number taken out, the working directory, the probe's source, the build's generated
conftest/headers.h, the installed kernel header and kbuild packages (name and version) and the locale. A known key
replays the compiler's exit status, its output and the object it left; an unknown one runs the real compiler and
keeps the same. Anything else (no -c, dependency files, several inputs) runs the real compiler through ccache as
before. DKMS still builds the module: only the probes' answers are kept, and a cold cache gives the same answers.

    conftest_probe_cache.py REAL_COMPILER ARGS...     (GPUCLUSTER_CONFTEST_CACHE: the cache directory)
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROBE = re.compile(r"conftest\d+")
# Arguments whose outputs this cache does not keep (dependency files) or that make it not a plain compile.
UNCACHED = ("-M", "-MD", "-MMD", "-MF", "-MT", "-MQ", "-E", "-S")


def probe_source(args: list[str]) -> str | None:
    sources = [a for a in args if re.fullmatch(r"conftest\d+\.c", a)]
    if len(sources) != 1 or "-c" not in args:
        return None
    if any(a in UNCACHED or a.startswith("-Wp,") for a in args):
        return None
    return sources[0]


def output_path(args: list[str], source: str) -> str:
    if "-o" in args:
        return args[args.index("-o") + 1]
    return os.path.splitext(os.path.basename(source))[0] + ".o"


def read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return b"(absent)"


def header_packages() -> str:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f", "${db:Status-Abbrev} ${Package}=${Version}\n", "linux-headers-*", "linux-kbuild-*"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return "\n".join(sorted(line for line in out.splitlines() if line.startswith("ii")))


def probe_key(real: str, args: list[str], source: str) -> str:
    stat = os.stat(real)
    parts = [
        "conftest-probe-cache 1",
        real,
        str(stat.st_size),
        str(stat.st_mtime_ns),
        os.getcwd(),
        *(PROBE.sub("conftest", a) for a in args),
        *(f"{k}={os.environ.get(k, '')}" for k in ("LANG", "LC_ALL", "LC_MESSAGES", "LC_CTYPE")),
        header_packages(),
    ]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() + b"\0")
    for path in (source, "conftest/headers.h"):
        digest.update(read(path) + b"\0")
    return digest.hexdigest()


def replay(entry: str, out: str) -> int:
    if os.path.exists(os.path.join(entry, "object")):
        shutil.copyfile(os.path.join(entry, "object"), out)
    sys.stdout.buffer.write(read(os.path.join(entry, "stdout")))
    sys.stderr.buffer.write(read(os.path.join(entry, "stderr")))
    with open(os.path.join(entry, "rc"), encoding="ascii") as handle:
        return int(handle.read())


def main(argv: list[str]) -> int:
    real, args = argv[1], argv[2:]
    source = probe_source(args)
    cache = os.environ.get("GPUCLUSTER_CONFTEST_CACHE", "")
    if source is None or not cache:
        os.execv("/usr/bin/ccache", ["/usr/bin/ccache", real, *args])
    out = output_path(args, source)
    key = probe_key(real, args, source)
    entry = os.path.join(cache, key[:2], key)
    if os.path.exists(os.path.join(entry, "rc")):
        return replay(entry, out)
    if os.path.exists(out):
        os.unlink(out)
    run = subprocess.run([real, *args], capture_output=True, check=False)
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".new-", dir=os.path.dirname(entry))
    for name, data in (("stdout", run.stdout), ("stderr", run.stderr)):
        with open(os.path.join(staging, name), "wb") as handle:
            handle.write(data)
    if os.path.exists(out):
        shutil.copyfile(out, os.path.join(staging, "object"))
    with open(os.path.join(staging, "rc"), "w", encoding="ascii") as handle:
        handle.write(str(run.returncode))
    try:
        os.rename(staging, entry)
    except OSError:  # another node kept the same answer first
        shutil.rmtree(staging, ignore_errors=True)
    sys.stdout.buffer.write(run.stdout)
    sys.stderr.buffer.write(run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
