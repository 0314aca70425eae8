#!/usr/bin/env bash
# Print where the newest benchmark report of the sandbox run is, and its summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
results=${HOROVOD_BENCHMARK_RESULTS_DIR:-results}
report=$(find "$results" -name report.md -printf '%T@ %p\n' 2>/dev/null | sort -rn | head -n1 | cut -d' ' -f2- || true)
echo
echo "sandbox: $(grep -c 'ansible_host:' inventories/sandbox/hosts.yml) nodes, reach them with:"
echo "  .venv/bin/ansible -i inventories/sandbox all -m ping"
if [ -z "$report" ]; then
    echo "no benchmark report under $results/ (site.yml ran no benchmark)"
    exit 0
fi
echo "benchmark report: $PWD/$report"
echo "results and plots: $PWD/$(dirname "$report")/"
# The report's headline: its title and summary bullets, up to the first section heading.
awk '/^## /{exit} {print}' "$report"
