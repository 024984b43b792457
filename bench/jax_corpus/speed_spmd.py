#!/usr/bin/env python3
"""hmo's CPU backend beside XLA:CPU on the real-size SPMD programs, in one run.

The programs are generate_spmd.py's, at the sizes of its REAL_SIZES (4
partitions). For each program, right before hmo runs it, a fresh process
(`generate_spmd.py --real-size --time PROGRAM`, XLA_FLAGS=
--xla_force_host_platform_device_count=4) compiles the sharded step and times
it (time_compiled: one warm-up, then the median of --runs warm calls, each
with block_until_ready, the donated arguments placed anew outside the timing);
then

    hmo run pipelines/memory-scheduler.yaml <after-optimizations dump> --execute
        --backend cpu --inputs <program dir> --repeat <runs + 1> --results-dir <tmp>

runs the four devices as threads of one process with in-process collectives
(every device's arguments are copied in before any device starts, and a run
takes the longest device's time, as XLA's step is timed on resident
arguments), and every device's results are compared with XLA's
(device<k>/output_<i>.npy).

    .venv-jax/bin/python bench/jax_corpus/speed_spmd.py [--corpus DIR] [--runs 6] [--only a b]

The programs are generated (seeded) into --corpus, a temporary directory by
default, when missing there. Ratios are hmo / XLA, both measured on this
machine in this invocation.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate_spmd  # noqa: E402
from speed import HMO, REPO, run_hmo, worst_relative_error  # noqa: E402

GENERATOR = Path(generate_spmd.__file__).resolve()


def xla_times(name, runs):
    """XLA's timing of the real-size program, in a fresh process."""
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               XLA_FLAGS="--xla_force_host_platform_device_count=%d" % generate_spmd.NUM_DEVICES)
    done = subprocess.run([sys.executable, str(GENERATOR), "--real-size", "--time", name,
                           "--runs", str(runs)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit("%s: XLA timing failed:\n%s" % (name, done.stderr))
    return json.loads(done.stdout.strip().splitlines()[-1])


def hmo_times(directory, runs, threads, timeout, kernels_in_order=False):
    dump = next(p for p in directory.iterdir() if p.name.endswith(".cpu_after_optimizations.txt"))
    with tempfile.TemporaryDirectory(prefix="hmo_spmd_speed_") as out:
        command = [str(HMO), "run", str(REPO / "pipelines" / "memory-scheduler.yaml"), str(dump),
                   "--execute", "--backend", "cpu", "--inputs", str(directory),
                   "--repeat", str(runs + 1), "--results-dir", out]
        if threads:
            command += ["--threads", str(threads)]
        if kernels_in_order:
            command.append("--kernels-in-order")
        times = run_hmo(command, timeout)
        times["command"] = " ".join(command).replace(out, "<tmp>")
        if "stderr" not in times:
            devices = sorted(p.name for p in directory.glob("device*"))
            times["rel_error"] = max(worst_relative_error(directory / d, Path(out) / d) for d in devices)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=6,
                        help="warm runs per side, median reported (hmo: --repeat runs + 1)")
    parser.add_argument("--only", nargs="+", help="programs (default: all)")
    parser.add_argument("--corpus", type=Path, help="real-size program directories (default: a "
                        "temporary directory they are generated into)")
    parser.add_argument("--threads", type=int, help="hmo --threads (default: hmo's own, the "
                        "machine's hardware threads)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one hmo run may take")
    parser.add_argument("--compare-kernels-in-order", action="store_true",
                        help="also time hmo with --kernels-in-order (every kernel in schedule "
                             "order) right after its default run, and print in order / default")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    names = args.only or list(generate_spmd.PROGRAMS)
    temporary = None
    corpus = args.corpus
    if corpus is None:
        temporary = tempfile.TemporaryDirectory(prefix="hmo_spmd_real_size_")
        corpus = Path(temporary.name)
    missing = [n for n in names if not (corpus / n / "manifest.json").exists()]
    if missing:
        command = [sys.executable, str(GENERATOR), "--real-size", "--out", str(corpus)]
        for n in missing:
            command += ["--only", n]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; XLA:CPU with "
          f"--xla_force_host_platform_device_count={generate_spmd.NUM_DEVICES} (XLA's default "
          f"intra-op threads); hmo: one thread per device, in-process collectives, --threads "
          f"{args.threads or 'default (hardware threads)'}, a run timed as its longest device's "
          f"(arguments in beforehand); warm medians of {args.runs} runs")
    in_order_header = " hmo in order ms | in order / default |" if args.compare_kernels_in_order else ""
    print("| program | XLA warm ms (4 devices) | hmo warm ms (4 devices, threads) | hmo / XLA "
          "| hmo cold ms | worst rel. error vs XLA |" + in_order_header)
    print("|---|---|---|---|---|---|" + ("---|---|" if args.compare_kernels_in_order else ""))
    rows = []
    for name in names:
        xla = xla_times(name, args.runs)
        hmo = hmo_times(corpus / name, args.runs, args.threads, args.timeout)
        rows.append(dict(program=name, xla=xla, hmo=hmo))
        if "stderr" in hmo:
            print(f"| {name} | {xla['warm_median_s'] * 1e3:.1f} | failed: {hmo['error']} | | | |",
                  flush=True)
            continue
        ratio = hmo["warm"] / xla["warm_median_s"]
        in_order_cells = ""
        if args.compare_kernels_in_order:
            in_order = hmo_times(corpus / name, args.runs, args.threads, args.timeout,
                                 kernels_in_order=True)
            rows[-1]["hmo_in_order"] = in_order
            if "stderr" in in_order:
                in_order_cells = " failed | |"
            else:
                in_order_cells = (f" {in_order['warm'] * 1e3:.1f} | "
                                  f"{in_order['warm'] / hmo['warm']:.2f}x |")
        print(f"| {name} | {xla['warm_median_s'] * 1e3:.1f} | {hmo['warm'] * 1e3:.1f} | {ratio:.2f}x "
              f"| {hmo['cold'] * 1e3:.1f} | {hmo['rel_error']:.1e} |" + in_order_cells, flush=True)
    ratios = [r["hmo"]["warm"] / r["xla"]["warm_median_s"] for r in rows if "stderr" not in r["hmo"]]
    if ratios:
        print(f"warm hmo/XLA geomean {statistics.geometric_mean(ratios):.2f}x, worst "
              f"{max(ratios):.2f}x ({len(ratios)} of {len(names)} programs ran)")
    in_order_ratios = [r["hmo_in_order"]["warm"] / r["hmo"]["warm"] for r in rows
                       if "hmo_in_order" in r and "stderr" not in r["hmo_in_order"]]
    if in_order_ratios:
        print(f"hmo in order / hmo default geomean "
              f"{statistics.geometric_mean(in_order_ratios):.2f}x")
    for r in rows:
        if "stderr" in r["hmo"]:
            print(f"\n{r['program']} failed: {r['hmo']['command']}\n{r['hmo']['stderr']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
