#!/usr/bin/env bash
# Every test tier, in order of cost. Each tier prints its duration; the summary says what ran
# and passed. A failed tier does not stop the later ones, so one run shows everything. lint, unit, sanity and
# build run at the same time (their durations overlap; the summary's total is the wall-clock time).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# TEST_TIERS picks some of them (for example "lint unit sanity build" while changing the tiers themselves).
read -r -a tiers <<< "${TEST_TIERS:-lint unit sanity build molecule}"
# lint, unit, sanity and build are independent and short, and none keeps both cores busy: they run at the same time,
# each into its own log, printed whole in tier order when all are done (about two minutes less than one after the
# other). The venv and the host setup they share are made first. The molecule tier, the long one, starts at the same
# time in the foreground (its progress printed as it goes): the machine is CPU-bound while molecule runs, and the
# short tiers fill what their own tails leave idle (lint alone for its last minute and a half, the build tier, the
# images check) instead of holding molecule back by about four minutes. Its result is printed in tier order after.
together=(lint unit sanity build)
declare -A took result
passed=0; failed=0
total_start=$(date +%s)
# The short tiers' logs, kept after the run (tests/output is not tracked): printed whole after molecule, and there to
# read if a CI limit stops the run before that.
logs=tests/output/tiers
rm -rf "$logs"; mkdir -p "$logs"
echo "===== setup: venv, host (and the base images beside the venv) ====="
make --no-print-directory host || echo "host setup failed: the tiers below will say why"
# The base images (make images: debootstrap on a new machine, up to date in a second after that) need only the host's
# Docker engine, not the venv: built beside the venv's install, the molecule tier waits for them below.
images_pid=""
if [[ " ${tiers[*]} " == *" molecule "* ]]; then
    make --no-print-directory images > "$logs/images.log" 2>&1 &
    images_pid=$!
fi
make --no-print-directory venv || echo "venv setup failed: the tiers below will say why"
for tier in "${together[@]}"; do
    [[ " ${tiers[*]} " == *" $tier "* ]] || continue
    (
        start=$(date +%s)
        make --no-print-directory "$tier" > "$logs/$tier.log" 2>&1
        rc=$?
        echo $(( $(date +%s) - start )) > "$logs/$tier.took"
        echo "$rc" > "$logs/$tier.rc"
        echo "----- $tier finished (rc $rc, $(cat "$logs/$tier.took")s; its log: $logs/$tier.log, printed after molecule)"
    ) &
done
if [[ " ${tiers[*]} " == *" molecule "* ]]; then
    echo
    echo "===== tier: molecule (started beside lint, unit, sanity and build; their logs follow it) ====="
    start=$(date +%s)
    if [ -n "$images_pid" ]; then
        wait "$images_pid" || echo "make images failed (its log follows); make molecule builds them again"
        cat "$logs/images.log"
    fi
    make --no-print-directory molecule
    echo $? > "$logs/molecule.rc"
    echo $(( $(date +%s) - start )) > "$logs/molecule.took"
fi
wait
for tier in "${tiers[@]}"; do
    echo
    echo "===== tier: $tier ====="
    if [ "$tier" = molecule ] && [ -f "$logs/molecule.rc" ]; then
        echo "(its output is above)"
        rc=$(cat "$logs/molecule.rc"); took[$tier]=$(cat "$logs/molecule.took")
    elif [ -f "$logs/$tier.rc" ]; then
        cat "$logs/$tier.log"
        rc=$(cat "$logs/$tier.rc"); took[$tier]=$(cat "$logs/$tier.took")
    else
        start=$(date +%s)
        make --no-print-directory "$tier"; rc=$?
        took[$tier]=$(( $(date +%s) - start ))
    fi
    if [ "$rc" -eq 0 ]; then
        result[$tier]=passed; passed=$((passed + 1))
    else
        result[$tier]=FAILED; failed=$((failed + 1))
    fi
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
if [ "${result[molecule]:-}" = FAILED ]; then
    mapfile -t failed_logs < <(grep -l '^FAILED' tests/output/molecule/*.result 2>/dev/null | sed 's/\.result$/.log/')
    if [ ${#failed_logs[@]} -gt 0 ]; then
        echo "===== why the failed molecule scenarios failed ====="
        python3 scripts/failure-digest.py "${failed_logs[@]}"
    fi
fi
[ "$failed" -eq 0 ]
