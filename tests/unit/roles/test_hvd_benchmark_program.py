"""roles/horovod_benchmark/files/hvd_benchmark.py: pure helpers, argument rules and the plain-framework mode.

The program runs on the nodes with the training venv's python; the plain mode needs no Horovod, so it runs
here wherever torch is importable (the Horovod modes are exercised by the molecule scenarios).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

PROGRAM = Path(__file__).resolve().parents[3] / "roles" / "horovod_benchmark" / "files" / "hvd_benchmark.py"
_spec = importlib.util.spec_from_file_location("hvd_benchmark", PROGRAM)
hb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hb)


@pytest.mark.parametrize(("text", "size"), [("4K", 4096), ("64MiB", 64 * 1024**2), ("1024", 1024), ("1g", 1024**3)])
def test_parse_size(text, size):
    assert hb.parse_size(text) == size


@pytest.mark.parametrize(
    ("version", "text"), [((2, 21, 5), "2.21.5"), (22809, "2.28.9"), (2708, "2.7.8")]
)  # fmt: skip
def test_nccl_version_of_torch(version, text):
    fake = SimpleNamespace(cuda=SimpleNamespace(nccl=SimpleNamespace(version=lambda: version)))
    assert hb.nccl_version(fake) == text


def test_nccl_version_without_nccl():
    def missing():
        raise RuntimeError("NCCL is not available")

    assert hb.nccl_version(SimpleNamespace(cuda=SimpleNamespace(nccl=SimpleNamespace(version=missing)))) is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mode", "plain", "--no-training"], "--mode plain runs the training part only"),
        (["--framework", "tensorflow", "--mode", "torch"], "choose horovod, plain or tensorflow"),
        (["--mode", "tensorflow"], "choose horovod, plain or torch or both"),
    ],
)
def test_mode_rules(argv, message, capsys):
    with pytest.raises(SystemExit):
        hb.main(argv)
    assert message in capsys.readouterr().err


def test_plain_mode_trains_in_one_process_without_horovod(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setitem(sys.modules, "horovod", None)  # import horovod fails: the plain mode must not need it
    out = tmp_path / "run-plain.json"
    argv = ["--mode", "plain", "--model", "smallconvnet", "--batch-size", "4", "--image-size", "16"]
    argv += ["--steps", "2", "--warmup-steps", "1", "--device", "cpu", "--tag", "plain", "--output", str(out)]
    assert hb.main(argv) == 0
    doc = json.loads(out.read_text())
    assert (doc["mode"], doc["size"], doc["library"], doc["horovod"], doc["device"]) == (
        "plain",
        1,
        "torch",
        None,
        "cpu",
    )
    assert [r["rank"] for r in doc["ranks"]] == [0]
    tr = doc["training"]
    assert (tr["model"], tr["batch_size"], tr["image_size"], tr["steps"], tr["ranks_reported"]) == (
        "smallconvnet",
        4,
        16,
        2,
        1,
    )
    assert tr["samples_per_s_total"] > 0
    assert "allreduce" not in doc


def test_plain_mode_with_tensorflow_is_keras_without_horovod(tmp_path, monkeypatch):
    pytest.importorskip("tensorflow")
    monkeypatch.setitem(sys.modules, "horovod", None)
    out = tmp_path / "run-plain.json"
    argv = ["--framework", "tensorflow", "--mode", "plain", "--model", "smallconvnet", "--batch-size", "4"]
    argv += ["--image-size", "16", "--steps", "2", "--warmup-steps", "1", "--device", "cpu", "--output", str(out)]
    assert hb.main(argv) == 0
    doc = json.loads(out.read_text())
    assert (doc["framework"], doc["mode"], doc["library"], doc["size"]) == ("tensorflow", "plain", "keras", 1)
    assert doc["training"]["model"] == "smallconvnet" and doc["training"]["samples_per_s_total"] > 0


class _FakeCuda:
    def __init__(self, count):
        self.count, self.current = count, None

    def is_available(self):
        return self.count > 0

    def device_count(self):
        return self.count

    def set_device(self, index):
        self.current = index


def _fake_torch(count):
    return SimpleNamespace(
        cuda=_FakeCuda(count), device=lambda kind, index=None: SimpleNamespace(type=kind, index=index)
    )


def test_each_rank_gets_its_local_gpu_and_nccl():
    torch = _fake_torch(8)
    device, problem = hb.pick_device(torch, 3, "auto", local_size=8)
    assert (device.type, device.index, torch.cuda.current, problem) == ("cuda", 3, 3, None)
    assert hb.peer_backend(device) == "nccl"


def test_more_ranks_than_gpus_is_said():
    torch = _fake_torch(2)
    device, problem = hb.pick_device(torch, 3, "auto", local_size=4)
    assert (device.index, torch.cuda.current) == (1, 1)
    assert problem == "4 ranks on this node but 2 GPUs: ranks share GPUs (set slots to the GPU count)"


def test_cpu_without_gpus_and_gloo():
    torch = _fake_torch(0)
    device, problem = hb.pick_device(torch, 1, "auto", local_size=2)
    assert (device.type, problem, torch.cuda.current) == ("cpu", None, None)
    assert hb.peer_backend(device) == "gloo"
    # --device cpu on a GPU node stays on the CPU
    gpu_node = _fake_torch(8)
    assert hb.pick_device(gpu_node, 0, "cpu")[0].type == "cpu" and gpu_node.cuda.current is None
