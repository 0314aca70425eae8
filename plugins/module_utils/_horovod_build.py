# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic for the horovod role: build key, ``horovodrun --check-build`` parser, build-log classifier.

No Ansible imports: used by the ``horovod_build_facts`` module on the nodes, by the
``horovod_build_key`` and ``horovod_build_diagnosis`` filters on the controller, and by unit tests.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

# ---------------------------------------------------------------------------------------------
# Build key
# ---------------------------------------------------------------------------------------------

#: Every input that changes the compiled Horovod binary. A change of any of them means a rebuild.
BUILD_KEY_FIELDS = (
    "os",
    "os_version",
    "arch",
    "python",
    "framework",
    "framework_version",
    "framework_cuda_variant",
    "cuda",
    "nccl",
    "mpi",
    "horovod",
    "patches",
    "build_env",
    "host_gcc",
    "extra_frameworks",
    "framework_builds",
)

#: Fields left out of the key while empty, so that adding them did not change the keys of existing builds.
#: framework_builds: the framework builds of an existing environment (horovod_venv_mode: existing) that are not
#: the requirements the role would install (torch==2.11.0 where the plan says torch==2.11.0+cu130).
_OPTIONAL_KEY_FIELDS = ("extra_frameworks", "framework_builds")


def _norm(value: Any) -> Any:  # noqa: PLR0911 - one return per input type reads best
    """Normalise a key input so that equal meanings hash equally (None/''/'none' → None)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        stripped = value.strip()
        if stripped == "" or stripped.lower() in ("none", "null"):
            return None
        return stripped
    if isinstance(value, Mapping):
        return {str(k): _norm(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple, set)):
        return sorted({str(_norm(v)) for v in value if _norm(v) is not None})
    return str(value)


def build_key_inputs(inputs: Mapping[str, Any]) -> Dict[str, Any]:
    """Return the canonical key inputs: every field of BUILD_KEY_FIELDS, normalised.

    Unknown fields are refused so that a typo cannot silently drop an input from the key.
    """
    unknown = sorted(set(inputs) - set(BUILD_KEY_FIELDS))
    if unknown:
        raise ValueError(
            "horovod build key: unknown input(s) {}; known: {}".format(", ".join(unknown), ", ".join(BUILD_KEY_FIELDS))
        )
    missing = [f for f in ("os", "python", "framework", "framework_version", "horovod") if _norm(inputs.get(f)) is None]
    if missing:
        raise ValueError("horovod build key: required input(s) missing or empty: {}".format(", ".join(missing)))
    canon = {field: _norm(inputs.get(field)) for field in BUILD_KEY_FIELDS}
    if canon["patches"] is None:
        canon["patches"] = []
    if canon["build_env"] is None:
        canon["build_env"] = {}
    for field in _OPTIONAL_KEY_FIELDS:
        if not canon[field]:
            del canon[field]
    return canon


def build_key(inputs: Mapping[str, Any], length: int = 16) -> str:
    """Short, stable hash of the build inputs (hex sha256 prefix)."""
    if not 8 <= length <= 64:
        raise ValueError(f"horovod build key: length must be 8..64, got {length}")
    canon = build_key_inputs(inputs)
    blob = json.dumps(canon, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]


# ---------------------------------------------------------------------------------------------
# horovodrun --check-build
# ---------------------------------------------------------------------------------------------

_SECTION_NAMES = {
    "frameworks": "frameworks",
    "controllers": "controllers",
    "tensor operations": "tensor_operations",
}

#: The items each section has listed in every Horovod release from 0.16 to 0.28.
_KNOWN_ITEMS = {
    "frameworks": ("tensorflow", "pytorch", "mxnet"),
    "controllers": ("mpi", "gloo"),
    "tensor_operations": ("nccl", "ddl", "ccl", "mlsl", "mpi", "gloo"),
}

_ITEM_ALIASES = {
    "tensorflow": "tensorflow",
    "pytorch": "pytorch",
    "torch": "pytorch",
    "mxnet": "mxnet",
    "mpi": "mpi",
    "gloo": "gloo",
    "nccl": "nccl",
    "ddl": "ddl",
    "ccl": "ccl",
    "mlsl": "mlsl",
}

_VERSION_RE = re.compile(r"^\s*Horovod\s+v?(?P<version>\d+\.\d+\.\d+\S*?):?\s*$")
_SECTION_RE = re.compile(r"^\s*Available\s+(?P<section>Frameworks|Controllers|Tensor Operations)\s*:\s*$", re.I)
_ITEM_RE = re.compile(r"^\s*\[(?P<mark>[ Xx*]?)\]\s*(?P<name>[A-Za-z][\w .+-]*?)\s*$")


class CheckBuildParseError(ValueError):
    """The text is not the output of ``horovodrun --check-build``."""


def parse_check_build(text: str) -> Dict[str, Any]:
    """Parse ``horovodrun --check-build`` output (Horovod 0.16 - 0.28 formats).

    Returns ``{"version": str|None, "frameworks": {...}, "controllers": {...},
    "tensor_operations": {...}}`` where every known item of a section is a bool (an item the
    output does not list is ``False``) and items the parser does not know are kept under their
    lower-cased name. Raises CheckBuildParseError when no section is found (for example when
    horovodrun printed a traceback instead: it exits 0 either way).
    """
    result: Dict[str, Any] = {"version": None}
    for section, items in _KNOWN_ITEMS.items():
        result[section] = dict.fromkeys(items, False)
    current: Optional[str] = None
    sections_seen: List[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        match = _VERSION_RE.match(line)
        if match:
            result["version"] = match.group("version")
            continue
        match = _SECTION_RE.match(line)
        if match:
            current = _SECTION_NAMES[match.group("section").lower()]
            sections_seen.append(current)
            continue
        match = _ITEM_RE.match(line)
        if match and current is not None:
            name = match.group("name").strip().lower()
            key = _ITEM_ALIASES.get(name, name)
            result[current][key] = match.group("mark").strip() != ""
            continue
        # Any other line ends the current section (verbose output, warnings).
        current = None
    if not sections_seen:
        snippet = "\n".join(text.strip().splitlines()[-5:])
        raise CheckBuildParseError(
            f"horovodrun --check-build printed no 'Available ...' section; last lines:\n{snippet}"
        )
    result["sections"] = sections_seen
    return result


# ---------------------------------------------------------------------------------------------
# Cache of ``horovodrun --check-build`` (it imports every framework: seconds on every run)
# ---------------------------------------------------------------------------------------------

#: Distributions whose installed files decide what ``horovodrun --check-build`` prints: Horovod
#: itself, the frameworks it imports, and NVIDIA's library wheels (NCCL, CUDA runtime) they load.
_CHECK_BUILD_DIST_RE = re.compile(
    r"^(horovod|torch|tensorflow([_-]\w+)?|intel[_-]tensorflow|mxnet([_-]\w+)?|nvidia[_-][\w-]+)-[^-]+\.dist-info$",
    re.I,
)


def check_build_fingerprint(venv: str, extra: Any = None) -> Optional[str]:
    """sha256 over everything the answer of ``horovodrun --check-build`` in ``venv`` depends on.

    That is the ``RECORD`` (every installed file with its hash) of Horovod, of each framework and
    of NVIDIA's library wheels in the venv, the size and mtime of Horovod's compiled extensions
    (a rebuilt ``.so`` copied over the installed one changes them), the venv's Python, and
    ``extra`` (the caller adds what lives outside the venv: the build key, the MPI version, the
    command's environment). Returns None when no Horovod is installed in ``venv`` (nothing to cache).
    """
    digest = hashlib.sha256()
    found_horovod = False
    sites = sorted(glob.glob(os.path.join(venv, "lib", "python*", "site-packages")))
    for site in sites:
        digest.update(site.encode())
        for entry in sorted(os.listdir(site)):
            if not _CHECK_BUILD_DIST_RE.match(entry):
                continue
            record = os.path.join(site, entry, "RECORD")
            try:
                with open(record, "rb") as handle:
                    content = handle.read()
            except OSError:
                continue
            digest.update(entry.encode() + b"\0" + content)
            if entry.lower().startswith("horovod-"):
                found_horovod = True
                for line in content.decode("utf-8", "replace").splitlines():
                    rel = line.split(",", 1)[0]
                    if ".so" not in rel:
                        continue
                    try:
                        st = os.stat(os.path.join(site, rel))
                    except OSError:
                        digest.update(b"missing:" + rel.encode())
                        continue
                    digest.update(f"{rel}:{st.st_size}:{st.st_mtime_ns}".encode())
    if not found_horovod:
        return None
    for name in ("python", "python3"):
        target = os.path.realpath(os.path.join(venv, "bin", name))
        digest.update(target.encode())
    digest.update(json.dumps(_norm(extra), sort_keys=True, default=str).encode())
    return digest.hexdigest()


def read_check_build_cache(path: str, fingerprint: Optional[str]) -> Optional[str]:
    """The cached ``--check-build`` output when the cache file's fingerprint equals ``fingerprint``."""
    if not fingerprint:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint:
        return None
    output = data.get("output")
    return output if isinstance(output, str) else None


def write_check_build_cache(path: str, fingerprint: str, output: str) -> None:
    """Store ``output`` under ``fingerprint`` (atomically: a reader never sees half a file)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"fingerprint": fingerprint, "output": output}, handle)
    os.replace(tmp, path)


def missing_capabilities(
    facts: Mapping[str, Any],
    frameworks: Optional[List[str]] = None,
    controllers: Optional[List[str]] = None,
    tensor_operations: Optional[List[str]] = None,
) -> List[str]:
    """List every requested capability that the parsed build lacks, as 'section/item'."""
    missing: List[str] = []
    for section, wanted in (
        ("frameworks", frameworks),
        ("controllers", controllers),
        ("tensor_operations", tensor_operations),
    ):
        have = facts.get(section) or {}
        for item in wanted or []:
            key = _ITEM_ALIASES.get(str(item).lower(), str(item).lower())
            if not have.get(key, False):
                missing.append(f"{section}/{key}")
    return missing


#: The extension library each framework's Horovod module loads (relative to the horovod package directory).
#: `horovodrun --check-build` imports horovod.torch to decide "[X] PyTorch", and horovod.torch imports without
#: its library (it only warns), so a build that skipped the PyTorch extension still shows it as available.
FRAMEWORK_LIBRARIES = {
    "pytorch": "torch/mpi_lib_v2*.so",
    "tensorflow": "tensorflow/mpi_lib*.so",
    "mxnet": "mxnet/mpi_lib*.so",
}


def framework_libraries(horovod_dir: str) -> Dict[str, List[str]]:
    """Per framework, the extension libraries found under an installed horovod package directory."""
    found: Dict[str, List[str]] = {}
    for fw, pattern in FRAMEWORK_LIBRARIES.items():
        found[fw] = sorted(glob.glob(os.path.join(horovod_dir, pattern)))
    return found


def missing_libraries(libraries: Mapping[str, List[str]], frameworks: Optional[List[str]]) -> List[str]:
    """'library/<framework>' for every expected framework whose extension library is not installed."""
    return [f"library/{fw}" for fw in frameworks or [] if fw in libraries and not libraries[fw]]


def expected_capabilities(build_env: Mapping[str, Any], framework: str) -> Dict[str, List[str]]:
    """What a build with these HOROVOD_* variables must report in --check-build."""

    def on(name: str) -> bool:
        value = build_env.get(name)
        return str(value).strip().lower() in ("1", "true", "yes", "on")

    frameworks: List[str] = []
    fw = {"pytorch": "pytorch", "torch": "pytorch", "tensorflow": "tensorflow", "mxnet": "mxnet"}.get(
        framework.lower(), framework.lower()
    )
    frameworks.append(fw)
    for var, name in (
        ("HOROVOD_WITH_PYTORCH", "pytorch"),
        ("HOROVOD_WITH_TENSORFLOW", "tensorflow"),
        ("HOROVOD_WITH_MXNET", "mxnet"),
    ):
        if on(var) and name not in frameworks:
            frameworks.append(name)
    controllers: List[str] = []
    ops: List[str] = []
    if on("HOROVOD_WITH_MPI"):
        controllers.append("mpi")
        ops.append("mpi")
    if on("HOROVOD_WITH_GLOO"):
        controllers.append("gloo")
        ops.append("gloo")
    gpu_ops = str(build_env.get("HOROVOD_GPU_OPERATIONS") or "").strip().upper()
    for var in ("HOROVOD_GPU_OPERATIONS", "HOROVOD_GPU_ALLREDUCE"):
        value = str(build_env.get(var) or "").strip().upper()
        if value:
            gpu_ops = value
            break
    if gpu_ops == "NCCL":
        ops.append("nccl")
    elif gpu_ops == "DDL":
        ops.append("ddl")
    return {"frameworks": frameworks, "controllers": controllers, "tensor_operations": ops}


# ---------------------------------------------------------------------------------------------
# Build failure classifier
# ---------------------------------------------------------------------------------------------

#: (cause, patterns, explanation) in priority order: the first cause whose pattern matches wins.
_FAILURE_RULES: Tuple[Tuple[str, Tuple[str, ...], str], ...] = (
    (
        "cxx17_required",
        (
            r"C\+\+17 or later compatible compiler is required",
            r"requires? (at least )?C\+\+ ?17",
            r"error: #error .*C\+\+17",
        ),
        "The framework (PyTorch >= 2.1) needs C++17 but Horovod's CMake files ask for C++14. "
        "Apply the 'cxx17' build patch (horovod_patches: ['cxx17'], which the compatibility engine "
        "selects for PyTorch >= 2.1).",
    ),
    (
        "out_of_memory",
        (
            r"Killed signal terminated program",
            r"fatal error: Killed signal",
            r"virtual memory exhausted",
            r"cannot allocate memory",
            r"std::bad_alloc",
            r"out of memory",
        ),
        "The compiler ran out of memory. Lower horovod_build_jobs (parallel compile jobs) or give "
        "the builder host more memory.",
    ),
    (
        "cuda_mismatch",
        (
            r"detected CUDA version \(.*\) mismatches the version that was used to compile",
            r"this PyTorch installation does not support CUDA",
            r"unsupported GNU version",
            r"Unsupported gpu architecture",
            r"CUDA driver version is insufficient",
            r"libcudart\.so[.\d]*: cannot open shared object file",
            r"Could NOT find CUDA",
            r"No CMAKE_CUDA_COMPILER could be found",
        ),
        "CUDA does not match: the framework wheel, the CUDA toolkit (HOROVOD_CUDA_HOME) and the "
        "compiler must agree. Install the framework variant built for the installed CUDA "
        "(framework_cuda_variant) or the CUDA version the framework was built with.",
    ),
    (
        "nccl_not_found",
        (
            r"Could NOT find NCCL",
            r"nccl\.h: No such file or directory",
            r"Horovod requires NCCL 2\.0 or later",
            r"cannot find -lnccl",
        ),
        "NCCL was not found: install the NCCL development files for this CUDA version (role nccl) "
        "and point HOROVOD_NCCL_HOME at them.",
    ),
    (
        "mpi_not_found",
        (
            r"MPI is not installed",
            r"Could NOT find MPI",
            r"mpi\.h: No such file or directory",
            r"mpicxx: (command )?not found",
        ),
        "MPI was requested (HOROVOD_WITH_MPI=1) but the Open MPI development files (mpicxx, mpi.h) "
        "are missing on the builder: run the openmpi role first or drop HOROVOD_WITH_MPI.",
    ),
    (
        "framework_not_found",
        (
            r"No module named '?(torch|tensorflow|mxnet)'?",
            r"requested but (PyTorch|TensorFlow|MXNet) was not found",
            r"Could NOT find Pytorch",
            r"Could NOT find Tensorflow",
        ),
        "The framework is not importable in the build environment: install it into the venv first "
        "(the role does this before building; check horovod_venv and the pip index variables).",
    ),
    (
        "python_headers_missing",
        (r"Python\.h: No such file or directory", r"Could NOT find PythonLibs"),
        "Python development headers are missing on the builder: install python3-dev.",
    ),
    (
        "compiler_missing",
        (
            r"No CMAKE_CXX_COMPILER could be found",
            r"No CMAKE_C_COMPILER could be found",
            r"g\+\+: (command )?not found",
            r"CMake 3\.13 or newer is required",
            r"Failed to install temporary CMake",
        ),
        "The build tool chain is incomplete on the builder: install g++, make and cmake >= 3.13.",
    ),
    (
        "download_failed",
        (
            r"No matching distribution found",
            r"Could not find a version that satisfies the requirement",
            r"Temporary failure in name resolution",
            r"Connection refused",
            r"THESE PACKAGES DO NOT MATCH THE HASHES",
        ),
        "A package could not be downloaded: check horovod_pip_index_url, horovod_pip_extra_index_url, "
        "horovod_pip_find_links and horovod_wheelhouse.",
    ),
)

_COMPILE_ERROR_RE = re.compile(r"(error:|Error \d+|FAILED:|CMake Error|fatal error)", re.I)


def classify_build_failure(log_text: str, max_lines: int = 40) -> Dict[str, Any]:
    """Name the likely cause of a failed Horovod build from its log.

    Returns ``{"cause": str, "explanation": str, "evidence": [lines], "causes": [all matched],
    "tail": [last max_lines lines]}``; ``cause`` is ``unknown`` when nothing matched.
    """
    lines = log_text.splitlines()
    matched: List[Tuple[str, str, str]] = []
    for cause, patterns, explanation in _FAILURE_RULES:
        regexes = [re.compile(p, re.I) for p in patterns]
        hits = [line.strip() for line in lines if any(r.search(line) for r in regexes)]
        if hits:
            matched.append((cause, explanation, "\n".join(hits[:3])))
    tail = [line.rstrip() for line in lines[-max_lines:]]
    if matched:
        cause, explanation, evidence = matched[0]
        return {
            "cause": cause,
            "explanation": explanation,
            "evidence": evidence.splitlines(),
            "causes": [m[0] for m in matched],
            "tail": tail,
        }
    errors = [line.strip() for line in lines if _COMPILE_ERROR_RE.search(line)]
    return {
        "cause": "unknown",
        "explanation": "No known failure pattern matched; read the first error lines and the log tail.",
        "evidence": errors[:5],
        "causes": [],
        "tail": tail,
    }


def format_diagnosis(diagnosis: Mapping[str, Any], log_path: str = "") -> str:
    """One readable message for ansible.builtin.fail."""
    parts = ["Horovod build failed. Likely cause: {} - {}".format(diagnosis["cause"], diagnosis["explanation"])]
    if diagnosis.get("evidence"):
        parts.append("Evidence:\n  " + "\n  ".join(diagnosis["evidence"]))
    if log_path:
        parts.append(f"Full log: {log_path}")
    if diagnosis.get("tail"):
        parts.append("Last lines of the build output:\n" + "\n".join(diagnosis["tail"]))
    return "\n".join(parts)
