#!/usr/bin/env bash
# Where Horovod's one-worker overhead goes on the sandbox (issue 37; docs/performance.md, "The one-worker goal on the
# sandbox"): the benchmark program's training part on the first sandbox node as the training user, the plain framework
# and Horovod at one worker (horovodrun -np 1) alternately, with Horovod's cycle time and torch's thread count varied,
# each variant ROUNDS times. Prints per variant the median step time (s) and samples/s of every round.
# At one worker Horovod's DistributedOptimizer reduces nothing (0.28.1 registers its hooks only when size() > 1): what
# Horovod adds is its background thread's cycle. --poll-us is the allreduce sweep's (the sweep is off here), so the
# "poll 0" variant is the default run once more: the spread between the two is the noise between processes.
#
#   tools/bench-one-worker.sh [ROUNDS]      default 2; after `make run` or `make bench` (the sandbox converged)
#
# Not a test: a measurement, on a machine with nothing else running. The settings are the sandbox's benchmark's
# (inventories/sandbox/group_vars/hvd_nodes/sandbox.yml: the CPU model, batch 32, 112 pixels), with 16 timed steps.
set -euo pipefail
rounds=${1:-2}
node=${SANDBOX_NODE:-gpucluster-node1}
user=${SANDBOX_TRAINING_USER:-hvd}
prog=/opt/gpucluster/benchmark/hvd_benchmark.py
train="--model smallconvnet --batch-size 32 --image-size 112 --steps 16 --warmup-steps 3 --device cpu"
hvd1="horovodrun -np 1 -H localhost:1 --gloo python $prog --mode horovod --no-allreduce"

docker exec "$node" test -x /opt/gpucluster/venv/bin/horovodrun || {
    echo "bench-one-worker: no Horovod on $node: run make run or make bench first" >&2
    exit 1
}

# name | environment | command
variants=(
    "plain, torch threads default (2)||python $prog --mode plain $train"
    "Horovod np 1, cycle 1 ms (the role's default), poll 500 us|HOROVOD_CYCLE_TIME=1|$hvd1 --poll-us 500 $train"
    "Horovod np 1, cycle 1 ms, poll 0 (= the default: training does not poll)|HOROVOD_CYCLE_TIME=1|$hvd1 --poll-us 0 $train"
    "Horovod np 1, cycle 10 ms, poll 500 us|HOROVOD_CYCLE_TIME=10|$hvd1 --poll-us 500 $train"
    "plain, one torch thread|OMP_NUM_THREADS=1|python $prog --mode plain $train"
    "Horovod np 1, cycle 1 ms, one torch thread|OMP_NUM_THREADS=1 HOROVOD_CYCLE_TIME=1|$hvd1 --poll-us 500 $train"
)

declare -A seen
for round in $(seq "$rounds"); do
    for v in "${variants[@]}"; do
        IFS='|' read -r name env cmd <<<"$v"
        docker exec "$node" rm -f /tmp/bench-one-worker.json
        docker exec -u "$user" "$node" bash -lc \
            "cd /tmp && export PATH=/opt/gpucluster/venv/bin:\$PATH $env && $cmd --output /tmp/bench-one-worker.json" \
            >/dev/null 2>&1 || { echo "bench-one-worker: '$name' failed (round $round)" >&2; exit 1; }
        figure=$(docker exec "$node" python3 -c '
import json, statistics
t = json.load(open("/tmp/bench-one-worker.json"))["training"]
print("%.3f s %.1f/s" % (statistics.median(t["step_s"]), t["samples_per_s_total"]))')
        seen[$name]="${seen[$name]:-}  $figure"
    done
done
printf '%s\n' "bench-one-worker: $rounds round(s) on $node, median step and samples/s of each round"
for v in "${variants[@]}"; do
    name=${v%%|*}
    printf '%-62s%s\n' "$name" "${seen[$name]}"
done
