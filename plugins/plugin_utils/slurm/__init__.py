# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The site's Slurm across the play's nodes (the per-host reading is module_utils/_slurm.py), and the benchmark's
runs as Slurm jobs (jobs.py)."""

from __future__ import annotations

from .cluster import cluster_problems
from .jobs import SlurmJobError, job_argv, job_from_output, job_nodes

__all__ = ["SlurmJobError", "cluster_problems", "job_argv", "job_from_output", "job_nodes"]
