#!/usr/bin/env python3
"""The plan is what runs: one device-bytes figure from the pipeline to the executable.

For every program of tests/corpus and every way a user runs it:

  unoptimized   XLA's dump before its optimizations through pipelines/cpu-default.yaml
  optimized     XLA's optimized dump through pipelines/memory-scheduler.yaml
  fit N%        XLA's optimized dump through pipelines/fit.yaml --memory-limit N% of XLA's
                device bytes (80, 60, 40; a limit below the proven floor is refused)

runs `hmo run PIPELINE DUMP --execute --memory-limit L -o OUT` (L: the fit limit,
else 1 TiB so that the check prints its figure) and reads the four places that
print the device figure of the target (cpu):

  limit line    the pipeline's `memory-limit: device N B` line
  report        `memory-report [after] ... device N B on cpu`
  stats         `hmo stats OUT --format json`: target.device_arena_bytes
  allocated     what the executable allocates: `planned arenas: space 0 N B`

and prints them beside XLA's device bytes (argument + output - alias + temp of
XLA:CPU's memory_analysis(), tests/corpus/<program>/memory_analysis.json) and
what XLA allocates (its parameter, output and temp allocations, each rounded up
to 64 bytes as its allocator aligns them; hmo's arenas pad every buffer offset
the same way).
"planned = allocated" holds when the four agree; the unoptimized path should
allocate no more than XLA.

    python3 bench/memory_plan/plan_is_what_runs.py --hmo build/bin/hmo

On the real-size programs bench/jax_corpus generates (`--real-size --out DIR`):

    python3 bench/memory_plan/plan_is_what_runs.py --corpus DIR --limits 60
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "corpus")
PIPELINES = os.path.join(ROOT, "pipelines")
UNLIMITED = 1 << 40


def dump(program, stage):
    suffix = "cpu_after_optimizations.txt" if stage == "after" else "before_optimizations.txt"
    directory = os.path.join(CORPUS, program)
    for name in sorted(os.listdir(directory)):
        if name.endswith(suffix):
            return os.path.join(directory, name)
    raise SystemExit(f"no {stage} dump in {directory}")


def xla_device_bytes(program):
    with open(os.path.join(CORPUS, program, "memory_analysis.json")) as f:
        x = json.load(f)
    return (x["argument_size_in_bytes"] + x["output_size_in_bytes"] - x["alias_size_in_bytes"] +
            x["temp_size_in_bytes"])


def xla_allocated_bytes(program, alignment=64):
    """What XLA:CPU's runtime allocates for the program: each parameter, output
    and temp allocation of its buffer assignment separately, rounded up to the
    64-byte alignment of its allocator (constants and thread-locals aside, as
    memory_analysis() leaves them out)."""
    directory = os.path.join(CORPUS, program)
    names = [n for n in os.listdir(directory) if n.endswith("-buffer-assignment.txt")]
    if not names:
        return None
    total = 0
    with open(os.path.join(directory, names[0])) as f:
        for line in f:
            m = re.match(r"allocation \d+: size (\d+), (.*)", line)
            if not m or "constant" in m.group(2) or "thread-local" in m.group(2):
                continue
            total += -(-int(m.group(1)) // alignment) * alignment
    return total


def run(hmo, pipeline, path, limit, out):
    command = [hmo, "run", os.path.join(PIPELINES, pipeline + ".yaml"), path, "--execute",
               "--opt-level", "1", "--seed", "1", "--memory-limit", str(limit), "-o", out]
    result = subprocess.run(command, capture_output=True, text=True)
    text = result.stdout + result.stderr
    figures = {"rc": result.returncode}
    limit_line = re.findall(r"memory-limit: device ([\d,]+) B", text)
    report = re.findall(r"memory-report \[after\][^\n]*\n\s+device (\d+) B on", text)
    allocated = re.findall(r"planned arenas: space 0 (\d+) B", text)
    floor = re.search(r"proven floor (?:of|is) (\d+) B", text)
    figures["limit line"] = int(limit_line[-1].replace(",", "")) if limit_line else None
    figures["report"] = int(report[-1]) if report else None
    figures["allocated"] = int(allocated[-1]) if allocated else None
    figures["floor"] = int(floor.group(1)) if floor else None
    figures["error"] = "" if result.returncode == 0 else text.strip().splitlines()[-1][:160]
    if result.returncode == 0:
        stats = subprocess.run([hmo, "stats", "--format", "json", out], capture_output=True,
                               text=True)
        figures["stats"] = (json.loads(stats.stdout)["target"]["device_arena_bytes"]
                            if stats.returncode == 0 else None)
    else:
        figures["stats"] = None
    return figures


def main():
    global CORPUS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hmo", default=os.path.join(ROOT, "build", "bin", "hmo"))
    parser.add_argument("--programs", nargs="*", help="default: every corpus program")
    parser.add_argument("--corpus", default=CORPUS,
                        help="a directory of programs as bench/jax_corpus/generate.py writes them "
                        "(default: tests/corpus)")
    parser.add_argument("--limits", type=int, nargs="*", default=[80, 60, 40],
                        help="fit limits, in percent of XLA's device bytes")
    args = parser.parse_args()
    CORPUS = os.path.abspath(args.corpus)
    programs = args.programs or sorted(
        p for p in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, p)))
    print("| program | path | limit | limit line | memory-report | hmo stats | allocated | "
          "XLA device bytes | XLA allocates | planned = allocated | allocated <= limit | "
          "allocated <= XLA (bytes / allocates) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.hlo")
        for program in programs:
            xla = xla_device_bytes(program)
            xla_allocates = xla_allocated_bytes(program)
            shown_allocates = "?" if xla_allocates is None else f"{xla_allocates:,}"
            cases = [("unoptimized", "cpu-default", "before", UNLIMITED),
                     ("optimized", "memory-scheduler", "after", UNLIMITED)]
            cases += [(f"fit {p}%", "fit", "after", xla * p // 100) for p in args.limits]
            for name, pipeline, stage, limit in cases:
                f = run(args.hmo, pipeline, dump(program, stage), limit, out)
                shown_limit = "-" if limit == UNLIMITED else f"{limit:,}"
                if f["rc"] != 0:
                    why = (f"below the proven floor {f['floor']:,} B" if f["floor"] and
                           f["floor"] > limit else f["error"])
                    print(f"| {program} | {name} | {shown_limit} | refused: {why} | | | | "
                          f"{xla:,} | {shown_allocates} | | | |")
                    if not (f["floor"] and f["floor"] > limit):
                        failures += 1
                    continue
                figures = [f["limit line"], f["report"], f["stats"], f["allocated"]]
                agree = len(set(figures)) == 1 and figures[0] is not None
                within = f["allocated"] is not None and f["allocated"] <= limit
                below_xla = f["allocated"] is not None and f["allocated"] <= xla
                below_allocates = (f["allocated"] is not None and xla_allocates is not None and
                                   f["allocated"] <= xla_allocates)
                versus_xla = (f"{'yes' if below_xla else 'no'} / "
                              f"{'yes' if below_allocates else 'no'}")
                failures += (not agree) + (not within)
                cells = " | ".join("?" if v is None else f"{v:,}" for v in figures)
                print(f"| {program} | {name} | {shown_limit} | {cells} | {xla:,} | "
                      f"{shown_allocates} | {'yes' if agree else 'NO'} | "
                      f"{'yes' if within else 'NO'} | "
                      f"{versus_xla if name == 'unoptimized' else ''} |")
                sys.stdout.flush()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
