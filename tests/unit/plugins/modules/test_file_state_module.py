"""file_state module: which of a role's files differ from what it writes (issue 37: one module run for all of them)."""

from __future__ import annotations

import grp
import hashlib
import json
import os
import pwd

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpucluster.horovod.plugins.modules import file_state

ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def run(capsys, files, check_mode=True):
    with patch_module_args({"_ansible_check_mode": check_mode, "files": files}), pytest.raises(SystemExit):
        file_state.main()
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def tree(tmp_path):
    conf = tmp_path / "a.conf"
    conf.write_text("Port 22\n")
    conf.chmod(0o644)
    key = tmp_path / "id"
    key.write_text("secret\n")
    key.chmod(0o600)
    (tmp_path / "dir").mkdir(mode=0o755)
    (tmp_path / "dir").chmod(0o755)
    return tmp_path


def test_files_as_expected_do_not_differ(tree, capsys):
    out = run(
        capsys,
        [
            {
                "path": str(tree / "a.conf"),
                "checksum": sha1("Port 22\n"),
                "owner": ME,
                "group": MY_GROUP,
                "mode": "0644",
            },
            {"path": str(tree / "id"), "checksum": sha1("secret\n"), "mode": "0600"},
            {"path": str(tree / "dir"), "state": "directory", "mode": "0755"},
        ],
    )
    assert out["changed"] is False
    assert out["differ"] == []
    assert [f["differences"] for f in out["files"]] == [[], [], []]
    assert out["files"][0] == {
        "path": str(tree / "a.conf"),
        "type": "file",
        "owner": ME,
        "group": MY_GROUP,
        "mode": "0644",
        "checksum": sha1("Port 22\n"),
        "differences": [],
    }
    assert "Port 22" not in json.dumps(out) and "secret" not in json.dumps(out)  # never a file's content


def test_each_difference_is_named_and_the_path_listed_as_given(tree, capsys):
    out = run(
        capsys,
        [
            {"path": str(tree / "a.conf"), "checksum": sha1("Port 2222\n"), "mode": "0600", "owner": "nobody-here"},
            {"path": str(tree / "missing.conf"), "checksum": sha1("x")},
            {"path": str(tree / "dir"), "checksum": sha1("x")},
            {"path": str(tree / "a.conf"), "state": "directory"},
            {"path": str(tree / "dir"), "state": "directory", "mode": "0700"},
            {"path": str(tree / "id")},  # nothing expected: only that it is a file
        ],
    )
    differences = [f["differences"] for f in out["files"]]
    assert differences[0] == ["content", f"owner {ME} (expected nobody-here)", "mode 0644 (expected 0600)"]
    assert differences[1] == ["missing"]
    assert differences[2] == ["a directory, not a file"]
    assert differences[3] == ["a file, not a directory"]
    assert differences[4] == ["mode 0755 (expected 0700)"]
    assert differences[5] == []
    assert out["differ"] == [str(tree / n) for n in ("a.conf", "missing.conf", "dir", "a.conf", "dir")]
    assert out["files"][1] == {"path": str(tree / "missing.conf"), "type": "absent", "differences": ["missing"]}


def test_a_symlink_is_not_the_file_it_points_to(tree, capsys):
    (tree / "link").symlink_to(tree / "a.conf")
    out = run(capsys, [{"path": str(tree / "link"), "checksum": sha1("Port 22\n")}])
    assert out["files"][0]["type"] == "other"
    assert out["differ"] == [str(tree / "link")]


def test_a_mode_is_compared_as_octal_whatever_its_spelling(tree, capsys):
    out = run(capsys, [{"path": str(tree / "a.conf"), "mode": "644"}, {"path": str(tree / "id"), "mode": "0o600"}])
    assert out["differ"] == []


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"path": "relative/a.conf"}, "is not an absolute path"),
        ({"path": "/etc/hostname", "mode": "rw-r"}, "not octal"),
    ],
)
def test_bad_input_fails_naming_it(entry, message, capsys):
    out = run(capsys, [entry])
    assert out["failed"] is True
    assert message in out["msg"]


def test_lines_a_file_must_hold_are_counted_not_shown(tree, capsys):
    keys = tree / "authorized_keys"
    keys.write_text("ssh-ed25519 AAAAother someone\nssh-ed25519 AAAAcluster hvd@gpucluster\n")
    out = run(
        capsys,
        [
            {"path": str(keys), "lines": ["ssh-ed25519 AAAAcluster hvd@gpucluster"]},
            {
                "path": str(keys),
                "lines": ["ssh-ed25519 AAAAcluster hvd@gpucluster", "ssh-ed25519 AAAAnew hvd@gpucluster"],
            },
            {"path": str(tree / "missing"), "lines": ["x"]},
        ],
    )
    assert [f["differences"] for f in out["files"]] == [[], ["1 of its 2 line(s) missing"], ["missing"]]
    assert "AAAA" not in json.dumps(out["files"])
