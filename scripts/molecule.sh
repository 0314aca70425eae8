#!/usr/bin/env bash
# Run molecule scenarios one after the other: the named ones, or every scenario under molecule/.
# Prints each scenario's duration and a closing "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

if [ $# -gt 0 ] && [ -n "$*" ]; then
    scenarios=("$@")
else
    # Every scenario, in the order of the site flow (harness first; horovod_default before
    # horovod_benchmark_default, which reuses its wheel cache). A scenario whose molecule.yml has
    # the line `# make-test: skip` (a timing comparison, say) runs only when named.
    order=(cluster standin_repo preflight passwordless_ssh openmpi horovod_default horovod_benchmark)
    mapfile -t found < <(find molecule -mindepth 2 -maxdepth 2 -name molecule.yml -printf '%h\n' \
                         | xargs -n1 basename | sort)
    scenarios=()
    for prefix in "${order[@]}" ""; do
        for s in "${found[@]}"; do
            [[ $s == "$prefix"* ]] || continue
            [[ " ${scenarios[*]} " == *" $s "* ]] && continue
            grep -qx '# make-test: skip' "molecule/$s/molecule.yml" && continue
            scenarios+=("$s")
        done
    done
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
