"""gpucluster.horovod.lost_nodes: one line per lost node at the end of the run (issue 39)."""

from __future__ import annotations

from types import SimpleNamespace

from ansible_collections.gpucluster.horovod.plugins.callback.lost_nodes import CallbackModule


class Named:
    """A host, task or play: what the callback reads of them is get_name() (and a task's delegate_to)."""

    def __init__(self, name, delegate_to=None):
        self.name = name
        self.delegate_to = delegate_to

    def get_name(self):
        return self.name


Host = Task = Play = Named


class Display:
    verbosity = 0

    def __init__(self):
        self.lines = []

    def display(self, msg, color=None, stderr=False):
        self.lines.append(msg)


def res(host, task, data, delegate_to=None, new_api=True):
    """A callback result as ansible-core 2.19 (host/task/result) or 2.16-2.18 (_host/_task/_result) passes it."""
    if new_api:
        return SimpleNamespace(host=Host(host), task=Task(task, delegate_to), result=data)
    return SimpleNamespace(_host=Host(host), _task=Task(task, delegate_to), _result=data)


def callback(play=None):
    """The callback, in the play of that name when one is given."""
    cb = CallbackModule(display=Display())
    if play:
        cb.v2_playbook_on_play_start(Play(play))
    return cb


def test_nothing_lost_prints_nothing():
    cb = callback("Open MPI")
    cb.v2_runner_on_failed(res("node1", "Build", {"msg": "exit 2"}))
    cb.v2_playbook_on_stats(None)
    assert cb.lines() == []
    assert cb._display.lines == []


def test_a_lost_node_is_named_once_with_play_task_error_and_advice():
    cb = callback("Install Open MPI on the training nodes")
    cb.v2_runner_on_unreachable(
        res(
            "node2",
            "Ensure the packages are installed",
            {"msg": "Failed to create temporary directory. In some cases ...\nmore text"},
        )
    )
    cb.v2_runner_on_unreachable(res("node2", "a later task", {"msg": "again"}))
    cb.v2_playbook_on_stats(None)
    lines = cb._display.lines
    assert lines[0] == "LOST NODES: 1 node(s) stopped answering during the run"
    assert lines[1] == (
        "  node2: lost in play 'Install Open MPI on the training nodes', task 'Ensure the packages are installed': "
        "Failed to create temporary directory. In some cases ... - bring it back and run the playbook again "
        "(a re-run finishes the job), or remove it from the inventory"
    )
    assert len(lines) == 2


def test_failures_that_name_a_lost_node_are_called_its_consequence():
    cb = callback("Passwordless SSH")
    cb.v2_runner_on_unreachable(
        res("node2", "Read the host keys", {"msg": "ssh: connect to host 10.0.0.2"}, new_api=False)
    )
    cb.v2_runner_on_failed(res("node1", "Reach the peers", {"stdout": "ssh: Could not resolve hostname node2"}))
    cb.v2_runner_on_failed(res("node3", "Other", {"msg": "disk full"}))
    cb.v2_runner_on_failed(res("node3", "Ignored", {"msg": "node2"}), ignore_errors=True)
    lines = cb.lines()
    assert len(lines) == 3
    assert lines[2].startswith(
        "  node1 failed in play 'Passwordless SSH', task 'Reach the peers', its error names node2"
    )
    assert not any("node3" in line for line in lines)


def test_a_delegated_task_names_the_node_it_was_delegated_to():
    cb = callback("Benchmark")
    cb.v2_runner_on_unreachable(
        res(
            "n1",
            "Ensure no benchmark process is left",
            {"msg": "docker: container n2 is not running"},
            delegate_to="n2",
        )
    )
    lines = cb.lines()
    assert lines[1].startswith(
        "  n2: lost in play 'Benchmark', task 'Ensure no benchmark process is left' "
        "(reached through a task of n1): docker: container n2 is not running"
    )
