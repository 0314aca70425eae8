"""How long the molecule tier is expected to take, before it starts.

scripts/molecule.sh passes the scenarios in the order it will start them, the number run at once and
the durations file it ordered them by. This replays its scheduling (a free lane takes the first
scenario in the order; with --heavy-apart, as MOLECULE_HEAVY_APART=1, never a second CPU-heavy one while one runs)
on the recorded durations
and prints the expected length, with a warning when it runs past the limit (CI stops at 90 minutes;
the suite's budget is 75, docs/testing.md).

    python3 scripts/molecule-plan.py --jobs 2 --durations FILE --limit 4500 scenario ...
"""

from __future__ import annotations

import argparse
import heapq
import sys
from pathlib import Path

TRACKED = Path(__file__).resolve().parent.parent / "tests" / "molecule-durations.tsv"
UNKNOWN = 600  # a scenario without a measurement (new): counted as a long light one


def read_durations(path: Path) -> tuple[dict[str, int], set[str]]:
    cost: dict[str, int] = {}
    heavy: set[str] = set()
    for line in path.read_text().splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        cost[fields[0]] = int(fields[1])
        if len(fields) > 2 and fields[2] == "cpu":
            heavy.add(fields[0])
    return cost, heavy


def simulate(
    order: list[str], cost: dict[str, int], heavy: set[str], jobs: int, heavy_apart: bool = False
) -> tuple[int, list[list[str]]]:
    """Replay scripts/molecule.sh: returns the expected length and what each lane ran."""
    queue = list(order)
    running: list[tuple[int, int, str]] = []  # (end, lane, scenario)
    free_lanes = list(range(jobs))
    lanes: list[list[str]] = [[] for _lane in range(jobs)]
    now = 0
    while queue or running:
        heavy_running = any(entry[2] in heavy for entry in running)
        pick = None
        if free_lanes:
            for s in queue:
                if not heavy_apart or s not in heavy or not heavy_running or jobs == 1:
                    pick = s
                    break
        if pick is not None:
            queue.remove(pick)
            lane = free_lanes.pop(0)
            lanes[lane].append(pick)
            heapq.heappush(running, (now + cost.get(pick, UNKNOWN), lane, pick))
            continue
        end, lane, _scenario = heapq.heappop(running)
        now = end
        free_lanes.append(lane)
        free_lanes.sort()
    return now, lanes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--durations", type=Path, default=TRACKED)
    parser.add_argument("--limit", type=int, default=4500, help="seconds past which to warn")
    parser.add_argument("--heavy-apart", action="store_true", help="never two CPU-heavy scenarios at once")
    parser.add_argument("scenarios", nargs="+")
    args = parser.parse_args(argv)

    cost, heavy = read_durations(TRACKED)
    if args.durations.resolve() != TRACKED:
        measured, _marks = read_durations(args.durations)
        cost.update(measured)
    total, lanes = simulate(args.scenarios, cost, heavy, max(1, args.jobs), args.heavy_apart)
    unknown = [s for s in args.scenarios if s not in cost]
    missing = f"; no measurement for {', '.join(unknown)} (counted {UNKNOWN} s each)" if unknown else ""
    print(
        f"molecule: expected about {total // 60} min ({total} s) at {args.jobs} at a time, from the durations in "
        f"{args.durations}{missing}"
    )
    for i, lane in enumerate(lanes, 1):
        print(f"molecule:   lane {i}: {sum(cost.get(s, UNKNOWN) for s in lane)} s, {' '.join(lane)}")
    if total > args.limit:
        print(
            f"molecule: WARNING: that is past {args.limit // 60} min (the suite's budget; CI stops at 90 min with the "
            "other tiers): a change that adds this much does not land",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
