"""docker role decisions: the daemon.json merge (user keys kept, broken files refused), the managed keys and the
package version parsing."""

from __future__ import annotations

import json

import pytest

from ansible_collections.gpucluster.horovod.plugins.filter import docker as filters
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.containers import docker_daemon as logic

USER_FILE = json.dumps(
    {
        "debug": True,
        "labels": ["owner=user"],
        "log-opts": {"max-file": "5", "labels": "team"},
        "runtimes": {"user-runtime": {"path": "/usr/local/bin/crun"}},
    }
)


def test_merge_keeps_the_users_keys_and_merges_objects_key_by_key():
    current, problem = logic.parse_daemon_json(USER_FILE)
    assert problem == ""
    merged = logic.merge_daemon_config(
        current,
        {
            "log-driver": "local",
            "log-opts": {"max-size": "10m"},
            "runtimes": {"nvidia": {"path": "nvidia-container-runtime", "runtimeArgs": []}},
        },
    )
    assert merged["debug"] is True and merged["labels"] == ["owner=user"]
    assert merged["log-opts"] == {"max-file": "5", "labels": "team", "max-size": "10m"}
    assert set(merged["runtimes"]) == {"user-runtime", "nvidia"}
    assert current == json.loads(USER_FILE), "the input is not modified"


def test_merge_replaces_lists_and_scalars_and_null_removes():
    merged = logic.merge_daemon_config(
        {"registry-mirrors": ["http://a"], "debug": True}, {"registry-mirrors": ["http://b"], "debug": None}
    )
    assert merged == {"registry-mirrors": ["http://b"]}


def test_merge_is_stable_on_a_second_run():
    managed = logic.managed_settings(log_driver="local", log_opts={"max-size": "10m"}, extra={"live-restore": True})
    once = logic.merge_daemon_config(json.loads(USER_FILE), managed)
    assert logic.merge_daemon_config(once, managed) == once


@pytest.mark.parametrize(
    "text, phrase",
    [
        ('{"debug": true,}', "not valid JSON at line 1, column 16"),
        ('{\n  "debug": true\n  "labels": []\n}', "not valid JSON at line 3, column 3"),
        ('["debug"]', "must hold a JSON object ({...}), not a list"),
        ("debug: true", "not valid JSON at line 1, column 1"),
    ],
)
def test_broken_files_are_refused_with_line_and_column(text, phrase):
    data, problem = logic.parse_daemon_json(text, "/etc/docker/daemon.json")
    assert data == {} and phrase in problem and problem.startswith("/etc/docker/daemon.json")


@pytest.mark.parametrize("text", [None, "", "  \n"])
def test_missing_or_empty_file_is_an_empty_object(text):
    assert logic.parse_daemon_json(text) == ({}, "")


def test_managed_settings_from_the_variables():
    got = logic.managed_settings(
        registry_mirrors=["http://mirror:5000"],
        data_root="/srv/docker",
        log_driver="local",
        log_opts={"max-size": "10m", "max-file": 3},
        default_runtime="nvidia",
        extra={"live-restore": True, "log-opts": {"compress": "true"}},
    )
    assert got == {
        "registry-mirrors": ["http://mirror:5000"],
        "data-root": "/srv/docker",
        "log-driver": "local",
        "log-opts": {"max-size": "10m", "max-file": "3", "compress": "true"},
        "default-runtime": "nvidia",
        "live-restore": True,
    }
    assert logic.managed_settings() == {}, "empty variables set nothing: the user's own values stay"


@pytest.mark.parametrize(
    "version, upstream",
    [
        ("5:27.5.1-1~debian.12~bookworm", "27.5.1"),
        ("20.10.24+dfsg1-1+deb12u1", "20.10.24"),
        ("26.1.5+dfsg1-9+b9", "26.1.5"),
        ("", None),
        ("(none)", None),
    ],
)
def test_docker_package_version(version, upstream):
    assert logic.docker_package_version(version) == upstream


def test_filters():
    out = filters.docker_daemon_merge(USER_FILE, {"log-driver": "local"})
    assert out["problem"] == "" and out["config"]["log-driver"] == "local" and out["current"]["debug"] is True
    bad = filters.docker_daemon_merge("{", {"log-driver": "local"})
    assert bad["problem"] and bad["config"] == {}
    assert filters.docker_managed_settings({"log_driver": "local"}) == {"log-driver": "local"}
    assert filters.docker_package_version("garbage") == ""
