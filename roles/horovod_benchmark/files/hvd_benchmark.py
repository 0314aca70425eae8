# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Horovod cluster benchmark, shipped by the gpucluster.horovod.horovod_benchmark role.

Launched with ``horovodrun`` (Gloo or MPI controller), for ``--framework pytorch`` (default) or
``tensorflow``.  Modes:

``--mode horovod``
    allreduce sweep (hvd.allreduce_, in place, op=Sum; TensorFlow: hvd.allreduce) and
    synthetic training throughput with hvd.DistributedOptimizer (TensorFlow: a Keras
    model.fit with horovod.tensorflow.keras.DistributedOptimizer).
``--mode torch``
    the PyTorch peer baseline: the same allreduce sweep with torch.distributed (Gloo on
    CPU, NCCL on GPU).  Rank, size and the rendezvous address are taken from
    Horovod (hvd.init + broadcast_object), after which Horovod is shut down so
    its background thread does not disturb the measurement.
``--mode tensorflow``
    the TensorFlow peer baseline: the same sweep with MultiWorkerMirroredStrategy's
    cross-worker all-reduce (ring on CPU, NCCL on GPU); the workers' addresses come
    from Horovod (allgather_object) before it is shut down, the results are gathered
    with the strategy's own all-reduce.
``--mode elastic``
    elastic training (PyTorch): launched with ``horovodrun --min-np/--max-np --host-discovery-script``,
    the synthetic training runs for ``--elastic-seconds`` under ``hvd.elastic.run`` with its state
    (model, optimizer, step, the timeline) committed every ``--commit-steps`` steps; a worker lost or
    added resets the job, which goes on from the last commit with the workers that remain, for at least
    two commit intervals however late the reset came.  Rank 0
    writes the resets, the worker count over time and samples/s before and after the last change
    (``--progress`` appends a line per commit to a file, for whoever watches the run).
``--mode plain``
    the plain-framework baseline: the training part alone, in ONE process started
    directly with python (not horovodrun), without Horovod (no hvd.init, no
    DistributedOptimizer; TensorFlow: the same Keras model.fit without Horovod's
    optimizer and callback), on the device a one-worker Horovod run uses (GPU 0, else
    the CPU).  Horovod's samples/s at one worker over this is its overhead.

Rank 0 gathers every rank's figures with allgather_object and writes one JSON
document (``--output``); the controller-side combiner
(plugins/plugin_utils/benchmark/result.py) turns the documents of every run into the
report.  Every part can be switched off (``--no-allreduce``, ``--no-training``).
"""

# ruff: noqa: UP031 - printf-style widths keep the log lines aligned
from __future__ import annotations

import argparse
import datetime
import faulthandler
import json
import os
import platform
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

PROGRAM_VERSION = 1

TUNING_ENV = (
    "HOROVOD_FUSION_THRESHOLD",
    "HOROVOD_CYCLE_TIME",
    "HOROVOD_AUTOTUNE",
    "HOROVOD_CACHE_CAPACITY",
    "HOROVOD_GLOO_IFACE",
    "HOROVOD_CONTROLLER",
    "HOROVOD_CPU_OPERATIONS",
    "HOROVOD_HIERARCHICAL_ALLREDUCE",
    "HOROVOD_THREAD_AFFINITY",
    "HOROVOD_TIMELINE",
    "NCCL_SOCKET_IFNAME",
    "NCCL_DEBUG",
    "GLOO_SOCKET_IFNAME",
    "OMP_NUM_THREADS",
)

# Key of the framework's version in a result document.
_VERSION_KEY = {"pytorch": "torch", "tensorflow": "tensorflow"}

UNITS = {"": 1, "B": 1, "K": 1024, "KIB": 1024, "M": 1024**2, "MIB": 1024**2, "G": 1024**3, "GIB": 1024**3}


def parse_size(text):
    """'4K' -> 4096, '64MiB' -> 67108864, '1024' -> 1024."""
    t = text.strip().upper()
    num = t.rstrip("KMGIB")
    unit = t[len(num) :]
    if unit not in UNITS or not num:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (use e.g. 4K, 64M, 1G)")
    return int(float(num) * UNITS[unit])


def size_list(args):
    if args.sizes:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    else:
        sizes = []
        s = args.min_bytes
        while s <= args.max_bytes:
            sizes.append(s)
            s *= args.factor
    return [s - s % 4 for s in sizes if s >= 4]


def percentile(values, q):
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100.0 * len(ordered) + 0.5) - 1))
    return ordered[k]


def iface_address(iface):
    """IPv4 address of a network interface (Linux SIOCGIFADDR), or None."""
    if not iface:
        return None
    try:
        import fcntl  # noqa: PLC0415 - Linux only, imported where used

        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", iface[:15].encode()))
        finally:
            s.close()
        return socket.inet_ntoa(packed[20:24])
    except OSError:
        return None


def free_port():
    s = socket.socket()
    s.bind(("", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def log(rank, msg):
    if rank == 0:
        print(f"[hvd_benchmark] {msg}", flush=True)


class Comm:
    """What the sweep needs from a communication library."""

    name = ""

    def allreduce_(self, tensor, name):
        raise NotImplementedError

    def barrier(self):
        raise NotImplementedError


class HorovodComm(Comm):
    name = "horovod"

    def __init__(self, hvd, inplace, op, poll_us=0):
        self.hvd = hvd
        self.inplace = inplace
        self.op = hvd.Sum if op == "sum" else hvd.Average
        self.poll_s = poll_us / 1e6
        self.last = {}

    def allreduce_(self, tensor, name):
        if self.poll_s > 0:
            # Horovod's synchronize() spins (sched_yield) on the handle and takes a core from the
            # background thread doing the allreduce; polling with a sleep leaves the core to it.
            # The sleep adapts: 1/100 of this tensor's previous time, between 20 us and poll_us.
            sleep_s = min(self.poll_s, max(20e-6, self.last.get(name, 0.0) / 100.0))
            t0 = time.perf_counter()
            if self.inplace:
                handle = self.hvd.allreduce_async_(tensor, op=self.op, name=name)
            else:
                handle = self.hvd.allreduce_async(tensor, op=self.op, name=name)
            while not self.hvd.poll(handle):
                time.sleep(sleep_s)
            res = self.hvd.synchronize(handle)
            self.last[name] = time.perf_counter() - t0
            return res
        if self.inplace:
            self.hvd.allreduce_(tensor, op=self.op, name=name)
            return tensor
        return self.hvd.allreduce(tensor, op=self.op, name=name)

    def barrier(self):
        self.hvd.barrier()


class TorchComm(Comm):
    name = "torch.distributed"

    def __init__(self, dist, op):
        self.dist = dist
        self.op = dist.ReduceOp.SUM if op == "sum" else dist.ReduceOp.AVG

    def allreduce_(self, tensor, name):
        self.dist.all_reduce(tensor, op=self.op)
        return tensor

    def barrier(self):
        self.dist.barrier()


class TorchOps:
    """Tensor operations of the sweep with PyTorch."""

    def __init__(self, torch, device):
        self.torch = torch
        self.device = device

    def make(self, n):
        return self.torch.empty(n, dtype=self.torch.float32, device=self.device)

    def fill(self, t, value):
        t.fill_(value)
        return t

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()

    def all_equal(self, t, value):
        return bool(self.torch.all(t == value))


class TfOps:
    """Tensor operations of the sweep with TensorFlow (tensors are immutable: fill makes a new one)."""

    def __init__(self, tf, device_name):
        self.tf = tf
        self.device_name = device_name

    def make(self, n):
        return n

    def fill(self, t, value):
        with self.tf.device(self.device_name):
            return self.tf.fill([t if isinstance(t, int) else int(t.shape[0])], value)

    def sync(self):
        if "GPU" in self.device_name.upper():
            sync_devices = getattr(self.tf.test.experimental, "sync_devices", None)
            if sync_devices is not None:
                sync_devices()

    def all_equal(self, t, value):
        # .numpy() waits for the result (also on a GPU)
        return bool(self.tf.reduce_all(self.tf.equal(t, value)).numpy())


class TfHorovodComm(Comm):
    """horovod.tensorflow's allreduce (out of place: TensorFlow tensors are immutable)."""

    name = "horovod"

    def __init__(self, hvd, tf, op):
        self.hvd = hvd
        self.tf = tf
        self.op = hvd.Sum if op == "sum" else hvd.Average

    def allreduce_(self, tensor, name):
        return self.hvd.allreduce(tensor, op=self.op, name=name)

    def barrier(self):
        # horovod.tensorflow has no barrier(): a one-element allreduce every rank waits for
        self.hvd.allreduce(self.tf.zeros([1]), op=self.hvd.Sum, name="bench.barrier").numpy()


class TfCollectiveComm(Comm):
    """TensorFlow's own collective: MultiWorkerMirroredStrategy's cross-worker all-reduce (ring on CPU, NCCL on GPU).

    One traced function per tensor length; the tensor is placed on the worker's device inside it (a tensor
    argument has no device there, and the strategy needs one to know where the result goes).
    """

    def __init__(self, tf, strategy, op, implementation):
        self.tf = tf
        self.strategy = strategy
        self.device = strategy.extended.worker_devices[0]
        self.op = tf.distribute.ReduceOp.SUM if op == "sum" else tf.distribute.ReduceOp.MEAN
        self.name = "tf.distribute.MultiWorkerMirroredStrategy/%s" % implementation
        self.steps = {}

    def _step(self, n):
        if n not in self.steps:
            tf, strategy, device, op = self.tf, self.strategy, self.device, self.op

            def replica(x):
                with tf.device(device):
                    y = tf.identity(x)
                return tf.distribute.get_replica_context().all_reduce(op, y)

            @tf.function
            def step(x):
                return strategy.run(replica, args=(x,))

            self.steps[n] = step
        return self.steps[n]

    def allreduce_(self, tensor, name):
        return self._step(int(tensor.shape[0]))(tensor)

    def barrier(self):
        self.allreduce_(self.tf.zeros([1]), "barrier").numpy()


def run_sweep(ops, comms, rank, size, args):
    """Allreduce sweep over one or more libraries; per library this rank's per-iteration times and checks.

    With two libraries (``--mode both``) their iterations alternate (A B, B A, A B ...) so that both
    see the same machine load: the fair comparison on a shared or busy host.
    """
    out = {c.name: [] for c in comms}
    expected = size * (size + 1) / 2.0
    if args.op == "average":
        expected /= size
    for nbytes in size_list(args):
        n = nbytes // 4
        iters = args.iters if nbytes < args.large_bytes else args.large_iters
        t = ops.make(n)
        times = {c.name: [] for c in comms}
        ok = {c.name: True for c in comms}
        name = "bench.allreduce.%d" % nbytes
        for i in range(args.warmup + iters):
            for comm in comms if i % 2 == 0 else list(reversed(comms)):
                t = ops.fill(t, float(rank + 1))
                ops.sync()
                comm.barrier()
                t0 = time.perf_counter()
                res = comm.allreduce_(t, name)
                ops.sync()
                dt = time.perf_counter() - t0
                # correctness: every element must equal n(n+1)/2 exactly (Sum) or (n+1)/2 (Average)
                if not ops.all_equal(res, expected):
                    ok[comm.name] = False
                if i >= args.warmup:
                    times[comm.name].append(dt)
        for comm in comms:
            out[comm.name].append(
                {
                    "bytes": nbytes,
                    "elements": n,
                    "dtype": "float32",
                    "iters": iters,
                    "warmup": args.warmup,
                    "times_s": times[comm.name],
                    "correct": ok[comm.name],
                    "expected_value": expected,
                }
            )
            log(
                rank,
                "%-17s %12d B  median %.6f s  %s"
                % (comm.name, nbytes, statistics.median(times[comm.name]), "ok" if ok[comm.name] else "WRONG RESULT"),
            )
        del t
    return out


def paired_ratios(hvd_per_rank, peer_per_rank):
    """Rank 0, ``--mode both``: per size the ratios of the interleaved iterations, Horovod against the peer.

    Iteration i of the two libraries ran back to back on the same machine state (run_sweep alternates them), so
    peer time / Horovod time of each iteration (the slowest rank each) is one paired sample of Horovod's relative
    throughput (busbw ratio: > 1 Horovod faster). The median says where the ratio is, p10-p90 how much load on the
    machine moved it: a gap outside that spread is Horovod's, one inside it is noise.
    """
    rows = []
    for idx, first in enumerate(hvd_per_rank[0]):
        hvd_entries = [r[idx] for r in hvd_per_rank]
        peer_entries = [r[idx] for r in peer_per_rank]
        ratios = []
        for i in range(first["iters"]):
            hvd_t = max(e["times_s"][i] for e in hvd_entries)
            peer_t = max(e["times_s"][i] for e in peer_entries)
            if hvd_t > 0:
                ratios.append(peer_t / hvd_t)
        if not ratios:
            continue
        rows.append(
            {
                "bytes": first["bytes"],
                "pairs": len(ratios),
                "ratio_median": statistics.median(ratios),
                "ratio_p10": percentile(ratios, 10),
                "ratio_p90": percentile(ratios, 90),
            }
        )
    return rows


def combine_sweep(per_rank, size):
    """Rank 0: per iteration the slowest rank counts; median/p90 over iterations."""
    rows = []
    factor = 2.0 * (size - 1) / size if size > 1 else 0.0
    for idx, first in enumerate(per_rank[0]):
        entries = [r[idx] for r in per_rank]
        iter_max = [max(e["times_s"][i] for e in entries) for i in range(first["iters"])]
        median = statistics.median(iter_max)
        p90 = percentile(iter_max, 90)
        algbw = first["bytes"] / median if median > 0 else 0.0
        rows.append(
            {
                "bytes": first["bytes"],
                "elements": first["elements"],
                "dtype": first["dtype"],
                "iters": first["iters"],
                "warmup": first["warmup"],
                "time_median_s": median,
                "time_p90_s": p90,
                "time_min_s": min(iter_max),
                "algbw_Bps": algbw,
                "busbw_Bps": algbw * factor,
                "correct": all(e["correct"] for e in entries),
                "ranks_correct": sum(1 for e in entries if e["correct"]),
                "ranks_reported": len(entries),
            }
        )
    return rows


class SmallConvNet:
    """Factory for the fallback model (torchvision not importable)."""

    @staticmethod
    def build(torch, num_classes):
        nn = torch.nn
        return nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1),
            nn.BatchNorm2d(128),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(128, num_classes),
        )


def build_model(torch, args):
    """The training model: ResNet-50 where torchvision is importable (``auto``), else the small ConvNet."""
    if args.model in ("auto", "resnet50"):
        try:
            import torchvision  # noqa: PLC0415 - optional dependency

            return torchvision.models.resnet50(num_classes=args.num_classes), "resnet50"
        except ImportError:
            if args.model == "resnet50":
                raise
    return SmallConvNet.build(torch, args.num_classes), "smallconvnet"


def run_training(torch, hvd, rank, device, args):
    """Synthetic training: with Horovod (hvd) its DistributedOptimizer and broadcasts; hvd None: plain PyTorch."""
    model, model_name = build_model(torch, args)
    model.to(device)
    params = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * (hvd.size() if hvd else 1), momentum=0.9)
    if hvd is not None:
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Average)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    data = torch.randn(args.batch_size, 3, args.image_size, args.image_size, device=device)
    target = torch.randint(0, args.num_classes, (args.batch_size,), device=device)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(data), target)
        loss.backward()
        optimizer.step()
        return loss

    for _step in range(args.warmup_steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    # Each step timed on its own too (the device synchronized at its end), so that the one-worker overhead can be
    # given as the ratio of the median steps with the spread of the steps, not from one mean (issue 37).
    step_s = []
    t0 = time.perf_counter()
    for _step in range(args.steps):
        ts = time.perf_counter()
        loss = step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        step_s.append(time.perf_counter() - ts)
    elapsed = time.perf_counter() - t0
    sps = args.batch_size * args.steps / elapsed
    log(rank, f"training {model_name} on {device.type}: {sps:.2f} samples/s on rank 0")
    return {
        "step_s": step_s,
        "model": model_name,
        "parameters": int(params),
        "batch_size": args.batch_size,
        "image_size": args.image_size,
        "steps": args.steps,
        "warmup_steps": args.warmup_steps,
        "elapsed_s": elapsed,
        "samples_per_s": sps,
        "final_loss": float(loss.item()),
    }


def elastic_summary(timeline, resets, min_np, max_np, seconds):
    """Rank 0, --mode elastic: what the timeline of commits and resets says.

    ``timeline`` items: ``{"t": seconds since the start, "event": "start" | "commit" | "reset", "workers": n,
    "step": optimizer steps so far, "samples": samples trained so far}``.  A phase is a run of commits at one worker
    count; its samples/s is the samples it trained over the time from its first to its last commit.  ``before``
    is the first phase, ``after`` the last (after the last reset); ``workers_over_time`` the worker count at
    each start and reset.
    """
    phases = []
    current = None
    for entry in timeline:
        if entry["event"] != "commit":
            current = None  # a start or a reset ends the phase, even when the worker count comes back the same
        elif current is not None and current["workers"] == entry["workers"]:
            current["last"] = entry
        else:
            current = {"workers": entry["workers"], "first": entry, "last": entry}
            phases.append(current)

    def rate(phase):
        dt = phase["last"]["t"] - phase["first"]["t"]
        if dt <= 0:
            return None
        return (phase["last"]["samples"] - phase["first"]["samples"]) / dt

    def side(phase):
        if phase is None:
            return None
        return {
            "workers": phase["workers"],
            "from_s": phase["first"]["t"],
            "to_s": phase["last"]["t"],
            "samples_per_s": rate(phase),
        }

    changes = [e for e in timeline if e["event"] in ("start", "reset")]
    last = timeline[-1] if timeline else {"t": 0.0, "step": 0, "samples": 0, "workers": 0}
    return {
        "min_workers": min_np,
        "max_workers": max_np,
        "seconds": seconds,
        "resets": resets,
        "workers_over_time": [{"t": e["t"], "workers": e["workers"], "event": e["event"]} for e in changes],
        "final_workers": last["workers"],
        "steps": last["step"],
        "samples": last["samples"],
        "elapsed_s": last["t"],
        "phases": [side(p) for p in phases],
        "before": side(phases[0]) if phases else None,
        "after": side(phases[-1]) if len(phases) > 1 else None,
        "timeline": list(timeline),
    }


def main_elastic(args, started):  # noqa: PLR0915 - the elastic run, read top to bottom
    """--mode elastic: synthetic training under hvd.elastic.run until --elastic-seconds have passed."""
    import horovod.torch as hvd  # noqa: PLC0415
    import torch  # noqa: PLC0415

    hvd.init()
    device, problem = pick_device(torch, hvd.local_rank(), args.device, hvd.local_size())
    if problem:
        log(hvd.rank(), "WARNING: " + problem)
    model, model_name = build_model(torch, args)
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Average)
    data = torch.randn(args.batch_size, 3, args.image_size, args.image_size, device=device)
    target = torch.randint(0, args.num_classes, (args.batch_size,), device=device)
    loss_fn = torch.nn.CrossEntropyLoss()
    # The clock is rank 0's wall clock at the start, carried in the state: a worker that joins later (or a rank that
    # becomes rank 0) measures from the same origin.  Lists are replaced, never appended to in place: the state keeps
    # references, and a restore must give back the committed list.
    state = hvd.elastic.TorchState(
        model=model, optimizer=optimizer, step=0, samples=0, resets=0, t0=time.time(), timeline=[]
    )

    def now():
        return round(time.time() - state.t0, 3)

    def entry(event):
        return {"t": now(), "event": event, "workers": hvd.size(), "step": state.step, "samples": state.samples}

    # The start is saved at once: a worker lost before the first commit restores the saved state, which then still
    # says the job started with this many workers.
    state.timeline = [entry("start")]
    state.save()

    def on_reset():
        # after a reset (a worker lost or added), before the state is synchronised from rank 0: saved, so that the
        # synchronisation (which sends the saved state) carries it
        state.resets += 1
        state.timeline = [*state.timeline, entry("reset")]
        log(hvd.rank(), "elastic reset %d: %d workers at %.1f s" % (state.resets, hvd.size(), now()))
        state.save()

    state.register_reset_callbacks([on_reset])

    # The last loss this process computed (None until its first step).
    last = {"loss": None}

    def time_up():
        # Asked by every rank at the same steps (the commit points: after a reset's sync every rank has the committed
        # step) and answered for all: a sum of each rank's "my clock says the time is up". Each rank reading its own
        # clock left the loop alone when the time ran out between two ranks' readings, and the other rank's next
        # gradient allreduce never completed (seen on a loaded 2-core machine: the job hung until its timeout).
        mine = torch.tensor([1.0 if now() >= args.elastic_seconds else 0.0], device=device)
        return float(hvd.allreduce(mine, op=hvd.Sum, name="bench.elastic.time_up").item()) > 0

    def changed_at():
        # The step of the last start or reset. Every rank has the same timeline (after a reset's sync, rank 0's), so
        # every rank decides the same way whether to ask time_up(), the collective.
        return max(e["step"] for e in state.timeline if e["event"] in ("start", "reset"))

    @hvd.elastic.run
    def train(state):
        # Ends at a commit point once the time is up and the workers of the last start or reset have trained two
        # commit intervals (a phase's samples/s is measured from its first commit to its last): a reset that comes
        # late (the survivors of a lost node notice it only after Gloo's timeout, later still on a loaded machine)
        # still has the remaining workers train, and the report an "after" phase with its rate.
        while not (
            state.step % args.commit_steps == 0 and state.step >= changed_at() + 2 * args.commit_steps and time_up()
        ):
            optimizer.zero_grad()
            loss = loss_fn(model(data), target)
            last["loss"] = loss
            loss.backward()
            optimizer.step()
            state.step += 1
            state.samples += args.batch_size * hvd.size()
            if state.step % args.commit_steps == 0:
                state.timeline = [*state.timeline, entry("commit")]
                if args.progress and hvd.rank() == 0:
                    # rank 0 may be on another node after a reset: the directory is made where it is now
                    os.makedirs(os.path.dirname(os.path.abspath(args.progress)), exist_ok=True)
                    with open(args.progress, "a") as f:
                        f.write(json.dumps(state.timeline[-1]) + "\n")
                state.commit()
        return float(last["loss"].item()) if last["loss"] is not None else None

    final_loss = train(state)
    rank, size = hvd.rank(), hvd.size()
    state.timeline = [*state.timeline, entry("commit")]
    info = rank_info(torch, rank, hvd.local_rank(), device)
    infos = hvd.allgather_object(info, name="bench.elastic.ranks")
    env_seen = {k: os.environ[k] for k in TUNING_ENV if k in os.environ}
    doc = base_document(args, rank, "pytorch", torch.__version__, size, started, device.type, infos, env_seen)
    summary = elastic_summary(state.timeline, state.resets, args.min_np, args.max_np, args.elastic_seconds)
    summary.update(
        model=model_name,
        batch_size=args.batch_size,
        image_size=args.image_size,
        final_loss=final_loss,
        commit_steps=args.commit_steps,
        device=device.type,
    )
    doc["elastic"] = summary
    doc["library"] = "horovod"
    log(
        rank,
        "elastic: %d resets, workers %s, %d steps in %.1f s"
        % (
            summary["resets"],
            [w["workers"] for w in summary["workers_over_time"]],
            summary["steps"],
            summary["elapsed_s"],
        ),
    )
    hvd.shutdown()
    return write_result(rank, doc, args)


def training_summary(tr, all_tr, device_type, size):
    """Rank 0's view of the training run: every rank's samples/s, their total and mean."""
    return {
        "model": tr["model"],
        "parameters": tr["parameters"],
        "device": device_type,
        "batch_size": tr["batch_size"],
        "image_size": tr["image_size"],
        "steps": tr["steps"],
        "per_rank_samples_per_s": [x["samples_per_s"] for x in all_tr],
        # rank 0's step times (PyTorch; Keras' fit has none)
        "step_s": tr.get("step_s"),
        "samples_per_s_total": sum(x["samples_per_s"] for x in all_tr),
        "samples_per_s_per_worker": sum(x["samples_per_s"] for x in all_tr) / size,
        "ranks_reported": len(all_tr),
    }


def tf_small_convnet(tf, image_size, num_classes):
    layers = tf.keras.layers
    return tf.keras.Sequential(
        [
            layers.Input((image_size, image_size, 3)),
            layers.Conv2D(32, 3, padding="same"),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.MaxPool2D(2),
            layers.Conv2D(64, 3, padding="same"),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.MaxPool2D(2),
            layers.Conv2D(128, 3, padding="same"),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.GlobalAveragePooling2D(),
            layers.Dense(num_classes),
        ]
    )


def tf_sgd(tf, learning_rate, keras2):
    """SGD with momentum 0.9. Horovod's Keras wrapper needs a Keras 2 optimizer (TensorFlow >= 2.11 keeps them as
    optimizers.legacy); the plain baseline takes the same class where it exists, else Keras 3's own."""
    legacy = getattr(tf.keras.optimizers, "legacy", None)
    if legacy is not None:
        try:
            return legacy.SGD(learning_rate=learning_rate, momentum=0.9)
        except ImportError:  # Keras 3: the legacy optimizers are gone
            if keras2:
                raise
    return tf.keras.optimizers.SGD(learning_rate=learning_rate, momentum=0.9)


def run_training_tf(tf, hvdk, rank, size, device_name, args):  # noqa: PLR0917 - framework modules passed in
    """Synthetic Keras training (model.fit) with horovod.tensorflow.keras.DistributedOptimizer; hvdk None: plain."""
    model_name = "smallconvnet" if args.model == "smallconvnet" else "resnet50"
    with tf.device(device_name):
        if model_name == "resnet50":
            model = tf.keras.applications.ResNet50(
                weights=None, input_shape=(args.image_size, args.image_size, 3), classes=args.num_classes
            )
        else:
            model = tf_small_convnet(tf, args.image_size, args.num_classes)
        opt = tf_sgd(tf, 0.01 * size, keras2=hvdk is not None)
        if hvdk is not None:
            opt = hvdk.DistributedOptimizer(opt, op=hvdk.Average)
        model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer=opt)
        data = tf.random.uniform((args.batch_size, args.image_size, args.image_size, 3))
        target = tf.random.uniform((args.batch_size,), maxval=args.num_classes, dtype=tf.int64)
    dataset = tf.data.Dataset.from_tensors((data, target)).repeat()
    callbacks = [hvdk.callbacks.BroadcastGlobalVariablesCallback(0)] if hvdk is not None else []
    # the warm-up fit also broadcasts rank 0's initial weights (after its first batch)
    model.fit(dataset, steps_per_epoch=max(1, args.warmup_steps), epochs=1, callbacks=callbacks, verbose=0)
    t0 = time.perf_counter()
    history = model.fit(dataset, steps_per_epoch=args.steps, epochs=1, verbose=0)
    elapsed = time.perf_counter() - t0
    sps = args.batch_size * args.steps / elapsed
    device_type = "cuda" if "GPU" in device_name.upper() else "cpu"
    log(rank, f"training {model_name} (Keras) on {device_type}: {sps:.2f} samples/s on rank 0")
    return {
        "model": model_name,
        "parameters": int(model.count_params()),
        "batch_size": args.batch_size,
        "image_size": args.image_size,
        "steps": args.steps,
        "warmup_steps": max(1, args.warmup_steps),
        "elapsed_s": elapsed,
        "samples_per_s": sps,
        "final_loss": float(history.history["loss"][-1]),
    }


def tf_pick_device(tf, local_rank, want):
    """Pin this rank to one local GPU (TensorFlow sees only it, memory grown on demand), else the CPU."""
    gpus = tf.config.list_physical_devices("GPU") if want != "cpu" else []
    if want == "cuda" and not gpus:
        raise SystemExit("--device cuda: TensorFlow sees no GPU")
    if gpus:
        gpu = gpus[local_rank % len(gpus)]
        tf.config.set_visible_devices(gpu, "GPU")
        tf.config.experimental.set_memory_growth(gpu, True)
        return "/GPU:0", "cuda"
    if want != "cpu":
        tf.config.set_visible_devices([], "GPU")
    return "/CPU:0", "cpu"


def mwms_worker(args):
    """One rank of the MultiWorkerMirroredStrategy sweep (a child of the benchmark rank, TF_CONFIG set by it)."""
    import tensorflow as tf  # noqa: PLC0415

    config = json.loads(os.environ["TF_CONFIG"])
    rank, size = config["task"]["index"], len(config["cluster"]["worker"])
    device_name, _device_type = tf_pick_device(tf, int(os.environ.get("HOROVOD_LOCAL_RANK", "0")), args.device)
    impl = args.mwms_implementation.upper()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        communication_options=tf.distribute.experimental.CommunicationOptions(
            implementation=getattr(tf.distribute.experimental.CommunicationImplementation, impl)
        )
    )
    comm = TfCollectiveComm(tf, strategy, args.op, args.mwms_implementation)
    raw = run_sweep(TfOps(tf, device_name), [comm], rank, size, args)
    with open(args.mwms_worker + ".tmp", "w") as f:
        json.dump({"sweep": raw[comm.name]}, f)
    os.replace(args.mwms_worker + ".tmp", args.mwms_worker)
    return 0


def base_rank_info(rank, local_rank, **framework):
    """This rank's place and process (rank, host, pid, Python), then the framework's facts in order."""
    info = {
        "rank": rank,
        "local_rank": local_rank,
        "hostname": socket.gethostname(),
        "pid": os.getpid(),
        "python": platform.python_version(),
    }
    # A rank srun started (a step of a Slurm job) has a step id; one horovodrun started over SSH has none, also
    # inside an allocation (the report tells Slurm's ranks from horovodrun's by it).
    if os.environ.get("SLURM_STEP_ID"):
        info["slurm_job"] = os.environ.get("SLURM_JOB_ID")
        info["slurm_step"] = os.environ["SLURM_STEP_ID"]
    info.update(framework)
    return info


def tf_rank_info(tf, rank, local_rank, device_type):
    """This rank's facts with TensorFlow: host, versions (the CUDA TensorFlow was built for), device."""
    info = base_rank_info(
        rank,
        local_rank,
        tensorflow=tf.__version__,
        device=device_type,
        cuda_available=bool(tf.config.list_physical_devices("GPU")),
        tf_intra_op_threads=tf.config.threading.get_intra_op_parallelism_threads(),
    )
    cuda = tf.sysconfig.get_build_info().get("cuda_version")
    if cuda:
        info["cuda"] = cuda
    if device_type == "cuda":
        details = tf.config.experimental.get_device_details(tf.config.list_physical_devices("GPU")[0])
        info["gpu"] = details.get("device_name", "GPU")
    return info


def main_plain(args, started):
    """--mode plain: the training part in this one process with the framework alone (no Horovod at all).

    The same model, batch, image size, steps and warm-up as the Horovod runs, on the device a one-worker
    Horovod run picks (local rank 0: GPU 0, else the CPU).
    """
    env_seen = {k: os.environ[k] for k in TUNING_ENV if k in os.environ}
    if args.framework == "tensorflow":
        import tensorflow as tf  # noqa: PLC0415

        device_name, device_type = tf_pick_device(tf, 0, args.device)
        infos = [tf_rank_info(tf, 0, 0, device_type)]
        doc = base_document(args, 0, "tensorflow", tf.__version__, 1, started, device_type, infos, env_seen)
        doc["library"] = "keras"
        tr = run_training_tf(tf, None, 0, 1, device_name, args)
    else:
        import torch  # noqa: PLC0415

        device, _problem = pick_device(torch, 0, args.device)
        device_type = device.type
        infos = [rank_info(torch, 0, 0, device)]
        doc = base_document(args, 0, "pytorch", torch.__version__, 1, started, device_type, infos, env_seen)
        doc["library"] = "torch"
        tr = run_training(torch, None, 0, device, args)
    doc["training"] = training_summary(tr, [tr], device_type, 1)
    return write_result(0, doc, args)


def main_tensorflow(args, started):  # noqa: PLR0915 - the TensorFlow modes, read top to bottom
    """--framework tensorflow: Horovod through horovod.tensorflow, the peer through MultiWorkerMirroredStrategy."""
    import horovod.tensorflow.keras as hvdk  # noqa: PLC0415
    import tensorflow as tf  # noqa: PLC0415

    hvd = hvdk  # init/rank/size/allgather_object/broadcast_object of horovod.tensorflow
    import horovod.tensorflow as hvdtf  # noqa: PLC0415

    env_seen = {k: os.environ[k] for k in TUNING_ENV if k in os.environ}
    if args.mode == "tensorflow":
        os.environ["HOROVOD_CYCLE_TIME"] = "100"
    hvd.init()
    rank, size, local_rank = hvd.rank(), hvd.size(), hvd.local_rank()
    device_name, device_type = tf_pick_device(tf, local_rank, args.device)
    if device_type == "cpu":
        log(rank, "no GPU visible to TensorFlow: running on CPU")
    info = tf_rank_info(tf, rank, local_rank, device_type)
    infos = hvdtf.allgather_object(info, name="bench.ranks")
    doc = base_document(args, rank, "tensorflow", tf.__version__, size, started, device_type, infos, env_seen)
    ops = TfOps(tf, device_name)
    if args.mode == "tensorflow":
        addr = node_address(peer_iface(), args.master_addr if rank == 0 else None)
        workers = hvdtf.allgather_object("%s:%d" % (addr, free_port()), name="bench.workers")
        impl = "nccl" if device_type == "cuda" else "ring"
        doc["rendezvous"] = ",".join(workers)
        doc["peer_library"] = doc["library"] = "tf.distribute.MultiWorkerMirroredStrategy/%s" % impl
        if args.allreduce:
            # The strategy must configure TensorFlow before its first operation, and Horovod's gather above
            # ran some: the sweep runs in a fresh process per rank; Horovod (cycle time 100 ms here, so its
            # background thread stays idle) gathers the results afterwards.
            # a node-local file: the output directory exists on rank 0's node only
            fd, result_file = tempfile.mkstemp(prefix="hvd_benchmark-mwms-%d-" % rank, suffix=".json")
            os.close(fd)
            env = dict(os.environ)
            env["TF_CONFIG"] = json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": rank}})
            argv = [sys.executable, os.path.abspath(__file__), *args.argv]
            argv += ["--mwms-worker", result_file, "--mwms-implementation", impl]
            try:
                rc = subprocess.call(argv, env=env)
                if rc != 0:
                    raise SystemExit("rank %d: the MultiWorkerMirroredStrategy sweep exited %d" % (rank, rc))
                with open(result_file) as f:
                    raw = json.load(f)
            finally:
                os.remove(result_file)
            gathered = hvdtf.allgather_object(raw, name="bench.sweep")
            doc["allreduce"] = combine_sweep([g["sweep"] for g in gathered], size)
        hvd.shutdown()
    else:
        comm = TfHorovodComm(hvdtf, tf, args.op)
        doc["library"] = "horovod"
        if args.allreduce:
            raw = run_sweep(ops, [comm], rank, size, args)
            gathered = hvdtf.allgather_object(raw, name="bench.sweep")
            doc["allreduce"] = combine_sweep([g[comm.name] for g in gathered], size)
        if args.training:
            tr = run_training_tf(tf, hvdk, rank, size, device_name, args)
            all_tr = hvdtf.allgather_object(tr, name="bench.training")
            doc["training"] = training_summary(tr, all_tr, device_type, size)
        hvd.shutdown()
    doc["_rank"] = rank
    return doc


def base_document(args, rank, framework, framework_version, size, started, device_type, infos, env):  # noqa: PLR0917 - the run's facts, named at the call
    """The fields every result document starts with (the framework's version under "torch" or "tensorflow")."""
    try:
        import horovod  # noqa: PLC0415 - imported after argument parsing, like the frameworks

        horovod_version = horovod.__version__
    except ImportError:
        if args.mode != "plain":
            raise
        horovod_version = None  # the plain baseline does not need Horovod
    log(
        rank,
        "mode=%s size=%d device=%s horovod=%s %s=%s"
        % (args.mode, size, device_type, horovod_version, _VERSION_KEY[framework], framework_version),
    )
    # TensorFlow's sweep has no in-place allreduce and no polling (horovod.tensorflow returns a new tensor)
    pytorch = framework == "pytorch"
    return {
        "program_version": PROGRAM_VERSION,
        "framework": framework,
        "mode": args.mode,
        "tag": args.tag,
        "size": size,
        "started": started,
        "horovod": horovod_version,
        _VERSION_KEY[framework]: framework_version,
        "device": device_type,
        "ranks": infos,
        "env": env,
        "options": {
            "op": args.op,
            "inplace": args.inplace if pytorch else False,
            "poll_us": args.poll_us if pytorch else 0,
            "warmup": args.warmup,
            "iters": args.iters,
            "large_iters": args.large_iters,
            "large_bytes": args.large_bytes,
        },
    }


def peer_iface():
    """The interface the peer collective binds to (the one Horovod was told to use)."""
    return os.environ.get("HOROVOD_GLOO_IFACE") or os.environ.get("NCCL_SOCKET_IFNAME")


def node_address(iface, override=None):
    """This node's address for a peer rendezvous: the override, the interface's address, else the hostname's."""
    return override or iface_address(iface) or socket.gethostbyname(socket.gethostname())


def rank_info(torch, rank, local_rank, device):
    info = base_rank_info(
        rank,
        local_rank,
        torch=torch.__version__,
        device=device.type,
        cuda_available=bool(torch.cuda.is_available()),
        torch_threads=torch.get_num_threads(),
    )
    if torch.version.cuda:
        info["cuda"] = torch.version.cuda
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
        info["nccl"] = nccl_version(torch)
    return info


def nccl_version(torch):
    """The NCCL torch loaded, as "2.21.5" (torch.cuda.nccl.version(): a tuple, or an int code in old releases)."""
    try:
        version = torch.cuda.nccl.version()
    except (AttributeError, RuntimeError):
        return None
    if isinstance(version, tuple):
        return ".".join(str(part) for part in version)
    code = int(version)
    if code >= 20900:
        return "%d.%d.%d" % (code // 10000, code // 100 % 100, code % 100)
    return "%d.%d.%d" % (code // 1000, code // 100 % 10, code % 100)


def pick_device(torch, local_rank, want, local_size=None):
    """The rank's device: GPU ``local_rank`` of this node (made the current device, so that NCCL and the model use
    it), or the CPU. Returns ``(device, problem)``: ``problem`` says when more ranks run on the node than it has GPUs
    (they would share GPUs, and the figures would mean contention), else None."""
    if want == "cuda" or (want == "auto" and torch.cuda.is_available()):
        count = max(1, torch.cuda.device_count())
        torch.cuda.set_device(local_rank % count)
        problem = None
        if local_size is not None and local_size > count:
            problem = "%d ranks on this node but %d GPUs: ranks share GPUs (set slots to the GPU count)" % (
                local_size,
                count,
            )
        return torch.device("cuda", local_rank % count), problem
    return torch.device("cpu"), None


def peer_backend(device):
    """torch.distributed's backend for the peer baseline: NCCL on GPUs (what Horovod uses there), else Gloo."""
    return "nccl" if device.type == "cuda" else "gloo"


def main(argv=None):  # noqa: PLR0912, PLR0915 - argument table and the modes, read top to bottom
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--framework", choices=["pytorch", "tensorflow"], default="pytorch")
    p.add_argument(
        "--mode",
        choices=["horovod", "torch", "both", "tensorflow", "plain", "elastic"],
        default="horovod",
        help="torch / tensorflow: the peer baseline of that framework (torch.distributed, or TensorFlow's "
        "MultiWorkerMirroredStrategy); both: Horovod and torch.distributed sweeps interleaved in one job "
        "(PyTorch only, no training); plain: the training alone in one process without Horovod, started "
        "with python directly (the overhead baseline); elastic: training under hvd.elastic.run, launched with "
        "horovodrun --min-np/--max-np --host-discovery-script (PyTorch only)",
    )
    p.add_argument("--tag", default="run", help="label of this run, copied into the JSON")
    p.add_argument("--output", help="JSON file written by rank 0")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    p.add_argument("--no-allreduce", dest="allreduce", action="store_false")
    p.add_argument("--no-training", dest="training", action="store_false")
    g = p.add_argument_group("allreduce sweep")
    g.add_argument("--sizes", help="comma list, e.g. 4K,1M,64M (overrides min/max/factor)")
    g.add_argument("--min-bytes", type=parse_size, default=4096)
    g.add_argument("--max-bytes", type=parse_size, default=256 * 1024**2)
    g.add_argument("--factor", type=int, default=4)
    g.add_argument("--warmup", type=int, default=3)
    g.add_argument("--iters", type=int, default=20)
    g.add_argument("--large-bytes", type=parse_size, default=16 * 1024**2, help="sizes from here on use --large-iters")
    g.add_argument("--large-iters", type=int, default=5)
    g.add_argument("--op", choices=["sum", "average"], default="sum")
    g.add_argument(
        "--out-of-place",
        dest="inplace",
        action="store_false",
        help="horovod: hvd.allreduce (allocates the output) instead of hvd.allreduce_",
    )
    g.add_argument(
        "--poll-us",
        type=float,
        default=0,
        help="horovod: wait for each allreduce by polling with a sleep of 1/100 of the previous "
        "time of that size, at most N microseconds, instead of Horovod's spinning "
        "synchronize() (0 = synchronize)",
    )
    g.add_argument(
        "--master-addr",
        help="torch mode: rendezvous address (default: rank 0's address on HOROVOD_GLOO_IFACE, else its hostname)",
    )
    g.add_argument("--master-port", type=int, default=0, help="torch mode: 0 = pick a free port")
    g.add_argument("--mwms-worker", help=argparse.SUPPRESS)
    g.add_argument("--mwms-implementation", default="ring", help=argparse.SUPPRESS)
    t = p.add_argument_group("training")
    t.add_argument("--model", choices=["auto", "resnet50", "smallconvnet"], default="auto")
    t.add_argument("--batch-size", type=int, default=32)
    t.add_argument("--image-size", type=int, default=224)
    t.add_argument("--num-classes", type=int, default=1000)
    t.add_argument("--warmup-steps", type=int, default=2)
    t.add_argument("--steps", type=int, default=10)
    e = p.add_argument_group("elastic (--mode elastic)")
    e.add_argument(
        "--elastic-seconds",
        type=float,
        default=60.0,
        help="train until this many seconds have passed (and two commit intervals since the last reset)",
    )
    e.add_argument("--commit-steps", type=int, default=10, help="commit the state every N steps")
    e.add_argument("--min-np", type=int, default=1, help="horovodrun's --min-np (for the report)")
    e.add_argument("--max-np", type=int, default=0, help="horovodrun's --max-np (for the report)")
    e.add_argument("--progress", help="rank 0 appends each commit as a JSON line to this file")
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    peer_mode = {"pytorch": ("torch", "both", "elastic"), "tensorflow": ("tensorflow",)}[args.framework]
    if args.mode not in ("horovod", "plain") and args.mode not in peer_mode:
        p.error(
            "--mode %s does not go with --framework %s (choose horovod, plain or %s)"
            % (args.mode, args.framework, " or ".join(peer_mode))
        )
    if args.mode == "plain":
        if not args.training:
            p.error("--mode plain runs the training part only: drop --no-training")
        args.allreduce = False
    elif args.mode != "horovod":
        args.training = False

    if args.mode == "elastic" and (args.elastic_seconds <= 0 or args.commit_steps < 1):
        p.error("--mode elastic needs --elastic-seconds > 0 and --commit-steps >= 1")

    # A rank that dies of a signal (SIGSEGV in a native library, SIGABRT from an uncaught C++ exception) prints the
    # Python stack of every thread to stderr first: horovodrun's log then says where, not only "exit code 139".
    if not faulthandler.is_enabled():
        faulthandler.enable()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat()
    if args.mode == "plain":
        return main_plain(args, started)
    if args.mode == "elastic":
        return main_elastic(args, started)
    if args.mwms_worker:
        return mwms_worker(args)
    if args.framework == "tensorflow":
        doc = main_tensorflow(args, started)
        return write_result(doc.pop("_rank"), doc, args)
    # imported after argument parsing so --help works without torch/horovod
    import horovod.torch as hvd  # noqa: PLC0415
    import torch  # noqa: PLC0415

    hvd.init()
    rank, size, local_rank = hvd.rank(), hvd.size(), hvd.local_rank()
    device, problem = pick_device(torch, local_rank, args.device, hvd.local_size())
    if problem:
        log(rank, "WARNING: " + problem)
    if device.type == "cpu" and torch.cuda.is_available() is False:
        log(rank, "no CUDA device visible to torch: running on CPU")
    info = rank_info(torch, rank, local_rank, device)
    infos = hvd.allgather_object(info, name="bench.ranks")
    env_seen = {k: os.environ[k] for k in TUNING_ENV if k in os.environ}
    doc = base_document(args, rank, "pytorch", torch.__version__, size, started, device.type, infos, env_seen)

    dist = None
    comms = []
    if args.mode in ("torch", "both"):
        import torch.distributed as dist  # noqa: PLC0415 - peer modes only

        iface = peer_iface()
        if iface:
            os.environ.setdefault("GLOO_SOCKET_IFNAME", iface)
            os.environ.setdefault("NCCL_SOCKET_IFNAME", iface)
        rendezvous = None
        if rank == 0:
            addr = node_address(iface, args.master_addr)
            rendezvous = (addr, args.master_port or free_port())
        # an explicit name: the default one derives from the object's type, which differs on rank 0
        addr, port = hvd.broadcast_object(rendezvous, root_rank=0, name="bench.rendezvous")
        if args.mode == "torch":
            # Horovod's background thread would keep cycling (and using CPU) during the baseline
            hvd.shutdown()
        backend = peer_backend(device)
        dist.init_process_group(
            backend,
            init_method="tcp://%s:%d" % (addr, port),
            rank=rank,
            world_size=size,
            timeout=datetime.timedelta(seconds=120),
        )
        doc["rendezvous"] = "%s:%d" % (addr, port)
        doc["peer_library"] = "torch.distributed/%s" % backend
    if args.mode in ("horovod", "both"):
        comms.append(HorovodComm(hvd, args.inplace, args.op, args.poll_us))
    if dist is not None:
        comms.append(TorchComm(dist, args.op))
    doc["library"] = "horovod" if args.mode != "torch" else doc["peer_library"]

    if args.allreduce:
        raw = run_sweep(TorchOps(torch, device), comms, rank, size, args)
        if args.mode == "torch":
            gathered = [None] * size
            dist.all_gather_object(gathered, raw)
        else:
            gathered = hvd.allgather_object(raw, name="bench.sweep")
        first = comms[0].name
        doc["allreduce"] = combine_sweep([g[first] for g in gathered], size)
        if args.mode == "both":
            doc["peer_allreduce"] = combine_sweep([g[comms[1].name] for g in gathered], size)
            doc["paired"] = paired_ratios([g[first] for g in gathered], [g[comms[1].name] for g in gathered])
    if args.training:
        tr = run_training(torch, hvd, rank, device, args)
        all_tr = hvd.allgather_object(tr, name="bench.training")
        doc["training"] = training_summary(tr, all_tr, device.type, size)
    if dist is not None:
        dist.destroy_process_group()
    if args.mode != "torch":
        hvd.shutdown()

    return write_result(rank, doc, args)


def write_result(rank, doc, args):
    """Rank 0 writes the document (atomically) or prints it."""
    doc["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
    if rank == 0:
        text = json.dumps(doc, indent=1, sort_keys=True)
        if args.output:
            d = os.path.dirname(os.path.abspath(args.output))
            os.makedirs(d, exist_ok=True)
            tmp = args.output + ".tmp"
            with open(tmp, "w") as f:
                f.write(text + "\n")
            os.replace(tmp, args.output)
            log(rank, f"wrote {args.output}")
        else:
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
