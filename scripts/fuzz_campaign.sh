#!/usr/bin/env bash
# A long fuzzing campaign: every target of tests/fuzz at once, each for a
# number of inputs spread over parallel libFuzzer jobs, on the fuzzers of the
# sanitizer build (or a bundle of them, tests/fuzz/make_fuzz_bundle.sh).
#   scripts/fuzz_campaign.sh RUNS SECONDS TARGET=JOBS...
#     e.g. scripts/fuzz_campaign.sh 1000000 480 analysis=10 hlo_parser=4 pipeline=1 heap_csv=1
# Each target runs RUNS inputs in all (RUNS/JOBS per job), each job stopping
# after SECONDS at the latest. Prints, per target, the inputs run, the
# seconds taken and the crashes found; crashing inputs land in
# $HMO_FUZZ_OUT/artifacts (default build-sanitize/fuzz-campaign), to be
# copied to tests/fuzz/regressions/TARGET/ with the fix. Exit status: the
# number of targets that crashed.
# Environment: HMO_FUZZ_BIN (folder of hmo_fuzz_* binaries, default
# build-sanitize/bin), HMO_FUZZ_LOADER (a dynamic loader and library folder
# to run them with, "LOADER:LIBDIR", for bundles), HMO_FUZZ_OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
total_runs=${1:?usage: scripts/fuzz_campaign.sh RUNS SECONDS TARGET=JOBS...}
seconds=${2:?usage: scripts/fuzz_campaign.sh RUNS SECONDS TARGET=JOBS...}
shift 2
bin=${HMO_FUZZ_BIN:-$root/build-sanitize/bin}
out=${HMO_FUZZ_OUT:-$root/build-sanitize/fuzz-campaign}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$out/artifacts"
launch=()
if [ -n "${HMO_FUZZ_LOADER:-}" ]; then launch=("${HMO_FUZZ_LOADER%%:*}" --library-path "${HMO_FUZZ_LOADER#*:}"); fi

pids=()
for spec in "$@"; do
  target=${spec%%=*} jobs=${spec#*=}
  line=$(grep -E "^$target( |$)" "$root/tests/fuzz/targets.txt") || { echo "unknown target $target" >&2; exit 2; }
  seeds=()
  [ -d "$root/tests/fuzz/regressions/$target" ] && seeds+=("$root/tests/fuzz/regressions/$target")
  for folder in ${line#"$target"}; do seeds+=("$root/$folder"); done
  mkdir -p "$out/$target/corpus" "$out/$target/logs"
  for ((j = 0; j < jobs; ++j)); do
    # Each job: its own seed, the shared corpus folder, RUNS/JOBS inputs.
    "${launch[@]}" "$bin/hmo_fuzz_$target" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
      -seed=$((j + 1)) -runs=$(((total_runs + jobs - 1) / jobs)) -max_total_time="$seconds" \
      -artifact_prefix="$out/artifacts/$target-" "$out/$target/corpus" "${seeds[@]}" \
      > "$out/$target/logs/job$j.log" 2>&1 &
    pids+=($!)
  done
done
wait "${pids[@]}"

crashed=0
for spec in "$@"; do
  target=${spec%%=*}
  runs=0 longest=0 crashes=0
  for log in "$out/$target"/logs/job*.log; do
    read -r n s < <(sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1 \2/p' "$log" | tail -1)
    if [ -z "${n:-}" ]; then
      crashes=$((crashes + 1))
      grep -m1 -E 'ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error' "$log"
      n=$(sed -nE 's/^#([0-9]+).*/\1/p' "$log" | tail -1)
    fi
    runs=$((runs + ${n:-0})); [ "${s:-0}" -gt "$longest" ] && longest=${s:-0}
    n="" s=""
  done
  echo "$target: $runs inputs in ${longest} s ($(ls "$out/$target"/logs/job*.log | wc -l) jobs), $crashes crashed job(s), corpus $(ls "$out/$target/corpus" | wc -l) files"
  [ "$crashes" -gt 0 ] && crashed=$((crashed + 1))
done
exit $crashed
