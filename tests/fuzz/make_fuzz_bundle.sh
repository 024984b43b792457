#!/usr/bin/env bash
# Packs the sanitizer build's fuzzers for a machine that cannot build hmo
# (the device machine: more cores, none of the libraries):
#   tests/fuzz/make_fuzz_bundle.sh     # -> build-fuzz-bundle/ (bin/, lib/ with the loader)
#   (device tool) carry ["build-fuzz-bundle"], command:
#     HMO_FUZZ_BIN=build-fuzz-bundle/bin \
#     HMO_FUZZ_LOADER=build-fuzz-bundle/lib/ld-linux-x86-64.so.2:build-fuzz-bundle/lib \
#     scripts/fuzz_campaign.sh 1000000 480 analysis=10 hlo_parser=4 pipeline=1 heap_csv=1
# The fuzzers are run through the bundled loader with the bundled libraries,
# so the machine's own (other versions, or none) do not matter.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${HMO_SANITIZE_BUILD_DIR:-$root/build-sanitize}
out=$root/build-fuzz-bundle
targets=$(grep -E '^[a-z]' "$root/tests/fuzz/targets.txt" | cut -d' ' -f1)
for target in $targets; do HMO_SANITIZE_BUILD_DIR=$build "$root/scripts/sanitize.sh" --build "hmo_fuzz_$target"; done
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for target in $targets; do cp "$build/bin/hmo_fuzz_$target" "$out/bin/"; done
for elf in "$out"/bin/*; do
  ldd "$elf" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}'
done | sort -u | while read -r lib; do cp -L "$lib" "$out/lib/"; done
strip --strip-debug "$out"/lib/libhmo_* 2> /dev/null || true
du -sh "$out"
