# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Horovod's decisions on the controller: the frameworks a build is for, the horovodrun command line.

Pure Python. Layout: ``frameworks`` (framework_plan: the pip requirements and variant of each framework) ·
``horovodrun`` (host lists and argv of horovodrun, mpirun and nccl-tests). Reached through the filters in
plugins/filter/horovod_frameworks.py and plugins/filter/horovodrun.py, and the input checks.
"""
