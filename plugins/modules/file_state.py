#!/usr/bin/python
# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which of a role's managed files differ from what the role writes: one module run for all of them."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: file_state
short_description: Compare several files with what a role writes to them (checksum, owner, group, mode) in one run
version_added: "0.3.0"
description:
  - Reads the type, owner, group, mode and SHA-1 checksum of each file in O(files) and compares them with the
    expected values given for it; returns the paths that differ (RV(differ)) with what differs.
  - For roles that manage several small files with M(ansible.builtin.copy) or M(ansible.builtin.template), run this
    once and the copy of a file only where it differs (C(when - path in result.differ)). A copy that finds nothing to
    change costs two module runs on the node (C(stat), then C(file) for the attributes) and three more commands (the
    remote temporary directory); this module costs one run for all the files. The copies still run, and still decide,
    wherever anything differs, so changes, check mode and diffs are theirs.
  - Changes nothing; runs in check mode. Never returns file contents (O(files[].lines) missing are counted, not
    shown).
options:
  files:
    description: The files to read, each with what the role expects of it. A value left out is not compared.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: Absolute path of the file, returned in RV(differ) as given.
        type: str
        required: true
      state:
        description: C(file) - a regular file; C(directory) - a directory (no checksum).
        type: str
        choices: [file, directory]
        default: file
      checksum:
        description: SHA-1 of the content the role writes (the C(hash('sha1')) filter of that content).
        type: str
      owner:
        description: Owner name.
        type: str
      group:
        description: Group name.
        type: str
      mode:
        description: Octal mode as the role's copy sets it (C("0600")).
        type: str
      lines:
        description:
          - Lines the file must hold (each compared whole, without its line end), for files a module edits line by
            line (the C(ansible.posix.authorized_key) module) instead of writing them whole.
        type: list
        elements: str
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
- name: Read the state of the files below (one module run)
  gpucluster.horovod.file_state:
    files:
      - path: /etc/example.conf
        checksum: "{{ example_content | hash('sha1') }}"
        owner: root
        group: root
        mode: "0644"
  register: files

- name: Ensure /etc/example.conf
  ansible.builtin.copy:
    dest: /etc/example.conf
    content: "{{ example_content }}"
    owner: root
    group: root
    mode: "0644"
  when: "'/etc/example.conf' in files.differ"
"""

RETURN = r"""
differ:
  description: The paths that differ from their expectation (missing, another type, content, owner, group or mode).
  returned: always
  type: list
  elements: str
  sample: [/etc/example.conf]
files:
  description: What was found for each file, in the order of O(files).
  returned: always
  type: list
  elements: dict
  contains:
    path:
      description: The path.
      type: str
    type:
      description: C(file), C(directory), C(other) or C(absent).
      type: str
    owner:
      description: Owner name (the uid where it has no name); absent when the path is.
      type: str
    group:
      description: Group name (the gid where it has no name).
      type: str
    mode:
      description: Octal permission bits, C("0644").
      type: str
    checksum:
      description: SHA-1 of a regular file's content.
      type: str
    differences:
      description: What differs from the expectation; empty when it matches.
      type: list
      elements: str
  sample:
    - {path: /etc/example.conf, type: file, owner: root, group: root, mode: "0644", checksum: "da39a3ee...",
       differences: []}
"""

import grp  # noqa: E402
import os  # noqa: E402
import pwd  # noqa: E402
import stat  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402


def _name(lookup, ident: int) -> str:
    try:
        return lookup(ident)[0]
    except KeyError:
        return str(ident)


def _mode(value) -> str | None:
    if value is None:
        return None
    return f"{int(str(value), 8):04o}"


def read_state(path: str, sha1, lines: bool = False) -> dict:
    """Type, owner, group, mode and (for a regular file) checksum of path; sha1(path) gives the checksum. With lines,
    also the set of the file's lines (key _lines, left out of the result)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return {"path": path, "type": "absent"}
    kind = "file" if stat.S_ISREG(st.st_mode) else "directory" if stat.S_ISDIR(st.st_mode) else "other"
    found = {
        "path": path,
        "type": kind,
        "owner": _name(pwd.getpwuid, st.st_uid),
        "group": _name(grp.getgrgid, st.st_gid),
        "mode": f"{stat.S_IMODE(st.st_mode):04o}",
    }
    if kind == "file":
        found["checksum"] = sha1(path)
        if lines:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                found["_lines"] = {line.rstrip("\r\n") for line in handle}
    return found


def differences(found: dict, expected: dict) -> list[str]:
    """What in found differs from expected (the values expected sets)."""
    want_type = expected.get("state") or "file"
    if found["type"] == "absent":
        return ["missing"]
    if found["type"] != want_type:
        return [f"a {found['type']}, not a {want_type}"]
    out = []
    if want_type == "file" and expected.get("checksum") and found.get("checksum") != expected["checksum"].lower():
        out.append("content")
    missing = [line for line in expected.get("lines") or [] if line.rstrip("\r\n") not in found.get("_lines", ())]
    if missing:
        out.append(f"{len(missing)} of its {len(expected['lines'])} line(s) missing")
    for key in ("owner", "group"):
        if expected.get(key) is not None and found.get(key) != str(expected[key]):
            out.append(f"{key} {found.get(key)} (expected {expected[key]})")
    want_mode = _mode(expected.get("mode"))
    if want_mode is not None and found.get("mode") != want_mode:
        out.append(f"mode {found.get('mode')} (expected {want_mode})")
    return out


def main():
    module = AnsibleModule(
        argument_spec={
            "files": {
                "type": "list",
                "elements": "dict",
                "required": True,
                "options": {
                    "path": {"type": "str", "required": True},
                    "state": {"type": "str", "choices": ["file", "directory"], "default": "file"},
                    "checksum": {"type": "str"},
                    "owner": {"type": "str"},
                    "group": {"type": "str"},
                    "mode": {"type": "str"},
                    "lines": {"type": "list", "elements": "str", "no_log": False},
                },
            }
        },
        supports_check_mode=True,
    )
    results, differ = [], []
    for expected in module.params["files"]:
        if not os.path.isabs(expected["path"]):
            module.fail_json(msg=f"file_state: {expected['path']!r} is not an absolute path")
        try:
            _mode(expected.get("mode"))
        except ValueError:
            module.fail_json(msg=f'file_state: mode {expected["mode"]!r} of {expected["path"]} is not octal ("0644")')
        try:
            found = read_state(expected["path"], module.sha1, lines=bool(expected.get("lines")))
        except OSError as exc:
            module.fail_json(msg=f"file_state: cannot read {expected['path']}: {exc}")
        found["differences"] = differences(found, expected)
        found.pop("_lines", None)
        if found["differences"]:
            differ.append(expected["path"])
        results.append(found)
    module.exit_json(changed=False, files=results, differ=differ)


if __name__ == "__main__":
    main()
