# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark's one error type, shared by the combiner (result.py, which re-exports it) and its parts."""

from __future__ import annotations


class BenchmarkError(Exception):
    """A benchmark input or output is wrong; the message says which and why."""
