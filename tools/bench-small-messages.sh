#!/usr/bin/env bash
# Horovod against torch.distributed for small messages on the sandbox (issue 37; docs/performance.md, "The
# small-message goal on the sandbox"): the benchmark program's paired sweep (--mode both: the two libraries' iterations
# interleaved in one job) across the three sandbox nodes as the training user, started from the first node with
# horovodrun as the role starts it, with Horovod's cycle time varied, each variant ROUNDS times. Prints per variant
# and size the paired ratio (Horovod / torch.distributed, > 1 Horovod faster) and both libraries' median times.
#
#   tools/bench-small-messages.sh [ROUNDS] [CYCLES]   defaults 1 and "1 0.2 5" (ms); after `make run` or `make bench`
#
# Not a test: a measurement, on a machine with nothing else running.
set -euo pipefail
rounds=${1:-1}
read -r -a cycles <<<"${2:-1 0.2 5}"
user=${SANDBOX_TRAINING_USER:-hvd}
nodes=(gpucluster-node1 gpucluster-node2 gpucluster-node3)
prog=/opt/gpucluster/benchmark/hvd_benchmark.py

addrs=()
for n in "${nodes[@]}"; do
    addrs+=("$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$n")")
done
hosts=$(printf '%s:1,' "${addrs[@]}")
hosts=${hosts%,}
docker exec "${nodes[0]}" test -x /opt/gpucluster/venv/bin/horovodrun || {
    echo "bench-small-messages: no Horovod on ${nodes[0]}: run make run or make bench first" >&2
    exit 1
}
sweep="--mode both --no-training --sizes 4K,16K,64K,256K --iters 200 --warmup 10 --poll-us 500 --master-addr ${addrs[0]}"

for round in $(seq "$rounds"); do
    for cycle in "${cycles[@]}"; do
        docker exec "${nodes[0]}" rm -f /tmp/bench-small-messages.json
        docker exec -u "$user" "${nodes[0]}" bash -lc \
            "cd /tmp && export PATH=/opt/gpucluster/venv/bin:\$PATH HOROVOD_CYCLE_TIME=$cycle HOROVOD_GLOO_IFACE=eth0 \
             GLOO_SOCKET_IFNAME=eth0 && horovodrun -np 3 -H $hosts --gloo --network-interface eth0 \
             python $prog $sweep --output /tmp/bench-small-messages.json" >/dev/null 2>&1 || {
            echo "bench-small-messages: cycle $cycle ms failed (round $round)" >&2
            exit 1
        }
        docker exec "${nodes[0]}" python3 -c '
import json, sys
d = json.load(open("/tmp/bench-small-messages.json"))
hvd = {r["bytes"]: r["time_median_s"] for r in d["allreduce"]}
peer = {r["bytes"]: r["time_median_s"] for r in d["peer_allreduce"]}
for p in d["paired"]:
    b = p["bytes"]
    print("round %s cycle %5s ms %4d KiB: Horovod / peer %.2f (p10-p90 %.2f-%.2f), median %.3f ms / %.3f ms" % (
        sys.argv[1], sys.argv[2], b // 1024, p["ratio_median"], p["ratio_p10"], p["ratio_p90"],
        hvd[b] * 1e3, peer[b] * 1e3))' "$round" "$cycle"
    done
done
