#!/usr/bin/env bash
# Every test tier, in order of cost. Each tier prints its duration; the summary says what ran
# and passed. A failed tier does not stop the later ones, so one run shows everything.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

tiers=(lint unit sanity build molecule)
declare -A took result
passed=0; failed=0
total_start=$(date +%s)
for tier in "${tiers[@]}"; do
    echo
    echo "===== tier: $tier ====="
    start=$(date +%s)
    if make --no-print-directory "$tier"; then
        result[$tier]=passed; passed=$((passed + 1))
    else
        result[$tier]=FAILED; failed=$((failed + 1))
    fi
    took[$tier]=$(( $(date +%s) - start ))
    echo "===== tier $tier: ${result[$tier]} in ${took[$tier]}s ====="
done

echo
echo "===== summary ($(( $(date +%s) - total_start ))s) ====="
for tier in "${tiers[@]}"; do
    printf '  %-9s %-7s %5ss\n' "$tier" "${result[$tier]}" "${took[$tier]}"
done
echo "tiers: $passed passed, $failed failed"
echo "disk: $(df -h --output=avail / | tail -1 | tr -d ' ') free on /"
# Why each failed scenario failed, last, so that the end of the output (often all of it that a CI
# system keeps) names the phase, the task and its message.
if [ "${result[molecule]}" = FAILED ]; then
    mapfile -t failed_logs < <(grep -l '^FAILED' tests/output/molecule/*.result 2>/dev/null | sed 's/\.result$/.log/')
    if [ ${#failed_logs[@]} -gt 0 ]; then
        echo "===== why the failed molecule scenarios failed ====="
        python3 scripts/failure-digest.py "${failed_logs[@]}"
    fi
fi
[ "$failed" -eq 0 ]
