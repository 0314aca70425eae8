"""Rendering: the one-line summary and the aligned key/value/reason table (compat_table filter, compat.yml)."""

from __future__ import annotations

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.compat import (
    TABLE_KEYS,
    render_table,
    resolve,
    summarize,
)


def test_summary_names_the_main_versions_and_patches():
    stack = resolve({"os": "debian13", "gpus": [], "framework": "pytorch", "framework_version": "2.13"})
    assert summarize(stack) == (
        "torch 2.13.0 (cpu), Horovod 0.28.1 + cxx17, gcc13-headers, gcc14-flatbuffers-span, Python 3.13"
    )


def test_table_has_a_line_per_key_then_build_env_and_warnings():
    stack = resolve({"os": "debian12", "gpus": ["A100"], "framework": "pytorch", "framework_version": "2.0"})
    lines = render_table(stack)
    assert lines[0].split()[:3] == ["key", "value", "why"]
    keys = [line.split()[0] for line in lines[1 : 1 + len(TABLE_KEYS)]]
    assert keys == list(TABLE_KEYS)
    assert any(line.startswith("host_compiler_packages") and "gcc-11, g++-11" in line for line in lines)
    assert any(line.startswith("horovod_build_env") and "CXX=/usr/bin/g++-11" in line for line in lines)
    assert sum(line.startswith("warning") for line in lines) == len(stack["warnings"])
