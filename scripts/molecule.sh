#!/usr/bin/env bash
# Run molecule scenarios one after the other: the named ones, or every scenario under molecule/
# (sorted; molecule/_shared holds the shared plays, not a scenario).
# Prints each scenario's duration and a closing "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

if [ $# -gt 0 ] && [ -n "$*" ]; then
    scenarios=("$@")
else
    # Every scenario under molecule/, sorted by name. Each one owns its nodes, network and controller
    # cache (the shared prepare empties it), so none depends on another or on the order they run in.
    mapfile -t scenarios < <(find molecule -mindepth 2 -maxdepth 2 -name molecule.yml -printf '%h\n' \
                             | xargs -n1 basename | sort)
fi

passed=0; failed=0; failed_names=()
mkdir -p tests/output/molecule
for s in "${scenarios[@]}"; do
    log="tests/output/molecule/$s.log"
    start=$(date +%s)
    echo "--- molecule test -s $s (log: $log)"
    if molecule test -s "$s" >"$log" 2>&1; then
        passed=$((passed + 1)); result=passed
    else
        failed=$((failed + 1)); result=FAILED; failed_names+=("$s")
        echo "    last lines of $log:"; tail -n 60 "$log" | sed 's/^/    | /'
    fi
    echo "    $s: $result in $(( $(date +%s) - start ))s"
done
echo "molecule: ${#scenarios[@]} scenarios, $passed passed, $failed failed ${failed_names[*]:-}"
[ "$failed" -eq 0 ]
