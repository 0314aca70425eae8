# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks of the passwordless_ssh role."""

from __future__ import annotations

import re

from ._base import (
    Finding,
    absolute_path,
    check,
    group_name,
    id_number,
    inventory_host,
    running_jobs,
    tcp_port,
    training_user,
)


@check(
    "passwordless_ssh_port",
    "passwordless_ssh_extra_port",
    description="passwordless_ssh_port is a port sshd listens on: 22 or passwordless_ssh_extra_port",
)
def _port_is_listened_on(values, ctx):
    port, extra = values["passwordless_ssh_port"], values["passwordless_ssh_extra_port"]
    if isinstance(port, int) and 1 <= port <= 65535 and port not in (22, extra):
        yield Finding(
            "passwordless_ssh_port",
            port,
            f"sshd listens on 22{f' and {extra}' if extra else ''} only",
            f"22, or set passwordless_ssh_extra_port: {port} so sshd listens there too",
        )


@check("passwordless_ssh_extra_names", description="names without whitespace, commas or wildcards")
def _extra_names(values, ctx):
    for item in values["passwordless_ssh_extra_names"] or []:
        if not isinstance(item, str) or not item or re.search(r"[\s,*?!]", item):
            yield Finding(
                "passwordless_ssh_extra_names", item, "not a host name or address", "names such as n1-ib or 10.0.0.5"
            )


CHECKS = [
    training_user("passwordless_ssh_user"),
    group_name("passwordless_ssh_group"),
    id_number("passwordless_ssh_uid", "passwordless_ssh_gid"),
    absolute_path("passwordless_ssh_home", "passwordless_ssh_shell"),
    tcp_port("passwordless_ssh_port"),
    tcp_port("passwordless_ssh_extra_port", optional=True),
    _port_is_listened_on,
    inventory_host("passwordless_ssh_launcher"),
    _extra_names,
    *running_jobs("passwordless_ssh"),
]
