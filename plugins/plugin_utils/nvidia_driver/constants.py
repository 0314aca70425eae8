# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver role's fixed vocabularies: install methods, kernel module flavours, reboot policies, and
the daemons the driver itself runs (never counted as a user of the GPU)."""

METHODS = ("distro", "repo")
KERNEL_MODULES = ("open", "proprietary")
# What of the driver a host gets: compute (headless: CUDA, NVML, nvidia-smi) or full (the display part too).
COMPONENTS = ("compute", "full")
REBOOT_POLICIES = ("never", "if_needed", "always")
# The driver's own daemons hold /dev/nvidia* while they run; they are stopped for a module reload and started after
# it (systemd unit names; their processes' names, as /proc/PID/comm gives them, cut to 15 characters).
OWN_DAEMON_UNITS = ("nvidia-persistenced", "nvidia-fabricmanager")
OWN_DAEMONS = ("nvidia-persistenced", "nv-fabricmanager")
