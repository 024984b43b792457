#!/usr/bin/env python3
"""Parse / verify / stats time against input size: is each linear?

Writes random-DAG modules (bench/memory_plan/make_large_module.py) of growing
size, times `hmo fmt`, `hmo verify` and `hmo stats` on each, and prints per
size the seconds, the seconds per MB and the ratio to a plain read of the same
file measured in the same run (reading it whole, as the parser does). A
linear command keeps its s/MB flat as the size grows.

    bench/parse_verify/run.py [--hmo build/bin/hmo] [--sizes 1,2,4,8,16,50]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Bytes per instruction of each family's text, for sizing.
BYTES_PER_INSTRUCTION = {"dag": 62, "fusions": 75}


def write_fusion_module(path, instructions):
    """XLA's optimized-dump shape: an entry of kLoop fusions, each calling its
    own small fused computation, chained so every value is read."""
    shape = "f32[8,8]{1,0}"
    fusions = max(1, instructions // 5)
    lines = ["HloModule fusions, entry_computation_layout={(" + shape + ")->" + shape + "}", ""]
    for k in range(fusions):
        lines += [f"%fused_computation.{k} (param_0.{k}: {shape}, param_1.{k}: {shape}) -> {shape} {{",
                  f"  %param_0.{k} = {shape} parameter(0)",
                  f"  %param_1.{k} = {shape} parameter(1)",
                  f"  %add.{k} = {shape} add({shape} %param_0.{k}, {shape} %param_1.{k})",
                  f"  ROOT %multiply.{k} = {shape} multiply({shape} %add.{k}, {shape} %param_0.{k})",
                  "}", ""]
    lines.append(f"ENTRY %main (p0: {shape}) -> {shape} {{")
    lines.append(f"  %p0 = {shape} parameter(0)")
    previous = "%p0"
    for k in range(fusions):
        root = "ROOT " if k == fusions - 1 else ""
        lines.append(f"  {root}%fusion.{k} = {shape} fusion({shape} {previous}, {shape} %p0), "
                     f"kind=kLoop, calls=%fused_computation.{k}")
        previous = f"%fusion.{k}"
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def timed(command):
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return seconds


def plain_read(path):
    start = time.perf_counter()
    with open(path, "rb") as f:
        f.read()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hmo", default=os.path.join(ROOT, "build/bin/hmo"))
    parser.add_argument("--sizes", default="1,2,4,8,16,50", help="module sizes in MB")
    parser.add_argument("--commands", default="fmt,verify,stats")
    parser.add_argument("--family", choices=sorted(BYTES_PER_INSTRUCTION), default="dag",
                        help="dag: one computation, a random DAG; fusions: many fused computations")
    args = parser.parse_args()
    commands = {
        "fmt": lambda path: [args.hmo, "fmt", path, "-o", os.devnull],
        "verify": lambda path: [args.hmo, "verify", path],
        "stats": lambda path: [args.hmo, "stats", "--heap", "xla", path],
    }
    chosen = args.commands.split(",")
    header = f"{'MB':>6} {'instrs':>9} {'read s':>8}" + "".join(
        f" {name + ' s':>9} {'s/MB':>6} {'x read':>8}" for name in chosen)
    print(header)
    with tempfile.TemporaryDirectory() as work:
        for mb in [float(s) for s in args.sizes.split(",")]:
            instructions = int(mb * 1e6 / BYTES_PER_INSTRUCTION[args.family])
            path = os.path.join(work, f"large_{mb:g}.hlo")
            if args.family == "fusions":
                write_fusion_module(path, instructions)
            else:
                subprocess.run([sys.executable, os.path.join(ROOT, "bench/memory_plan/make_large_module.py"),
                                "--instructions", str(instructions), "--size", "8", "-o", path],
                               check=True, stdout=subprocess.DEVNULL)
            real_mb = os.path.getsize(path) / 1e6
            read = min(plain_read(path) for _ in range(3))
            row = f"{real_mb:6.1f} {instructions:9d} {read:8.4f}"
            for name in chosen:
                seconds = timed(commands[name](path))
                row += f" {seconds:9.2f} {seconds / real_mb:6.3f} {seconds / read:8.0f}"
            print(row, flush=True)
            os.remove(path)


if __name__ == "__main__":
    main()
