#!/usr/bin/env python3
"""hmo's CPU backend beside XLA:CPU on the JAX corpus, measured in one run.

For each program of generate.py: XLA's compile time (lower + compile) and its
cold and warm-median run times (jitted function, donated arguments re-placed
before every call, outside the timing); hmo's compile time and cold /
warm-median run times (`hmo run PIPELINE DUMP --execute --inputs ... --repeat
N`) for XLA's dump before its optimizations (pipelines/cpu-default.yaml) and
after them (pipelines/memory-scheduler.yaml), with the worst relative error
against XLA's outputs (tests/corpus/<program>/output_<i>.npy).

    .venv-jax/bin/python bench/jax_corpus/speed.py [--runs 20] [--only a b] [--backend cpu]
    .venv-jax/bin/python bench/jax_corpus/speed.py --real-size [--corpus DIR]

--real-size times the programs of real_size.py (XLA:CPU 10-500 ms per step),
generated (seeded) into --corpus, a temporary directory by default.

Ratios are hmo / XLA; both sides run on this machine in this invocation.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HMO = REPO / "build" / "bin" / "hmo"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def xla_times(name, runs):
    import jax
    import numpy as np
    import generate
    _, builder = generate.all_programs()[name]
    spec = builder()
    fn, args = spec["fn"], spec["args"]
    kwargs = dict(spec.get("jit_kwargs", {}))
    kwargs.setdefault("keep_unused", True)
    place = spec.get("place") or (lambda a: jax.tree.map(jax.device_put, a))
    start = time.perf_counter()
    compiled = jax.jit(fn, **kwargs).lower(*place(args)).compile()
    compile_s = time.perf_counter() - start
    times = []
    for _ in range(runs + 1):
        placed = place(args)
        jax.block_until_ready(placed)
        start = time.perf_counter()
        jax.block_until_ready(compiled(*placed))
        times.append(time.perf_counter() - start)
    return dict(compile=compile_s, cold=times[0], warm=statistics.median(times[1:]))


def hmo_times(corpus, name, which, pipeline, backend, runs):
    directory = corpus / name
    suffix = ".before_optimizations.txt" if which == "before" else ".cpu_after_optimizations.txt"
    dump = next(p for p in directory.iterdir() if p.name.endswith(suffix))
    inputs = sorted(directory.glob("input_*.npy"), key=lambda p: int(p.stem.split("_")[1]))
    with tempfile.TemporaryDirectory() as out:
        command = [str(HMO), "run", str(REPO / "pipelines" / (pipeline + ".yaml")),
                   str(dump), "--execute", "--backend", backend, "--repeat", str(runs + 1),
                   "--results-dir", out]
        if inputs:
            command += ["--inputs", ",".join(str(p) for p in inputs)]
        times = run_hmo(command)
        if "error" not in times:
            times["error"] = worst_relative_error(directory, Path(out))
    return times


def run_hmo(command, timeout=None):
    """Runs an `hmo run ... --execute --repeat N` command line; its summary's
    compile, cold and warm-median seconds (for several devices: all of them
    together, from the first start to the last finish), planned arenas and
    peak RSS growth, or dict(error=<stderr's last line>, stderr=...)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error="killed after %g s (--timeout)" % timeout, stderr="")
    if done.returncode != 0:
        return dict(error=(done.stderr.strip().splitlines() or ["?"])[-1], stderr=done.stderr)
    text = done.stdout
    compile_s = float(re.search(r"compile ([0-9.]+) s", text).group(1))
    runs_line = re.search(r"runs: cold ([0-9.]+) s, warm median ([0-9.]+) s", text)
    cold, warm = float(runs_line.group(1)), float(runs_line.group(2))
    arenas = re.search(r"planned arenas: (.*)", text).group(1)
    rss = re.search(r"peak RSS growth (\d+|unknown)", text).group(1)
    return dict(compile=compile_s, cold=cold, warm=warm, arenas=arenas, rss=rss)


def worst_relative_error(directory, results):
    import numpy as np
    outputs = sorted(directory.glob("output_*.npy"), key=lambda p: int(p.stem.split("_")[1]))
    worst = 0.0
    for i, expected_path in enumerate(outputs):
        produced = results / ("result.npy" if len(outputs) == 1 else "result.%d.npy" % i)
        if not produced.exists():
            produced = results / ("result.%d.npy" % i)
        expected = np.load(expected_path).astype(np.float64)
        actual = np.load(produced).astype(np.float64)
        scale = max(np.abs(expected).max(initial=0.0), 1e-30)
        worst = max(worst, float(np.abs(actual - expected).max(initial=0.0) / scale))
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="warm runs per side (median reported)")
    parser.add_argument("--only", nargs="+", help="programs (default: all)")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--real-size", action="store_true", help="the real-size programs of real_size.py")
    parser.add_argument("--corpus", type=Path, help="program directories (default tests/corpus, or a "
                        "temporary directory the real-size programs are generated into)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(xla_times(args.child, args.runs)))
        return
    import generate
    table = generate.real_size_programs() if args.real_size else generate.PROGRAMS
    names = args.only or sorted(table)
    temporary = None
    corpus = args.corpus
    if corpus is None and args.real_size:
        temporary = tempfile.TemporaryDirectory(prefix="hmo_real_size_")
        corpus = Path(temporary.name)
    corpus = corpus or REPO / "tests" / "corpus"
    if args.real_size:
        missing = [n for n in names if not (corpus / n / "manifest.json").exists()]
        if missing:
            command = [sys.executable, str(Path(__file__).resolve().parent / "generate.py"), "--real-size",
                       "--out", str(corpus), "--buffer-assignment-max-bytes", str(1 << 30)]
            for n in missing:
                command += ["--only", n]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    rows = []
    print(f"backend {args.backend}")
    print("| program | dump | hmo compile / XLA (s) | hmo warm / XLA warm | hmo cold (s) | worst rel. error vs XLA | planned arenas | peak RSS growth (B) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        # A fresh process per program, so XLA compiles nothing twice.
        child = subprocess.run([sys.executable, __file__, "--child", name, "--runs", str(args.runs)],
                               capture_output=True, text=True, env=dict(os.environ, XLA_FLAGS=""))
        xla = json.loads(child.stdout.strip().splitlines()[-1])
        for which, pipeline in (("before", "cpu-default"), ("after", "memory-scheduler")):
            hmo = hmo_times(corpus, name, which, pipeline, args.backend, args.runs)
            rows.append(dict(program=name, dump=which, xla=xla, hmo=hmo))
            if "error" in hmo and isinstance(hmo["error"], str):
                print(f"| {name} | {which} | failed: {hmo['error']} | | | | | |")
                continue
            print(f"| {name} | {which} | {hmo['compile']:.2f} / {xla['compile']:.2f} = {hmo['compile'] / xla['compile']:.1f}x"
                  f" | {hmo['warm'] * 1e3:.3f} / {xla['warm'] * 1e3:.3f} ms = {hmo['warm'] / xla['warm']:.2f}x"
                  f" | {hmo['cold']:.4f} | {hmo['error']:.1e} | {hmo['arenas']} | {hmo['rss']} |", flush=True)
    for which in ("before", "after"):
        # hmo prints microseconds: a run below half of one reads as 0 and is
        # counted as half a microsecond.
        ratios = [max(r["hmo"]["warm"], 0.5e-6) / r["xla"]["warm"] for r in rows
                  if r["dump"] == which and "warm" in r["hmo"]]
        compiles = [r["hmo"]["compile"] / r["xla"]["compile"] for r in rows
                    if r["dump"] == which and "compile" in r["hmo"]]
        if ratios:
            print(f"{which}: warm hmo/XLA geomean {statistics.geometric_mean(ratios):.2f}x, "
                  f"worst {max(ratios):.2f}x; compile geomean {statistics.geometric_mean(compiles):.2f}x "
                  f"({len(ratios)} of {len(names)} programs ran)")
    print(f"machine: {os.cpu_count()} cores")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
