#!/usr/bin/env python3
"""hmo's buffer packer against XLA's best-fit on the public packing instances.

For every instance (MiniMalloc's challenging A-K and example in
bench/minimalloc/data, and the large real-world ones in
../shared/bench/minimalloc/realworld when present): the lower bound (most
bytes live at once), XLA's best-fit height, its excess over the bound and its
time (`hmo pack --algorithm best-fit`), the improver's (`--algorithm
best-fit-improved`, hmo's default) the same way, and, when extra flags are
given, `hmo pack FLAGS` with its ratio to best-fit and to the bound. Each
`hmo pack` validates its plan before it writes it. A summary line gives
geometric means. Usage:

    bench/memory_plan/packing.py [--hmo build/bin/hmo] [--only SUBSTR] [-- extra hmo pack flags]
"""

import math
import pathlib
import re
import subprocess
import sys
import tempfile

import bench_cli

REPO = bench_cli.REPO
LINE = re.compile(r"height (\d+), lower bound (\d+) .*?([\d.]+) s")


def pack(hmo, path, flags):
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        run = subprocess.run([hmo, "pack", str(path), "-o", out.name, *flags], capture_output=True,
                             text=True)
    if run.returncode != 0:
        return None, None, None, run.stderr.strip().splitlines()[-1] if run.stderr else "failed"
    match = LINE.search(run.stderr)
    if not match:
        return None, None, None, "unparsed: " + run.stderr.strip()
    return int(match.group(1)), int(match.group(2)), float(match.group(3)), None


def instances():
    data = REPO / "bench/minimalloc/data"
    found = sorted((data / "challenging").glob("*.csv")) + sorted((data / "examples").glob("*.csv"))
    found += sorted((data / "realworld").glob("*.csv"))
    shared = REPO.parent / "shared/bench/minimalloc/realworld"
    have = {p.name for p in found}
    found += [p for p in sorted(shared.glob("*.csv")) if p.name not in have]
    return found


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    args, extra = bench_cli.parse_args(__doc__.splitlines()[0])
    def over(height, bound):
        return f"{100.0 * (height - bound) / bound:+.2f}%"

    header = (f"{'instance':<22} {'buffers':>7} {'lower bound':>15} {'best-fit':>15} {'over':>7} "
              f"{'time s':>7} {'improver':>15} {'over':>7} {'time s':>7}")
    if extra:
        header += f" {'hmo ' + ' '.join(extra):>15} {'/best-fit':>9} {'/bound':>8} {'time s':>7}"
    print(header)
    ratios_bf, ratios_lb, ratios_imp = [], [], []
    for path in instances():
        if args.only not in str(path):
            continue
        buffers = sum(1 for _ in open(path)) - 1
        bf, bound, bf_s, error = pack(args.hmo, path, ["--algorithm", "best-fit"])
        imp, _, imp_s, imp_error = pack(args.hmo, path, ["--algorithm", "best-fit-improved"])
        name = f"{path.parent.name}/{path.stem}"
        if error or imp_error:
            print(f"{name:<22} {buffers:>7} error: {error or imp_error}")
            continue
        ratios_imp.append(imp / bound)
        line = (f"{name:<22} {buffers:>7} {bound:>15} {bf:>15} {over(bf, bound):>7} {bf_s:>7.3f} "
                f"{imp:>15} {over(imp, bound):>7} {imp_s:>7.3f}")
        if extra:
            ours, _, ours_s, ours_error = pack(args.hmo, path, extra)
            if ours_error:
                line += f" error: {ours_error}"
            else:
                ratios_bf.append(ours / bf)
                ratios_lb.append(ours / bound)
                line += f" {ours:>15} {ours / bf:>9.4f} {ours / bound:>8.4f} {ours_s:>7.3f}"
        print(line)
    summary = f"SUMMARY geomean improver/lower bound {geomean(ratios_imp):.4f} over {len(ratios_imp)} instances"
    if extra:
        summary += (f"; hmo {' '.join(extra)}: /best-fit {geomean(ratios_bf):.4f}, "
                    f"/lower bound {geomean(ratios_lb):.4f}")
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
