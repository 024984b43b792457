#!/usr/bin/env python3
"""Temp bytes of hmo's schedule against XLA's, over the JAX corpus (tests/corpus).

For every program and both of XLA's dumps:

* after optimizations: XLA's temp is `memory_analysis()` of the compiled
  program (memory_analysis.json); hmo's is `hmo stats` of the module after
  `memory-scheduler{objective=module-bytes}` (which reschedules XLA's order,
  keeping it as a candidate, ranked on what XLA would allocate). `hmo stats` of XLA's own order is printed too, so a gap
  between hmo's evaluator and XLA shows.
* before optimizations: XLA never compiles that module as it is, so the
  baseline is XLA's DefaultMemoryScheduler on it (`pipelines/memory-scheduler-xla.yaml`),
  measured by the same `hmo stats`.

Prints one row per module, the ratio hmo / XLA, and geometric means over all
modules and over the training steps. Usage:

    bench/memory_plan/corpus_temp.py [--hmo build/bin/hmo] [--corpus tests/corpus]
"""

import argparse
import json
import math
import pathlib
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


def stats(hmo, path, heap):
    # XLA:CPU's buffer assignment: 64-byte offsets; --heap xla reproduces
    # memory_analysis() on XLA's own order (tests/corpus StatsEqualXlaMemoryAnalysis).
    out = subprocess.run([hmo, "stats", str(path), "--format", "json", "--alignment", "64",
                          "--heap", heap], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["stats"]["temp_size_in_bytes"]


def schedule(hmo, pipeline, source, target):
    begin = time.perf_counter()
    # A pipeline file, or a one-line pipeline (--passes).
    spec = ([str(pipeline)] if str(pipeline).endswith(".yaml") else [f"--passes={pipeline}"])
    subprocess.run([hmo, "run", *spec, str(source), "-o", str(target), "-q"], check=True,
                   capture_output=True, text=True)
    return time.perf_counter() - begin


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hmo", default=str(REPO / "build/bin/hmo"))
    parser.add_argument("--corpus", default=str(REPO / "tests/corpus"))
    # XLA's temp bytes of hmo's order: the scheduler ranks its candidates on
    # what XLA would allocate (module-bytes), not on hmo's own executable.
    parser.add_argument("--pipeline", default="memory-scheduler{objective=module-bytes}",
                        help="a pipeline file, or a one-line pipeline")
    parser.add_argument("--heap", default="xla", choices=["xla", "search", "best"],
                        help="temp packing for hmo's figure (xla: XLA's own, as the baseline)")
    args = parser.parse_args()
    xla_pipeline = REPO / "pipelines/memory-scheduler-xla.yaml"

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for program_dir in sorted(p for p in pathlib.Path(args.corpus).iterdir() if p.is_dir()):
            manifest_path = program_dir / "manifest.json"
            if not manifest_path.exists():
                continue
            manifest = json.loads(manifest_path.read_text())
            training = "training step" in manifest["description"]
            files = manifest["files"]
            xla_temp = json.loads((program_dir / "memory_analysis.json").read_text())["temp_size_in_bytes"]
            after = program_dir / files["after_optimizations"]
            before = program_dir / files["before_optimizations"]
            ours = pathlib.Path(tmp) / f"{program_dir.name}.after.hlo"
            seconds = schedule(args.hmo, args.pipeline, after, ours)
            rows.append(dict(program=program_dir.name, dump="after", training=training,
                             xla=xla_temp, xla_order_hmo_stats=stats(args.hmo, after, "xla"),
                             hmo=stats(args.hmo, ours, args.heap), seconds=seconds))
            xla_sched = pathlib.Path(tmp) / f"{program_dir.name}.before.xla.hlo"
            ours = pathlib.Path(tmp) / f"{program_dir.name}.before.hlo"
            schedule(args.hmo, xla_pipeline, before, xla_sched)
            seconds = schedule(args.hmo, args.pipeline, before, ours)
            xla_before = stats(args.hmo, xla_sched, "xla")
            rows.append(dict(program=program_dir.name, dump="before", training=training,
                             xla=xla_before, xla_order_hmo_stats=xla_before,
                             hmo=stats(args.hmo, ours, args.heap), seconds=seconds))

    print(f"{'program':<18} {'dump':<7} {'XLA temp':>10} {'(hmo stats)':>11} {'hmo temp':>10} "
          f"{'hmo/XLA':>8} {'time s':>7}")
    for r in rows:
        r["ratio"] = r["hmo"] / r["xla"] if r["xla"] else 1.0
        print(f"{r['program']:<18} {r['dump']:<7} {r['xla']:>10} {r['xla_order_hmo_stats']:>11} "
              f"{r['hmo']:>10} {r['ratio']:>8.3f} {r['seconds']:>7.2f}")
    worse = [f"{r['program']}/{r['dump']}" for r in rows if r["hmo"] > r["xla"]]
    print(f"SUMMARY geomean hmo/XLA: all {geomean([r['ratio'] for r in rows]):.3f}, "
          f"training steps {geomean([r['ratio'] for r in rows if r['training']]):.3f}, "
          f"training steps after optimizations "
          f"{geomean([r['ratio'] for r in rows if r['training'] and r['dump'] == 'after']):.3f}; "
          f"above XLA: {', '.join(worse) if worse else 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
