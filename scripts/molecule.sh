#!/usr/bin/env bash
# Run molecule scenarios: the named ones, or every scenario under molecule/ (molecule/_shared holds
# the shared plays, not a scenario). MOLECULE_JOBS scenarios run at once (default 2): each owns its
# containers, network and controller cache (docs/testing.md), so none depends on another, and much
# of a scenario's time is spent waiting on containers, apt and the network rather than on the CPU.
# The longest scenarios start first (but never two heavy ones at once, below), so the lanes finish together: the durations of the last full
# run here (tests/output/molecule/durations.tsv), else the tracked tests/molecule-durations.tsv.
# Prints each scenario's result and duration as it finishes (with why, from scripts/failure-digest.py, when it
# failed) and a closing "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

jobs=${MOLECULE_JOBS:-2}
# The machine-level caches the scenarios mount and download into (scripts/test-cache-dir.sh): molecule substitutes
# ${GPUCLUSTER_TEST_CACHE} in the molecule.yml files.
GPUCLUSTER_TEST_CACHE=$(scripts/test-cache-dir.sh)
export GPUCLUSTER_TEST_CACHE
mkdir -p "$GPUCLUSTER_TEST_CACHE/downloads" "$GPUCLUSTER_TEST_CACHE/ccache"
out=tests/output/molecule
mkdir -p "$out"
durations=$out/durations.tsv
[ -f "$durations" ] || durations=tests/molecule-durations.tsv

if [ $# -gt 0 ] && [ -n "$*" ]; then
    scenarios=("$@")
    full=false
else
    mapfile -t scenarios < <(find molecule -mindepth 2 -maxdepth 2 -name molecule.yml -printf '%h\n' \
                             | xargs -n1 basename | sort)
    full=true
fi

# Longest first; a scenario without a measurement counts as long (it may be new and heavy). The
# tracked file's third column marks the CPU-heavy scenarios (they compile: Open MPI, Horovod, the
# NVIDIA kernel module).
declare -A cost heavy
while read -r name seconds flag; do
    case "$name" in ''|'#'*) continue ;; esac
    cost[$name]=$seconds
    [ "${flag:-}" = cpu ] && heavy[$name]=1
done < tests/molecule-durations.tsv
if [ "$durations" != tests/molecule-durations.tsv ]; then
    while read -r name seconds _; do
        case "$name" in ''|'#'*) continue ;; esac
        cost[$name]=$seconds
    done < "$durations"
fi
mapfile -t ordered < <(for s in "${scenarios[@]}"; do echo "${cost[$s]:-100000} $s"; done | sort -k1,1nr -k2 | cut -d' ' -f2)

# Free space on the file system that holds the caches and Docker's data: a full disk fails whatever task runs at
# the time (scripts/failure-digest.py says so first), so every result line carries it.
disk_free() { df -h --output=avail . /var/lib 2>/dev/null | tail -n +2 | tr -d ' ' | sort -u | paste -sd/; }

run_one() {
    local s=$1 log="$out/$1.log" start result report
    start=$(date +%s)
    echo "--- molecule test -s $s (log: $log)"
    if molecule test -s "$s" >"$log" 2>&1; then
        result=passed
    else
        result=FAILED
    fi
    local took=$(( $(date +%s) - start ))
    echo "$result $took" > "$out/$s.result"
    report="    $s: $result in ${took}s (disk: $(disk_free) free)"
    if [ "$result" = FAILED ]; then
        report="$(python3 scripts/failure-digest.py "$log" | sed 's/^/    | /')"$'\n'"$report"
    fi
    printf '%s\n' "$report"
}

for s in "${ordered[@]}"; do rm -f "$out/$s.result"; done
echo "molecule: ${#ordered[@]} scenarios, $jobs at a time, longest first: ${ordered[*]}"
echo "molecule: caches in $GPUCLUSTER_TEST_CACHE ($(du -sh "$GPUCLUSTER_TEST_CACHE" 2>/dev/null | cut -f1); make clean-caches empties it)"
plan_flags=(); [ "${MOLECULE_HEAVY_APART:-0}" = 1 ] && plan_flags=(--heavy-apart)
python3 scripts/molecule-plan.py --jobs "$jobs" --durations "$durations" --limit "${MOLECULE_LIMIT_S:-4500}" \
    "${plan_flags[@]}" "${ordered[@]}"
# A full run needs about 30 GB at its peak (docs/testing.md, "Disk"): the shared caches under .cache/, the images and
# the nodes' installed CUDA toolkits. Say so up front rather than as a dpkg error an hour later.
need_gb=${MOLECULE_DISK_NEED_GB:-30}
avail_gb=$(df -B1G --output=avail . | tail -1 | tr -d ' ')
echo "molecule: disk $(disk_free) free"
if $full && [ "$avail_gb" -lt "$need_gb" ]; then
    echo "molecule: WARNING: ${avail_gb} GB free here, a full run needs about ${need_gb} GB; scenarios may fail with" \
         "'No space left on device'"
fi
# The lanes take the scenarios longest first, heavy (compiling) or not: the light ones are CPU-bound too (a single light
# scenario keeps about 80% of two cores busy), so keeping the compiling ones apart does not spare work, it only makes
# their lane the tier's critical path (4451 s against 2907 s in the plan of 2026-11-26). MOLECULE_HEAVY_APART=1 brings
# back "never two CPU-heavy scenarios at once" (for a machine with little memory: two Horovod compiles need about 8 GB).
heavy_apart=${MOLECULE_HEAVY_APART:-0}
is_heavy() { [ "$heavy_apart" = 1 ] && [ -n "${heavy[$1]:-}" ]; }
heavy_running() {
    local s
    for s in "${started[@]}"; do
        if is_heavy "$s" && [ ! -f "$out/$s.result" ]; then return 0; fi
    done
    return 1
}
queue=("${ordered[@]}"); started=()
while [ ${#queue[@]} -gt 0 ]; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    pick=-1
    for i in "${!queue[@]}"; do
        if ! is_heavy "${queue[$i]}" || ! heavy_running || [ "$jobs" -eq 1 ]; then pick=$i; break; fi
    done
    if [ "$pick" -lt 0 ]; then wait -n; continue; fi   # only heavy ones left and one runs: wait for a lane
    s=${queue[$pick]}
    queue=("${queue[@]:0:$pick}" "${queue[@]:$((pick + 1))}")
    started+=("$s")
    run_one "$s" &
    # Stagger the starts: two scenarios creating containers in the same second slow each other down.
    sleep 2
done
wait
# The nodes of the last scenarios are still being removed in the background (molecule/_shared/destroy.yml renamed them
# <name>-gone-<time>): wait for it, so the run leaves no container behind.
gone_wait=$(date +%s)
while [ -n "$(docker ps -aq --filter name=-gone- 2>/dev/null)" ] && [ $(( $(date +%s) - gone_wait )) -lt 900 ]; do sleep 5; done
echo "molecule: the nodes' background removal ended $(( $(date +%s) - gone_wait ))s after the last scenario"

passed=0; failed=0; failed_names=()
for s in "${ordered[@]}"; do
    read -r result took < "$out/$s.result" 2>/dev/null || { result=FAILED; took=0; }
    if [ "$result" = passed ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names+=("$s"); fi
    cost[$s]=$took
done
# After a full run, the measured durations order the next run here (copy the file over
# tests/molecule-durations.tsv when the scenarios change; it keeps the cpu marks).
if $full && [ "$failed" -eq 0 ]; then
    {
        echo "# seconds per molecule scenario, measured by scripts/molecule.sh (MOLECULE_JOBS=$jobs); sets the start order"
        for s in "${ordered[@]}"; do echo "$s ${cost[$s]}${heavy[$s]:+ cpu}"; done | sort
    } > "$out/durations.tsv"
fi
echo "molecule: ${#ordered[@]} scenarios, $passed passed, $failed failed ${failed_names[*]:-}"
[ "$failed" -eq 0 ]
