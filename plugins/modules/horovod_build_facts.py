#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Facts from ``horovodrun --check-build``."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: horovod_build_facts
short_description: Report what an installed Horovod was built with (horovodrun --check-build)
version_added: "0.1.0"
description:
  - Runs C(horovodrun --check-build) and parses its C([X]) / C([ ]) marks into facts.
  - C(horovodrun --check-build) exits 0 whatever it finds, so its output is the only signal; this
    module fails when the output has no C(Available ...) section (for example a traceback because
    the framework cannot be imported).
  - Understands the formats of Horovod 0.16 to 0.28.
options:
  horovodrun:
    description:
      - Path of the C(horovodrun) executable. Relative names are looked up in C(PATH), or in
        O(venv)/bin when O(venv) is set.
    type: str
    default: horovodrun
  venv:
    description:
      - Python virtual environment that holds Horovod; its C(bin) directory is put first on C(PATH).
    type: path
  environment:
    description: Extra environment variables for the command.
    type: dict
    default: {}
  expect_build_env:
    description:
      - The C(HOROVOD_*) variables the build used. When set, the module returns in RV(expected) what
        C(--check-build) must show for them (framework flags, C(HOROVOD_WITH_MPI), C(HOROVOD_WITH_GLOO),
        C(HOROVOD_GPU_OPERATIONS)) and in RV(missing) what it lacks. The module itself never fails on
        a missing capability; the caller decides (the horovod role asserts).
    type: dict
  expect_framework:
    description: The framework the build is for (pytorch, tensorflow, mxnet); used with O(expect_build_env).
    type: str
    default: pytorch
  cache_file:
    description:
      - Keep the output of C(--check-build) in this file and reuse it while nothing it depends on
        changed (it imports every framework, which takes seconds on each run). The fingerprint covers the
        C(RECORD) of Horovod, of each framework and of NVIDIA's library wheels in O(venv), the size
        and mtime of Horovod's compiled extensions, the venv's Python, O(environment) and O(cache_key).
      - Needs O(venv). Unset (the default) runs C(--check-build) every time. Never written in check mode.
    type: path
  cache_key:
    description:
      - What the answer depends on outside the venv (the horovod role passes its build key, which
        covers the MPI, CUDA and NCCL versions); part of the fingerprint.
    type: str
    default: ""
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
  - gpucluster.horovod.facts
attributes:
  check_mode:
    support: full
    details: Read-only; runs in check mode too.
author: gpucluster.horovod contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Read what Horovod was built with
  gpucluster.horovod.horovod_build_facts:
    venv: /opt/gpucluster/venv

- name: Fail when Horovod lacks NCCL
  ansible.builtin.assert:
    that: ansible_facts['horovod_build']['tensor_operations']['nccl']
"""

RETURN = r"""
ansible_facts:
  description: Facts to add to ansible_facts.
  returned: always
  type: dict
  contains:
    horovod_build:
      description: Parsed C(horovodrun --check-build).
      type: dict
      returned: always
      contains:
        version:
          description: Horovod version, or null when the output has none (very old releases).
          type: str
          sample: 0.28.1
        frameworks:
          description: Framework extensions built (tensorflow, pytorch, mxnet).
          type: dict
          sample: {"tensorflow": false, "pytorch": true, "mxnet": false}
        controllers:
          description: Controllers built (mpi, gloo).
          type: dict
          sample: {"mpi": true, "gloo": true}
        tensor_operations:
          description: Tensor operation back-ends built (nccl, ddl, ccl, mlsl, mpi, gloo).
          type: dict
          sample: {"nccl": false, "ddl": false, "ccl": false, "mlsl": false, "mpi": true, "gloo": true}
        sections:
          description: The C(Available ...) sections found, in order.
          type: list
          elements: str
expected:
  description: What the build must provide, from O(expect_build_env).
  returned: when O(expect_build_env) is set
  type: dict
  sample: {"frameworks": ["pytorch"], "controllers": ["mpi", "gloo"], "tensor_operations": ["mpi", "gloo"]}
cached:
  description: Whether the output came from O(cache_file) (nothing it depends on changed) instead of a new run.
  returned: always
  type: bool
libraries:
  description:
    - Per framework, the extension libraries installed in the venv's horovod package (C(torch/mpi_lib_v2*.so),
      C(tensorflow/mpi_lib*.so), C(mxnet/mpi_lib*.so)). C(--check-build) reports PyTorch as available when only
      its Python files are there (importing C(horovod.torch) merely warns), so an expected framework without its
      library is listed in RV(missing) as C(library/<framework>).
  returned: when O(venv) is set and has a horovod package
  type: dict
  sample: {"pytorch": [], "tensorflow": ["/opt/venv/lib/python3.11/site-packages/horovod/tensorflow/mpi_lib.so"]}
missing:
  description:
    - Expected capabilities the build lacks, as C(section/item).
    - C(library/<framework>) for an expected framework whose extension library is missing.
  returned: always
  type: list
  elements: str
  sample: ["tensor_operations/nccl"]
raw:
  description: The unparsed output.
  returned: always
  type: str
"""

import glob  # noqa: E402 - Ansible plugins put DOCUMENTATION before the imports
import os  # noqa: E402 - Ansible plugins put DOCUMENTATION before the imports

from ansible.module_utils.basic import AnsibleModule  # noqa: E402 - documentation first

from ansible_collections.gpucluster.horovod.plugins.module_utils._horovod_build import (  # noqa: E402 - documentation first
    CheckBuildParseError,
    check_build_fingerprint,
    expected_capabilities,
    framework_libraries,
    missing_capabilities,
    missing_libraries,
    parse_check_build,
    read_check_build_cache,
    write_check_build_cache,
)


def main():
    module = AnsibleModule(
        argument_spec={
            "horovodrun": {"type": "str", "default": "horovodrun"},
            "venv": {"type": "path"},
            "environment": {"type": "dict", "default": {}},
            "expect_build_env": {"type": "dict"},
            "expect_framework": {"type": "str", "default": "pytorch"},
            "cache_file": {"type": "path"},
            "cache_key": {"type": "str", "default": "", "no_log": False},
        },
        required_by={"cache_file": "venv"},
        supports_check_mode=True,
    )
    env = {str(k): str(v) for k, v in module.params["environment"].items()}
    exe = module.params["horovodrun"]
    venv = module.params["venv"]
    opt_dirs = []
    if venv:
        bindir = os.path.join(venv, "bin")
        env["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
        env["VIRTUAL_ENV"] = venv
        opt_dirs.append(bindir)
    if os.sep not in exe:
        found = module.get_bin_path(exe, required=False, opt_dirs=opt_dirs)
        if not found:
            module.fail_json(msg=f"horovod_build_facts: '{exe}' not found (venv={venv}); is Horovod installed?")
        exe = found
    cache_file = module.params["cache_file"]
    fingerprint = None
    if cache_file:
        fingerprint = check_build_fingerprint(venv, {"key": module.params["cache_key"], "env": env, "exe": exe})
    out = read_check_build_cache(cache_file, fingerprint) if cache_file else None
    cached = out is not None
    if not cached:
        rc, out, err = module.run_command([exe, "--check-build"], environ_update=env)
        if rc != 0:
            module.fail_json(msg=f"horovod_build_facts: '{exe} --check-build' exited {rc}", stdout=out, stderr=err)
    try:
        facts = parse_check_build(out)
    except CheckBuildParseError as exc:
        module.fail_json(msg=f"horovod_build_facts: {exc}", stdout=out, stderr="" if cached else err, cached=cached)
    if fingerprint and not cached and not module.check_mode:
        try:
            write_check_build_cache(cache_file, fingerprint, out)
        except OSError as exc:
            module.warn(f"horovod_build_facts: could not write the cache {cache_file}: {exc}")
    result = {"changed": False, "ansible_facts": {"horovod_build": facts}, "raw": out, "missing": [], "cached": cached}
    horovod_dirs = sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "horovod"))) if venv else []
    if horovod_dirs:
        result["libraries"] = framework_libraries(horovod_dirs[-1])
    if module.params["expect_build_env"] is not None:
        expected = expected_capabilities(module.params["expect_build_env"], module.params["expect_framework"])
        result["expected"] = expected
        result["missing"] = missing_capabilities(facts, **expected)
        if "libraries" in result:
            result["missing"] += missing_libraries(result["libraries"], expected["frameworks"])
    module.exit_json(**result)


if __name__ == "__main__":
    main()
