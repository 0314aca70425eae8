#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an existing Python environment holds: Python, pip, distributions, each framework's build."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: python_env_facts
short_description: Read an existing Python environment (Python, pip, frameworks and the CUDA they were built for)
version_added: "0.1.0"
description:
  - Runs the environment's own C(bin/python) once and reports its Python version, whether it has pip, every
    installed distribution with its version, and for each framework Horovod builds for (PyTorch, TensorFlow,
    MXNet) that is installed, the distribution, its version and the CUDA the build carries.
  - "The CUDA build is read by importing the framework (C(torch.version.cuda),
    C(tf.sysconfig.get_build_info())), because the metadata does not tell: the package index's C(torch 2.13.0) is a
    CUDA 13.0 build whose metadata version has no C(+cu130) label. Importing a large framework takes seconds."
  - Writes nothing into the environment (no byte-code, no user site). A missing environment is reported
    (RV(python_env.exists) false), not an error; the caller decides.
  - The horovod role (C(horovod_venv_mode=existing)) and the preflight role use it to build Horovod into an
    environment the user already has and to resolve the stack around its framework.
options:
  path:
    description: Prefix of the environment (a venv, a conda environment or any prefix with C(bin/python)).
    type: path
    required: true
  import_frameworks:
    description: Import each installed framework to read the CUDA it was built for (else versions only).
    type: bool
    default: true
  environment:
    description: Extra environment variables for the interpreter.
    type: dict
    default: {}
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Read-only; runs in check mode too.
  diff_mode:
    support: none
  platform:
    platforms: posix
author: gpucluster.horovod contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Read the environment PyTorch came preinstalled in
  gpucluster.horovod.python_env_facts:
    path: /opt/torch/.venv
  register: env

- name: Show its PyTorch build
  ansible.builtin.debug:
    msg: "{{ env.python_env.frameworks.pytorch }}"
    # {'distribution': 'torch', 'version': '2.11.0+cu130', 'cuda': '13.0', 'variant': 'cu130', 'nccl': '2.28.9', ...}
"""

RETURN = r"""
python_env:
  description: What the environment holds.
  returned: always
  type: dict
  contains:
    path: {description: The prefix asked about., type: str}
    exists: {description: Whether C(bin/python) exists there., type: bool}
    error: {description: Why the interpreter could not be read (null when it could)., type: str}
    owner: {description: Owner of the prefix directory (who may change the environment)., type: str}
    python_version: {description: Python version (3.11.2)., type: str}
    python_series: {description: Python major.minor (3.11)., type: str}
    kind: {description: "One of venv, conda or prefix.", type: str}
    pip: {description: "Version of pip in the environment; null without one.", type: str}
    distributions: {description: Every installed distribution (normalized name) and its version., type: dict}
    frameworks:
      description:
        - Per installed framework (pytorch, tensorflow, mxnet) C(distribution), C(version) (its metadata),
          C(module_version), C(cuda) (null for a CPU build), C(variant) (C(cu130), C(cpu), C(rocm6.1)),
          C(nccl) (PyTorch's), C(error) (why importing it failed) and C(imported).
      type: dict
      sample: {"pytorch": {"distribution": "torch", "version": "2.13.0", "module_version": "2.13.0+cu130",
                           "cuda": "13.0", "variant": "cu130", "nccl": "2.29.7", "error": null, "imported": true}}
"""

import os  # noqa: E402 - Ansible plugins put DOCUMENTATION before the imports
import pwd  # noqa: E402 - Ansible plugins put DOCUMENTATION before the imports

from ansible.module_utils.basic import AnsibleModule  # noqa: E402 - documentation first

from ansible_collections.gpucluster.horovod.plugins.module_utils._python_env import (  # noqa: E402 - documentation first
    FRAMEWORK_MODULES,
    PROBE_SCRIPT,
    PythonEnvParseError,
    parse_probe,
)


def _owner(path):
    try:
        uid = os.stat(path).st_uid
    except OSError:
        return None
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "import_frameworks": {"type": "bool", "default": True},
            "environment": {"type": "dict", "default": {}},
        },
        supports_check_mode=True,
    )
    path = module.params["path"].rstrip("/") or "/"
    python = os.path.join(path, "bin", "python")
    result = {"path": path, "exists": os.path.exists(python), "error": None, "owner": _owner(path)}
    if not result["exists"]:
        result["error"] = f"{python} does not exist"
        module.exit_json(changed=False, python_env=result)
    env = dict(os.environ)
    # Nothing written into the environment or read from the user's site directory.
    env.update({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "TF_CPP_MIN_LOG_LEVEL": "3"})
    env.pop("PYTHONPATH", None)
    env.update({str(k): str(v) for k, v in module.params["environment"].items()})
    argv = [python, "-c", PROBE_SCRIPT]
    if module.params["import_frameworks"]:
        argv += list(FRAMEWORK_MODULES)
    rc, out, err = module.run_command(argv, environ_update=env, cwd="/")
    if rc != 0:
        result["error"] = f"{python} exited {rc}: {(err or out).strip()[-1000:]}"
        module.exit_json(changed=False, python_env=result)
    try:
        result.update(parse_probe(out))
    except PythonEnvParseError as exc:
        result["error"] = f"{python}: {exc} ({(err or out).strip()[-500:]})"
    module.exit_json(changed=False, python_env=result)


if __name__ == "__main__":
    main()
