#!/usr/bin/env python3
"""hmo's CPU backend next to XLA:CPU on the same HLO modules.

For each model (HLO text) this script
  1. has XLA:CPU compile and run it, in a fresh subprocess per model (so the
     peak-RSS numbers are that model's alone): the HLO is translated into
     jax.lax calls by hlo_to_jax.py and compiled with
     jax.jit(f).lower(*args).compile(); it reports XLA's memory_analysis(),
     the constants XLA kept, compile time, the first (cold) run, the median of
     --runs warm runs (block_until_ready), and the peak RSS growth;
  2. runs `hmo run --execute --backend cpu --seed S PIPELINE MODULE` when the
     hmo binary exists and supports it (else prints "hmo: not available"),
     --hmo-runs times, and parses its summary;
  3. compares the two results (hmo's --results-dir .npy files against
     XLA's) and prints a side-by-side table.

Both sides get bit-identical inputs: arguments and elided constants come
from hmo's random_literals rule with the same --seed (see hlo_to_jax.py).

Needs JAX (`pip install jax` into a virtual environment); it is not a test
dependency of hmo. Example:
  python bench/cpu_vs_xla/cpu_vs_xla.py --runs 50 --models graphsage_tf ssd_mobilenet_tf
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent
REPO_ROOT = SCRIPT_DIR.parent.parent
DEFAULT_MODELS = ["graphsage_tf", "ssd_mobilenet_tf"]
# XLA:CPU otherwise runs ops on an intra-op thread pool of all cores.
SINGLE_THREAD_XLA_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"

# --------------------------------------------------------------------------
# Resident set size (Linux /proc/self/status), as hmo's peak_memory.h does it
# --------------------------------------------------------------------------


def read_rss() -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in bytes, or None where /proc does not say."""
    fields = {}
    try:
        with open("/proc/self/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = int(value.split()[0]) * 1024
    except OSError:
        return None
    if len(fields) != 2:
        return None
    return fields["VmRSS"], fields["VmHWM"]


class PeakRssMeter:
    """How far the resident set rose above its level at start(): resets the
    high-water mark (writing 5 to /proc/self/clear_refs), then reads VmHWM at
    stop(). Without a reset, growth is known only when the work pushed VmHWM
    above its old value; stop() returns -1 when it is unknown."""

    # The highest VmHWM seen by any meter in this process: resets lose the
    # earlier high-water marks, so each start() reads it first.
    process_peak = 0

    def start(self) -> None:
        prior = read_rss()
        if prior is not None:
            PeakRssMeter.process_peak = max(PeakRssMeter.process_peak, prior[1])
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.reset = True
        except OSError:
            self.reset = False
        self.before = read_rss()

    def stop(self) -> int:
        now = read_rss()
        if self.before is None or now is None:
            return -1
        PeakRssMeter.process_peak = max(PeakRssMeter.process_peak, now[1])
        if not self.reset and now[1] <= self.before[1]:
            return -1
        return max(0, now[1] - self.before[0])


# --------------------------------------------------------------------------
# The XLA side (runs in a child process: --child MODULE)
# --------------------------------------------------------------------------


def optimized_constant_bytes(hlo_text: str) -> int:
    """Bytes of the constants left in XLA's optimized HLO (they live in the
    executable, outside memory_analysis()'s argument/output/temp buffers)."""
    import hlo_to_jax

    total = 0
    for line in hlo_text.splitlines():
        match = re.match(r"\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(.+?)\s+constant\(", line)
        if match:
            try:
                total += hlo_to_jax.parse_shape(match.group(1))[0].byte_size()
            except (ValueError, NotImplementedError):
                pass
    return total


def elf_section_bytes(path: str) -> tuple[int, int, int]:
    """(code, read-only data, read-write data) bytes of the allocated sections
    of a 64-bit little-endian ELF object, split by section flags as hmo's
    ExecutableStats splits its JIT sections."""
    import struct

    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    section_offset = struct.unpack_from("<Q", data, 0x28)[0]
    entry_size, count = struct.unpack_from("<HH", data, 0x3A)
    code = rodata = rwdata = 0
    shf_write, shf_alloc, shf_execinstr = 0x1, 0x2, 0x4
    for i in range(count):
        _, kind, flags, _, _, size = struct.unpack_from("<IIQQQQ", data, section_offset + i * entry_size)
        if not flags & shf_alloc:
            continue
        if flags & shf_execinstr:
            code += size
        elif flags & shf_write:
            rwdata += size  # .data and .bss
        elif kind != 8:  # SHT_NOBITS
            rodata += size
    return code, rodata, rwdata


def xla_object_code_bytes(lowered) -> dict:
    """XLA:CPU's memory_analysis() reports no generated-code size, so compile
    once more with xla_dump_to and add up the sections of the object files it
    dumps (one per kernel / compute module)."""
    with tempfile.TemporaryDirectory(prefix="xla_dump.") as directory:
        lowered.compile(compiler_options={"xla_dump_to": directory})
        objects = [os.path.join(directory, n) for n in os.listdir(directory) if n.endswith(".o")]
        sums = [elf_section_bytes(o) for o in objects]
    return {"object_files": len(objects), "object_code_bytes": sum(s[0] for s in sums),
            "object_rodata_bytes": sum(s[1] for s in sums), "object_rwdata_bytes": sum(s[2] for s in sums)}


def measure_xla(module_path: Path, runs: int, warmup: int, seed: int, results_dir: str,
                code_size: bool) -> dict:
    """Compiles and runs one module with XLA:CPU in this process; returns the numbers."""
    sys.path.insert(0, str(SCRIPT_DIR))
    import jax
    import numpy as np

    import hlo_to_jax

    report: dict = {"model": module_path.stem, "jax": jax.__version__,
                    "xla_flags": os.environ.get("XLA_FLAGS", "")}
    module = hlo_to_jax.parse_module(module_path.read_text())
    constants, elided = hlo_to_jax.constant_values(module, seed)
    host_args = hlo_to_jax.random_arguments(module, seed)
    report["elided_constants"] = elided
    report["input_constant_bytes"] = sum(v.nbytes for v in constants.values())
    function = hlo_to_jax.to_jax_function(module, constants)

    meter = PeakRssMeter()
    meter.start()
    start = time.perf_counter()
    lowered = jax.jit(function).lower(*host_args)
    report["lower_s"] = time.perf_counter() - start
    start = time.perf_counter()
    compiled = lowered.compile()
    report["compile_s"] = time.perf_counter() - start
    report["compile_peak_rss_growth"] = meter.stop()

    stats = compiled.memory_analysis()
    for field in ("argument", "output", "temp", "alias", "generated_code"):
        report[f"{field}_bytes"] = int(getattr(stats, f"{field}_size_in_bytes", 0) or 0)
    report["constant_bytes"] = optimized_constant_bytes(compiled.as_text())

    device_args = [jax.device_put(a) for a in host_args]
    jax.block_until_ready(device_args)
    # The first run is the one hmo's single Execute corresponds to: cold
    # caches, first touch of XLA's temp buffers, thread-pool start-up.
    meter.start()
    start = time.perf_counter()
    result = jax.block_until_ready(compiled(*device_args))
    report["first_run_s"] = time.perf_counter() - start
    report["run_peak_rss_growth"] = meter.stop()

    for _ in range(warmup):
        jax.block_until_ready(compiled(*device_args))
    times = []
    for _ in range(max(1, runs)):
        start = time.perf_counter()
        jax.block_until_ready(compiled(*device_args))
        times.append(time.perf_counter() - start)
    report["run_median_s"] = statistics.median(times)
    report["run_min_s"] = min(times)
    report["runs"] = len(times)
    rss = read_rss()
    report["process_peak_rss"] = max(PeakRssMeter.process_peak, rss[1] if rss else -1)

    problems = hlo_to_jax.check_result(module, result)
    report["problems"] = problems
    if code_size:
        try:
            report.update(xla_object_code_bytes(lowered))
        except Exception as error:  # an optional extra: report it, keep the rest
            report["object_code_error"] = f"{type(error).__name__}: {error}"
    leaves = list(result) if isinstance(result, (tuple, list)) else [result]
    report["outputs"] = [f"{np.asarray(x).dtype}{list(np.shape(x))}" for x in leaves]
    if results_dir:
        os.makedirs(results_dir, exist_ok=True)
        names = ["result.npy"] if not isinstance(result, (tuple, list)) else \
            [f"result.{i}.npy" for i in range(len(leaves))]
        for name, leaf in zip(names, leaves):
            np.save(os.path.join(results_dir, name), np.asarray(leaf))
    return report


def run_xla_child(module_path: Path, args: argparse.Namespace, results_dir: str) -> dict:
    """measure_xla in a fresh interpreter; returns its report (or an 'error')."""
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    if args.xla_single_thread:
        flags += " " + SINGLE_THREAD_XLA_FLAGS
    if args.xla_dump:
        flags += f" --xla_dump_to={args.xla_dump / module_path.stem}"
    if flags.strip():
        env["XLA_FLAGS"] = flags.strip()
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(module_path),
               "--runs", str(args.runs), "--warmup", str(args.warmup), "--seed", str(args.seed),
               "--child-results", results_dir] + ([] if args.xla_code_size else ["--no-xla-code-size"])
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {args.timeout} s"}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
    return {"error": f"exit {done.returncode}: " + " | ".join(tail)}


# --------------------------------------------------------------------------
# The hmo side
# --------------------------------------------------------------------------

_BYTE_UNITS = {"b": 1, "bytes": 1, "byte": 1, "kb": 1000, "kib": 1024, "mb": 1000**2,
               "mib": 1024**2, "gb": 1000**3, "gib": 1024**3}
_TIME_UNITS = {"s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"


def _unit_pattern(units: dict) -> str:
    return "(" + "|".join(sorted(map(re.escape, units), key=len, reverse=True)) + r")(?![\w])"


def _quantity(line: str, keyword: str, units: dict, unit_optional: bool = False) -> float | None:
    """The quantity right after `keyword` on `line` (`compile 1.2 s`,
    `code: 4096 B`, `run time = 3 ms`); None when there is none."""
    unit = _unit_pattern(units)
    if unit_optional:
        unit = "(?:" + unit + ")?"
    match = re.search(keyword + r"[\w ]{0,12}?[:=]?\s*" + _NUMBER + r"\s*" + unit, line, re.IGNORECASE)
    if not match:
        return None
    scale = units[match.group(2).lower()] if match.group(2) else 1
    return float(match.group(1)) * scale


def parse_hmo_summary(text: str) -> dict:
    """Picks the numbers out of `hmo run --execute`'s summary, tolerant of
    wording and units. Reads from the first line mentioning `execute` on
    (when there is one, so pipeline pass reports above it are skipped) and
    takes the first match of each: compile <time>, code / rodata / rwdata
    <bytes>, arena lines with one `space N <bytes>` per memory space (or a
    single `arena <bytes>`), run <time>, peak RSS growth <bytes>|unknown.
    Missing numbers are absent from the result."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if re.search(r"\bexecut", line, re.IGNORECASE):
            lines = lines[index:]
            break
    found: dict = {}

    def take(name: str, value) -> None:
        if value is not None and name not in found:
            found[name] = value

    for line in lines:
        take("compile_s", _quantity(line, r"\bcompil\w*", _TIME_UNITS))
        for key in ("code", "rodata", "rwdata"):
            value = _quantity(line, r"\b" + key, _BYTE_UNITS, unit_optional=True)
            take(f"{key}_bytes", None if value is None else int(value))
        if re.search(r"arena", line, re.IGNORECASE) and "arena_bytes" not in found:
            spaces = re.findall(r"space\s*(\d+)\s*[:=]?\s*" + _NUMBER + r"\s*(?:" + _unit_pattern(_BYTE_UNITS) + ")?",
                                line, re.IGNORECASE)
            if spaces:
                found["arena_bytes"] = {int(s): int(float(v) * (_BYTE_UNITS[u.lower()] if u else 1))
                                        for s, v, u in spaces}
            else:
                value = _quantity(line, r"arenas?", _BYTE_UNITS)
                if value is not None:
                    found["arena_bytes"] = {0: int(value)}
        take("run_s", _quantity(line, r"\brun\b", _TIME_UNITS))
        growth = _quantity(line, r"peak\s+RSS\s+growth", _BYTE_UNITS)
        if growth is None and re.search(r"peak\s+RSS\s+growth\W*unknown", line, re.IGNORECASE):
            growth = -1
        take("peak_rss_growth", None if growth is None else int(growth))
    return found


def run_hmo(module_path: Path, args: argparse.Namespace, results_dir: str) -> dict:
    """`hmo run --execute` --hmo-runs times; the parsed numbers (run time as
    the median over the invocations), or {'unavailable': reason}."""
    binary = Path(args.hmo)
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        return {"unavailable": f"no executable at {binary}"}
    command = [str(binary), "run", "--execute", "--backend", "cpu", "--seed", str(args.seed)]
    for directory in args.hmo_plugin_dir:
        command += ["--plugin-dir", directory]
    output_hlo = os.path.join(results_dir, "optimized.hlo")
    command += ["--results-dir", results_dir, str(args.pipeline), str(module_path), "-o", output_hlo]
    reports = []
    for _ in range(max(1, args.hmo_runs)):
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return {"unavailable": f"timed out after {args.timeout} s"}
        text = done.stdout + "\n" + done.stderr
        # The summary goes to stdout; stderr carries pass logs (memory
        # reports with their own byte counts), so it only fills gaps.
        parsed = {**parse_hmo_summary(done.stderr), **parse_hmo_summary(done.stdout)}
        if done.returncode != 0 or "run_s" not in parsed:
            errors = [l for l in text.splitlines() if "error" in l.lower()] or text.strip().splitlines()
            reason = errors[0] if errors else f"exit {done.returncode}"
            return {"unavailable": f"{reason.strip()[:200]}", "command": " ".join(command)}
        reports.append(parsed)
    merged = dict(reports[0])
    merged["run_s"] = statistics.median(r["run_s"] for r in reports)
    merged["run_samples_s"] = [r["run_s"] for r in reports]
    growths = [r.get("peak_rss_growth", -1) for r in reports if r.get("peak_rss_growth", -1) >= 0]
    merged["peak_rss_growth"] = statistics.median(growths) if growths else -1
    merged["command"] = " ".join(command)
    return merged


def compare_results(xla_dir: str, hmo_dir: str) -> str:
    """Max absolute difference per output between the two result sets."""
    import numpy as np

    names = sorted(n for n in os.listdir(xla_dir) if n.startswith("result") and n.endswith(".npy"))
    if not names:
        return "no XLA results"
    parts = []
    for name in names:
        theirs = os.path.join(hmo_dir, name)
        if not os.path.exists(theirs):
            return f"hmo wrote no {name}"
        a = np.load(os.path.join(xla_dir, name)).astype(np.float64)
        b = np.load(theirs).astype(np.float64)
        if a.shape != b.shape:
            parts.append(f"{name}: shape {list(b.shape)} vs XLA {list(a.shape)}")
            continue
        if not a.size:
            parts.append(f"{name}: empty")
            continue
        # With random weights some outputs are huge (ssd's box decoding
        # exponentiates), so the scale goes next to the difference.
        parts.append(f"{name}: max abs diff {float(np.max(np.abs(a - b))):.3g} "
                     f"(max |XLA| {float(np.max(np.abs(a))):.3g})")
    return "; ".join(parts)


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def human_bytes(n: float | None) -> str:
    if n is None or n < 0:
        return "?"
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{int(n)} B"


def ms(seconds: float | None) -> str:
    return "?" if seconds is None else f"{seconds * 1e3:.3f}"


def print_xla_report(x: dict) -> None:
    print(f"  XLA:CPU (jax {x['jax']}{', XLA_FLAGS=' + x['xla_flags'] if x['xla_flags'] else ''})")
    print(f"    memory_analysis: argument {x['argument_bytes']} B, output {x['output_bytes']} B, "
          f"temp {x['temp_bytes']} B, alias {x['alias_bytes']} B, "
          f"generated code {x['generated_code_bytes']} B"
          + (" (XLA:CPU does not report it)" if x["generated_code_bytes"] == 0 else ""))
    if "object_files" in x:
        print(f"    object code ({x['object_files']} object files XLA dumps): code {x['object_code_bytes']} B, "
              f"rodata {x['object_rodata_bytes']} B, rwdata {x['object_rwdata_bytes']} B")
    elif "object_code_error" in x:
        print(f"    object code: not measured ({x['object_code_error']})")
    print(f"    constants in the executable: {x['constant_bytes']} B; in the input HLO: "
          f"{x['input_constant_bytes']} B ({x['elided_constants']} elided constants filled)")
    print(f"    lower {x['lower_s']:.3f} s, compile {x['compile_s']:.3f} s "
          f"(peak RSS growth {human_bytes(x['compile_peak_rss_growth'])})")
    print(f"    first run {ms(x['first_run_s'])} ms (peak RSS growth {human_bytes(x['run_peak_rss_growth'])}), "
          f"median of {x['runs']} {ms(x['run_median_s'])} ms, min {ms(x['run_min_s'])} ms")
    print(f"    process peak RSS {human_bytes(x['process_peak_rss'])}")
    print(f"    outputs {', '.join(x['outputs'])}: "
          + ("shapes match the HLO root, all finite" if not x["problems"] else "; ".join(x["problems"])))


def print_table(rows: list[tuple[str, dict, dict]]) -> None:
    header = ["model", "XLA run ms", "hmo run ms", "hmo/XLA", "XLA temp+arg+out",
              "hmo arena", "XLA peak RSS growth", "hmo peak RSS growth", "XLA 1st run ms"]
    lines = [header]
    for name, x, h in rows:
        xla_ok = "error" not in x
        hmo_ok = "unavailable" not in h
        xla_run = x.get("run_median_s") if xla_ok else None
        hmo_run = h.get("run_s") if hmo_ok else None
        ratio = f"{hmo_run / xla_run:.3g}" if xla_run and hmo_run else "-"
        xla_bytes = (x["temp_bytes"] + x["argument_bytes"] + x["output_bytes"]) if xla_ok else None
        hmo_arena = sum(h["arena_bytes"].values()) if hmo_ok and "arena_bytes" in h else None
        lines.append([
            name, ms(xla_run) if xla_ok else "error", ms(hmo_run) if hmo_ok else "n/a", ratio,
            human_bytes(xla_bytes) if xla_ok else "error", human_bytes(hmo_arena) if hmo_ok else "n/a",
            human_bytes(x.get("run_peak_rss_growth")) if xla_ok else "error",
            human_bytes(h.get("peak_rss_growth")) if hmo_ok else "n/a",
            ms(x.get("first_run_s")) if xla_ok else "error",
        ])
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    for index, line in enumerate(lines):
        print(" | ".join(str(cell).ljust(width) for cell, width in zip(line, widths)))
        if index == 0:
            print("-+-".join("-" * width for width in widths))


def resolve_model(name: str, hlo_dir: Path) -> Path:
    path = Path(name)
    if path.is_file():
        return path
    candidate = hlo_dir / (name if name.endswith(".hlo") else name + ".hlo")
    if candidate.is_file():
        return candidate
    raise SystemExit(f"cpu_vs_xla: no module '{name}' (looked for {path} and {candidate})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS,
                        help="model names in --hlo-dir, or paths to .hlo files (default: %(default)s)")
    parser.add_argument("--hlo-dir", type=Path, default=REPO_ROOT / "tests" / "hlo")
    parser.add_argument("--runs", type=int, default=20, help="timed XLA runs after warm-up (median reported)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed XLA runs before the timed ones")
    parser.add_argument("--seed", type=int, default=0, help="seed for arguments and elided constants (both sides)")
    parser.add_argument("--hmo", default=str(REPO_ROOT / "build" / "bin" / "hmo"), help="the hmo binary")
    parser.add_argument("--hmo-plugin-dir", action="append", default=[],
                        help="passed to hmo as --plugin-dir (repeatable)")
    parser.add_argument("--pipeline", type=Path, default=REPO_ROOT / "pipelines" / "cpu-default.yaml",
                        help="hmo pipeline run before compiling (default: %(default)s)")
    parser.add_argument("--hmo-runs", type=int, default=3,
                        help="hmo invocations per model (each compiles and runs once); median reported")
    parser.add_argument("--xla-single-thread", action="store_true",
                        help=f"run XLA on one thread (XLA_FLAGS+='{SINGLE_THREAD_XLA_FLAGS}')")
    parser.add_argument("--xla-dump", type=Path,
                        help="have XLA dump its HLO before/after optimization, buffer assignment and "
                             "LLVM IR into DIR/<model> (XLA_FLAGS=--xla_dump_to)")
    parser.add_argument("--no-xla-code-size", dest="xla_code_size", action="store_false",
                        help="skip the second XLA compile (with xla_dump_to) that measures XLA's "
                             "generated code from its object files")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per subprocess")
    parser.add_argument("--json", type=Path, help="also write all numbers to this JSON file")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-results", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child is not None:
        print(json.dumps(measure_xla(args.child, args.runs, args.warmup, args.seed, args.child_results,
                                     args.xla_code_size)))
        return 0

    rows, everything, failed = [], [], False
    work = tempfile.mkdtemp(prefix="cpu_vs_xla.")
    try:
        for name in args.models:
            path = resolve_model(name, args.hlo_dir)
            model = path.stem
            print(f"{model} ({path}):", flush=True)
            xla_dir = os.path.join(work, model, "xla")
            hmo_dir = os.path.join(work, model, "hmo")
            os.makedirs(hmo_dir, exist_ok=True)
            x = run_xla_child(path, args, xla_dir)
            if "error" in x:
                failed = True
                print(f"  XLA: error: {x['error']}")
            else:
                print_xla_report(x)
                failed |= bool(x["problems"])
            h = run_hmo(path, args, hmo_dir)
            if "unavailable" in h:
                print(f"  hmo: not available ({h['unavailable']})")
            else:
                arenas = ", ".join(f"space {s} {b} B" for s, b in sorted(h.get("arena_bytes", {}).items()))
                print(f"  hmo ({h['command']})")
                print(f"    compile {h.get('compile_s', float('nan')):.3f} s, code {h.get('code_bytes', '?')} B, "
                      f"rodata {h.get('rodata_bytes', '?')} B, arenas: {arenas or '?'}")
                if "arena_bytes" in h:
                    # Both keep constants out of their buffers (hmo's constant
                    # allocations are the JIT's read-only globals), so the
                    # arenas compare with XLA's temp + argument + output.
                    print(f"    arenas {sum(h['arena_bytes'].values())} B; "
                          f"XLA temp+arg+out {x['temp_bytes'] + x['argument_bytes'] + x['output_bytes']} B")
                print(f"    run (median of {len(h['run_samples_s'])} invocations, each one cold run) "
                      f"{ms(h['run_s'])} ms, peak RSS growth {human_bytes(h['peak_rss_growth'])}")
                if "error" not in x:
                    print(f"    results vs XLA: {compare_results(xla_dir, hmo_dir)}")
            rows.append((model, x, h))
            everything.append({"model": model, "path": str(path), "xla": x, "hmo": h})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print_table(rows)
    print("XLA run: median of warm runs. hmo run: one cold Execute per hmo invocation, median of the\n"
          "invocations; compare it with XLA 1st run (cold). Ratio: hmo run / XLA run. Peak RSS growth:\n"
          "VmHWM over the first run minus VmRSS before it, in a process of its own.")
    if args.json:
        args.json.write_text(json.dumps(everything, indent=2, default=str))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
