# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The NVIDIA driver role's decisions: the packages per OS, flavour and branch, install or not, reload or reboot.

Pure Python. Layout: ``packages`` (select_packages, target_version, the locks), ``inputs`` (input_problems,
value_problems), ``decisions`` (driver_action, reboot_decision; re-exports the other two), ``constants``.
Reached through
the filters in plugins/filter/nvidia_driver.py and the input checks (input_checks/nvidia_driver.py).
"""
