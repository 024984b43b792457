#!/usr/bin/env python3
"""hmo's decision search on MiniMalloc's challenging instances.

For every bench/minimalloc/data/challenging/X.CAPACITY.csv: `hmo pack FILE
--capacity CAPACITY` (the tight packer's greedy orders, then its
MiniMalloc-style branch and bound within a node budget), with its outcome
(found / infeasible / aborted), the height of the placement it found, the lower
bound (most bytes live at once), the branch-and-bound nodes and the time.
`hmo pack` validates a placement before it writes it. A summary line counts
the instances found and gives the slowest. Usage:

    bench/memory_plan/decision.py [--hmo build/bin/hmo] [--only SUBSTR] [-- extra hmo pack flags]
"""

import pathlib
import re
import subprocess
import sys
import tempfile

import bench_cli

REPO = bench_cli.REPO
OUTCOME = re.compile(r"capacity \d+: (found|infeasible|aborted)")
HEIGHT = re.compile(r"height (\d+)")
BOUND = re.compile(r"lower bound (\d+)")
EFFORT = re.compile(r"(\d+) nodes, ([\d.]+) s")


def decide(hmo, path, capacity, flags):
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        run = subprocess.run([hmo, "pack", str(path), "--capacity", str(capacity), "-o", out.name,
                              *flags], capture_output=True, text=True)
    outcome, effort = OUTCOME.search(run.stderr), EFFORT.search(run.stderr)
    if not outcome or not effort:
        return {"error": run.stderr.strip().splitlines()[-1] if run.stderr else "failed"}
    height, bound = HEIGHT.search(run.stderr), BOUND.search(run.stderr)
    return {"outcome": outcome.group(1), "height": int(height.group(1)) if height else None,
            "bound": int(bound.group(1)) if bound else None, "nodes": int(effort.group(1)),
            "seconds": float(effort.group(2)), "exit": run.returncode}


def main():
    args, extra = bench_cli.parse_args(__doc__.splitlines()[0])
    print(f"{'instance':<12} {'buffers':>7} {'capacity':>10} {'outcome':>10} {'height':>10} "
          f"{'lower bound':>11} {'nodes':>9} {'time s':>7}")
    found, total, slowest = 0, 0, 0.0
    for path in sorted((REPO / "bench/minimalloc/data/challenging").glob("*.csv")):
        if args.only not in str(path):
            continue
        capacity = int(path.stem.split(".")[1])
        buffers = sum(1 for _ in open(path)) - 1
        result = decide(args.hmo, path, capacity, extra)
        total += 1
        if "error" in result:
            print(f"{path.stem:<12} {buffers:>7} {capacity:>10} error: {result['error']}")
            continue
        found += result["outcome"] == "found"
        slowest = max(slowest, result["seconds"])
        height = result["height"] if result["outcome"] == "found" else "-"
        print(f"{path.stem:<12} {buffers:>7} {capacity:>10} {result['outcome']:>10} {height:>10} "
              f"{result['bound']:>11} {result['nodes']:>9} {result['seconds']:>7.3f}")
    print(f"SUMMARY found {found} of {total} within their capacity, slowest {slowest:.3f} s")
    return 0 if found == total else 1


if __name__ == "__main__":
    sys.exit(main())
