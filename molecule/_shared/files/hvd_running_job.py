"""A Horovod job that trains until it is told to stop (issue 39: a run of the collection leaves running jobs alone).

horovod_benchmark_default starts it in molecule's side_effect step, before the idempotence converge (a re-run of the
plays under test), and stops it in verify.yml after the check-mode play: every rank allreduces every tenth of a second
until rank 0 sees the stop file (argv[1]), checks every sum, and prints one line. A run that disturbs the job makes a
rank fail, hang or print a wrong sum; a job nobody stops ends after argv[2] seconds with exit status 3.

It runs beside the scenario's converges on the test machine's two cores, so it waits without spinning: each allreduce
is polled with a short sleep (hvd.synchronize spins until the op is done), and side_effect.yml starts it with a 20 ms
Horovod cycle. Measured on the three sandbox nodes over 30 s (docs/testing.md): 14 CPU-seconds the way it was
(hvd.allreduce, 1 ms cycle), 3 this way.
"""

import os
import socket
import sys
import time

import horovod.torch as hvd
import torch

stop_file = sys.argv[1]
limit = float(sys.argv[2]) if len(sys.argv) > 2 else 1800.0
hvd.init()
size, rank = hvd.size(), hvd.rank()
expected = size * (size + 1) / 2


def wait(handle):
    """The op's result, polled every 5 ms: hvd.synchronize alone spins on a core until the op is done."""
    while not hvd.poll(handle):
        time.sleep(0.005)
    return hvd.synchronize(handle)


start = time.monotonic()
steps = wrong = 0
print(f"rank={rank} size={size} host={socket.gethostname()} started", flush=True)
while True:
    asked = 1.0 if rank == 0 and os.path.exists(stop_file) else 0.0
    stop = wait(hvd.allreduce_async(torch.tensor([asked]), op=hvd.Max, name="stop"))
    total = wait(hvd.allreduce_async(torch.full((16384,), float(rank + 1)), op=hvd.Sum, name="step"))
    steps += 1
    wrong += int(not bool(torch.all(total == expected)))
    if stop.item() > 0:
        break
    if time.monotonic() - start > limit:
        print(f"rank={rank} ran past {limit:.0f} s without being stopped", flush=True)
        raise SystemExit(3)
    time.sleep(0.1)
print(
    f"rank={rank} size={size} host={socket.gethostname()} steps={steps} wrong={wrong}"
    f" seconds={time.monotonic() - start:.0f} ok={wrong == 0}",
    flush=True,
)
raise SystemExit(0 if wrong == 0 else 1)
