# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Callback gpucluster.horovod.lost_nodes: one line per node lost during the run, at its end."""

from __future__ import annotations

DOCUMENTATION = r"""
name: lost_nodes
type: aggregate
short_description: Name every node lost during the run - play, task, error and what to do - in one line each at the end
description:
  - A node that stops answering in the middle of a run (powered off, its network down, sshd stopped) shows as
    Ansible's generic connection error in the middle of the output, and other nodes then fail on tasks that talk to
    it (C(Could not resolve hostname), C(Connection refused)). This callback collects the unreachable results of the
    run (also those a task ignores with C(ignore_unreachable), and those of delegated tasks, under the node they were
    delegated to) and prints, after the play recap, one line per lost node - the play and the task where it was lost
    first, the error's first line - and what to do, and names the failures on other nodes whose error names a lost
    node as its likely consequence.
  - Enabled in the collection's C(ansible.cfg) (C(callbacks_enabled)); add C(gpucluster.horovod.lost_nodes) to
    yours when the collection is installed from Galaxy. It prints nothing when no node was lost.
version_added: 0.2.0
author: gpucluster.horovod contributors (@gpucluster)
requirements:
  - enabled in callbacks_enabled
"""

from ansible.plugins.callback import CallbackBase  # noqa: E402 - after DOCUMENTATION, as Ansible's own plugins

_ADVICE = "bring it back and run the playbook again (a re-run finishes the job), or remove it from the inventory"


def _first_line(text):
    for line in str(text or "").splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _parts(result):
    """(host name, task, result dict) of a callback result, on ansible-core 2.16 to 2.19 and later."""
    host = getattr(result, "host", None) or result._host
    task = getattr(result, "task", None) or result._task
    data = getattr(result, "result", None)
    if data is None:
        data = result._result
    return host.get_name(), task, data


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpucluster.horovod.lost_nodes"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display=display)
        self.play = ""
        self.lost = {}  # node -> {"play", "task", "error", "via"}
        self.failed = []  # (host, play, task, error) of failed results, to relate to the lost nodes at the end

    def v2_playbook_on_play_start(self, play):
        self.play = play.get_name().strip()

    def v2_runner_on_unreachable(self, result):
        host, task, data = _parts(result)
        node = getattr(task, "delegate_to", None) or host
        if node not in self.lost:
            self.lost[node] = {
                "play": self.play,
                "task": task.get_name().strip(),
                "error": _first_line(data.get("msg")),
                "via": host if node != host else "",
            }

    def v2_runner_on_failed(self, result, ignore_errors=False):
        if ignore_errors:
            return
        host, task, data = _parts(result)
        text = " ".join(str(data.get(k) or "") for k in ("msg", "stderr", "stdout"))
        self.failed.append((host, self.play, task.get_name().strip(), text))

    def lines(self):
        """The lines printed at the end (empty when no node was lost)."""
        if not self.lost:
            return []
        out = [f"LOST NODES: {len(self.lost)} node(s) stopped answering during the run"]
        for node, where in self.lost.items():
            via = f" (reached through a task of {where['via']})" if where["via"] else ""
            error = where["error"] or "unreachable"
            out.append(f"  {node}: lost in play '{where['play']}', task '{where['task']}'{via}: {error} - {_ADVICE}")
        for host, play, task, text in self.failed:
            named = [node for node in self.lost if node != host and node in text]
            if named:
                out.append(
                    f"  {host} failed in play '{play}', task '{task}', its error names {', '.join(named)}: most likely"
                    f" a consequence of the lost node(s), not a problem of {host}"
                )
        return out

    def v2_playbook_on_stats(self, stats):
        for line in self.lines():
            self._display.display(line, color="bright red", stderr=False)
