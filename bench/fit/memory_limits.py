#!/usr/bin/env python3
"""Fitting under device memory limits, over the JAX corpus.

For each program of tests/corpus (XLA's optimized dump) and each
limit of 100%, 80%, 60% and 40% of the device bytes XLA's own schedule needs
(`hmo stats`: argument + output - alias + temp), runs

    hmo run pipelines/rematerialization.yaml DUMP --memory-limit L --report
    hmo run pipelines/fit.yaml DUMP --memory-limit L --report

and prints, for each, the fitted device bytes ("floor" when the limit is below
the proven floor, "-" when it is above and not reached), the recomputed FLOPs
as a share of the step's FLOPs (hmo's count, hmo/analysis/flop_count.h), for
fit the bytes kept in host memory, and fit's time to fit.

With --jax PYTHON (a python with jax, e.g. .venv-jax/bin/python), it also
runs bench/fit/jax_policies.py in the same run: XLA's transformer step under
jax.checkpoint policies (none, full, dots_saveable), and hmo on the same
step at the device bytes each policy reaches, so the added FLOPs compare at
equal memory (XLA's share from compiled.cost_analysis()).

    python3 bench/fit/memory_limits.py --hmo build/bin/hmo [--jax .venv-jax/bin/python]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "corpus")
PIPELINES = {"remat": os.path.join(ROOT, "pipelines", "rematerialization.yaml"),
             "fit": os.path.join(ROOT, "pipelines", "fit.yaml")}
PROGRAMS = ["mlp_sgd", "transformer_adam", "transformer_remat", "transformer_scan",
            "cnn_maxpool", "batch_norm", "embedding", "layer_norm", "random_dropout",
            "kv_decode"]
LIMITS = [100, 80, 60, 40]

SUMMARY = re.compile(r"limit (\d+) B: device (\d+) -> (\d+) B \((fits|does not fit), ranked by "
                     r".*?\); "
                     r"floor >= (\d+) B .*?; (\d+) changes, (\d+) FLOPs recomputed \(([\d.]+)% "
                     r"of the module's (\d+)\), (\d+) B offloaded")
FLOOR = re.compile(r"proven floor (?:of|is) (\d+) B")


def dump(program):
    directory = os.path.join(CORPUS, program)
    for name in sorted(os.listdir(directory)):
        if name.endswith("cpu_after_optimizations.txt"):
            return os.path.join(directory, name)
    raise SystemExit(f"no optimized dump in {directory}")


def device_bytes(hmo, path):
    out = subprocess.run([hmo, "stats", "--format", "json", path], check=True,
                         capture_output=True, text=True).stdout
    stats = json.loads(out)["stats"]
    return (stats["argument_size_in_bytes"] + stats["output_size_in_bytes"] -
            stats["alias_size_in_bytes"] + stats["temp_size_in_bytes"])


def fit(hmo, path, limit, pipeline="fit"):
    start = time.perf_counter()
    run = subprocess.run([hmo, "run", PIPELINES[pipeline], path, "-o", os.devnull, "--memory-limit",
                          str(limit), "--report"], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    text = run.stdout + run.stderr
    summary = SUMMARY.search(text)
    if run.returncode == 0:
        device = re.findall(r"memory-limit: device ([\d,]+) B", text)
        fitted = int(device[-1].replace(",", "")) if device else None
        return {"fits": True, "device": fitted,
                "flops": int(summary.group(7)) if summary else 0,
                "share": float(summary.group(8)) if summary else 0.0,
                "offloaded": int(summary.group(10)) if summary else 0,
                "floor": int(summary.group(5)) if summary else None, "seconds": seconds}
    floor = FLOOR.search(text)
    reached = re.search(r"device (\d+) -> (\d+) B", text)
    return {"fits": False, "device": int(reached.group(2)) if reached else None,
            "floor": int(floor.group(1)) if floor else None, "seconds": seconds,
            "error": text.strip().splitlines()[0][:160] if text.strip() else ""}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hmo", default=os.path.join(ROOT, "build", "bin", "hmo"))
    parser.add_argument("--jax", help="a python with jax: compare with jax.checkpoint policies")
    args = parser.parse_args()

    print("device bytes each limit leaves (remat: pipelines/rematerialization.yaml; fit: "
          "pipelines/fit.yaml, recomputation and host offload at the cpu backend's rates)")
    print(f"{'program':18} {'limit':>5} {'limit B':>9} {'floor B':>9} | {'remat B':>9} "
          f"{'+FLOPs':>7} | {'fit B':>9} {'+FLOPs':>7} {'offload B':>9} {'s':>6}")
    misses = {"remat": [], "fit": []}
    for program in PROGRAMS:
        path = dump(program)
        full = device_bytes(args.hmo, path)
        for percent in LIMITS:
            limit = full * percent // 100
            cells = {}
            floor = None
            for pipeline in ("remat", "fit"):
                result = fit(args.hmo, path, limit, pipeline)
                floor = result["floor"] if result["floor"] is not None else floor
                if result["fits"]:
                    cells[pipeline] = result
                elif result["floor"] is None or limit >= result["floor"]:
                    misses[pipeline].append(f"{program} {percent}%")
                if pipeline == "fit":
                    seconds = result["seconds"]
            remat, fitted = cells.get("remat"), cells.get("fit")
            below = floor is not None and limit < floor
            dash = "floor" if below else "-"
            print(f"{program:18} {percent:>4}% {limit:>9} {floor or 0:>9} | "
                  + (f"{remat['device'] or 0:>9} {remat['share']:>6.2f}%" if remat
                     else f"{dash:>9} {'':>7}")
                  + " | "
                  + (f"{fitted['device'] or 0:>9} {fitted['share']:>6.2f}% "
                     f"{fitted['offloaded']:>9}" if fitted else f"{dash:>9} {'':>7} {'':>9}")
                  + f" {seconds:>6.2f}")
    for pipeline in ("remat", "fit"):
        print(f"{pipeline}: limits above the proven floor not met: {len(misses[pipeline])} "
              f"({', '.join(misses[pipeline])})")

    if args.jax:
        out = subprocess.run([args.jax, os.path.join(ROOT, "bench", "fit", "jax_policies.py")],
                             check=True, capture_output=True, text=True).stdout
        xla = json.loads(out.strip().splitlines()[-1])
        base_flops = xla["none"]["flops"]
        path = dump("transformer_adam")
        print(f"\ntransformer step, XLA:CPU (jax {xla['jax']}) jax.checkpoint policies vs hmo "
              f"at the same device bytes")
        print(f"{'policy':14} {'XLA device B':>12} {'XLA +FLOPs':>10} {'hmo device B':>12} "
              f"{'hmo +FLOPs':>10}")
        for policy in ("none", "full", "dots_saveable"):
            target = xla[policy]["device_bytes"]
            extra = 100.0 * (xla[policy]["flops"] - base_flops) / base_flops
            ours = fit(args.hmo, path, target)
            hmo = (f"{ours['device']:>12} {ours['share']:>9.2f}%" if ours["fits"]
                   else f"{'-':>12} {'-':>10}")
            print(f"{policy:14} {target:>12} {extra:>9.2f}% {hmo}")
        target = device_bytes(args.hmo, path) * 60 // 100
        ours = fit(args.hmo, path, target)
        print(f"{'(60% limit)':14} {'-':>12} {'-':>10} "
              f"{(ours['device'] if ours['fits'] else '-')!s:>12} "
              f"{(format(ours['share'], '.2f') + '%') if ours['fits'] else '-':>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
