# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Attributes shared by the collection's read-only fact modules."""

from __future__ import annotations


class ModuleDocFragment:
    """Read-only fact gathering on a POSIX host: check mode full, no diff, facts returned.

    Use after ansible.builtin.action_common_attributes and ansible.builtin.action_common_attributes.facts,
    which describe the attributes this fragment gives values to.
    """

    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
"""
