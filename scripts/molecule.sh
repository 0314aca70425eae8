#!/usr/bin/env bash
# Run molecule scenarios: the named ones, or every scenario under molecule/ (molecule/_shared holds
# the shared plays, not a scenario). MOLECULE_JOBS scenarios run at once (default 2): each owns its
# containers, network and controller cache (docs/testing.md), so none depends on another, and much
# of a scenario's time is spent waiting on containers, apt and the network rather than on the CPU.
# The longest scenarios start first, so the lanes finish together: the durations of the last full
# run here (tests/output/molecule/durations.tsv), else the tracked tests/molecule-durations.tsv.
# Prints each scenario's result and duration as it finishes and a closing "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

jobs=${MOLECULE_JOBS:-2}
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

# Longest first; a scenario without a measurement counts as long (it may be new and heavy).
declare -A cost
if [ -f "$durations" ]; then
    while read -r name seconds; do
        case "$name" in ''|'#'*) continue ;; esac
        cost[$name]=$seconds
    done < "$durations"
fi
mapfile -t ordered < <(for s in "${scenarios[@]}"; do echo "${cost[$s]:-100000} $s"; done | sort -k1,1nr -k2 | cut -d' ' -f2)

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
    report="    $s: $result in ${took}s"
    if [ "$result" = FAILED ]; then
        report="    last lines of $log:"$'\n'"$(tail -n 60 "$log" | sed 's/^/    | /')"$'\n'"$report"
    fi
    printf '%s\n' "$report"
}

for s in "${ordered[@]}"; do rm -f "$out/$s.result"; done
echo "molecule: ${#ordered[@]} scenarios, $jobs at a time, longest first: ${ordered[*]}"
for s in "${ordered[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    run_one "$s" &
    # Stagger the starts: two scenarios creating containers in the same second slow each other down.
    sleep 2
done
wait

passed=0; failed=0; failed_names=()
for s in "${ordered[@]}"; do
    read -r result took < "$out/$s.result" 2>/dev/null || { result=FAILED; took=0; }
    if [ "$result" = passed ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names+=("$s"); fi
    cost[$s]=$took
done
# After a full run, the measured durations order the next run here (copy the file over
# tests/molecule-durations.tsv when the scenarios change).
if $full && [ "$failed" -eq 0 ]; then
    {
        echo "# seconds per molecule scenario, measured by scripts/molecule.sh (MOLECULE_JOBS=$jobs); sets the start order"
        for s in "${ordered[@]}"; do echo "$s ${cost[$s]}"; done | sort
    } > "$out/durations.tsv"
fi
echo "molecule: ${#ordered[@]} scenarios, $passed passed, $failed failed ${failed_names[*]:-}"
[ "$failed" -eq 0 ]
