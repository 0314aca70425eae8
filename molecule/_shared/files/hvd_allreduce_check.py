"""Multi-node allreduce check: every rank contributes rank+1; the sum must be n(n+1)/2 everywhere."""

import socket

import horovod.torch as hvd
import torch

hvd.init()
size = hvd.size()
value = torch.full((4,), float(hvd.rank() + 1))
total = hvd.allreduce(value, op=hvd.Sum, name="gpucluster_check")
expected = size * (size + 1) / 2
ok = bool(torch.all(total == expected))
print(
    "rank={} size={} host={} controller={} allreduce_sum={} expected={} ok={}".format(
        hvd.rank(),
        size,
        socket.gethostname(),
        "mpi" if hvd.mpi_enabled() else "gloo",
        total.tolist()[0],
        expected,
        ok,
    ),
    flush=True,
)
if not ok:
    raise SystemExit(1)
