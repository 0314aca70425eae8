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
[ "$failed" -eq 0 ]
