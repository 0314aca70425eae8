# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark's controller side: the result document and its schema, the report, the nccl-tests parser.

Pure Python (matplotlib only for the plots). Layout: ``schema`` (the result format, RESULT_SCHEMA) · ``result``
(combining the program's documents) · ``link`` (iperf3's IP path and the fabric's link limit) · ``errors``
(BenchmarkError) · ``elastic`` (the elastic run's entry and report lines) · ``report`` (report.md and the plots) ·
``nccl_tests`` (NVIDIA's nccl-tests output). Reached through the action benchmark_report and the filters in
plugins/filter/benchmark.py.
"""
