#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz (targets.txt lists them).
#   scripts/fuzz.sh TARGET SECONDS   build it (clang, ASan+UBSan, in build-sanitize/) and fuzz
#                                    for SECONDS; a crashing input is written to
#                                    tests/fuzz/regressions/TARGET/ to commit as a test
#   scripts/fuzz.sh --binary PATH --runs N [--work DIR] TARGET
#                                    run a built fuzzer for N inputs (what ctest does)
# The corpus grown by a run stays in the work folder (build-sanitize/fuzz-corpus by default),
# never in the seed folders.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary="" runs="" work="" seconds=""
while (($#)); do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS (see --help)}
if [ -z "$runs" ]; then seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}; fi
line=$(grep -E "^$target( |$)" "$root/tests/fuzz/targets.txt" || true)
if [ -z "$line" ]; then
  echo "fuzz.sh: unknown target '$target'; tests/fuzz/targets.txt lists: $(grep -E '^[a-z]' "$root/tests/fuzz/targets.txt" | cut -d' ' -f1 | tr '\n' ' ')" >&2
  exit 2
fi
# regressions/TARGET/ exists once a crash was found there (git keeps no empty folder).
seeds=()
if [ -d "$root/tests/fuzz/regressions/$target" ]; then seeds+=("$root/tests/fuzz/regressions/$target"); fi
for folder in ${line#"$target"}; do seeds+=("$root/$folder"); done

if [ -z "$binary" ]; then
  # The sanitizer build (clang, ASan+UBSan, libFuzzer) is where the fuzzers live.
  build=${HMO_SANITIZE_BUILD_DIR:-$root/build-sanitize}
  HMO_SANITIZE_BUILD_DIR=$build "$root/scripts/sanitize.sh" --build "hmo_fuzz_$target"
  binary=$build/bin/hmo_fuzz_$target
  work=${work:-$build/fuzz-corpus}
fi
work=${work:-$(dirname "$binary")/runs}
corpus=$work/$target
mkdir -p "$corpus"
artifacts=$root/tests/fuzz/regressions/$target/
# An input of a semantic target compiles and runs whole modules (slow under ASan).
timeout=20
case "$target" in semantic_*) timeout=300 ;; esac
limits=(-max_len=65536 "-timeout=$timeout" -rss_limit_mb=4096 -seed=1 "-artifact_prefix=$artifacts")
# Deterministic short runs for ctest; a time budget for exploration.
if [ -n "$runs" ]; then
  limits+=("-runs=$runs")
  # A ctest run must not leave files in the source tree.
  limits=("${limits[@]/-artifact_prefix=*/-artifact_prefix=$work/$target-}")
else
  limits+=("-max_total_time=$seconds")
  mkdir -p "$artifacts"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$binary" "${limits[@]}" "$corpus" "${seeds[@]}"
