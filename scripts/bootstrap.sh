#!/usr/bin/env bash
# One-step set-up for a fresh Debian 12 machine (run as root):
#   scripts/bootstrap.sh example   install what is missing, build, run hmo on a bundled module
#   scripts/bootstrap.sh test      install what is missing, build, run every test
set -euo pipefail
mode=${1:-example}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HMO_BUILD_DIR:-$root/build}

packages=(build-essential cmake ninja-build ccache pkg-config
          libabsl-dev libyaml-cpp-dev libboost-dev libspdlog-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev llvm-14-dev zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev
          libopenblas-dev libdnnl-dev libeigen3-dev libopenmpi-dev openmpi-bin)
# The HTML memory-report test renders the page in headless Chromium; the
# sanitizer and fuzzing builds (scripts/sanitize.sh, scripts/fuzz.sh) use clang;
# scripts/lint.sh uses clang-format and clang-tidy.
[ "$mode" = test ] && packages+=(chromium clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Debian's cmake is >= 3.25; prefer it over any other cmake on PATH.
cmake_bin=/usr/bin/cmake
[ -x "$cmake_bin" ] || cmake_bin=cmake
jobs=$(nproc)
"$cmake_bin" -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
# The example needs only the host and its plugins; the tests need everything.
targets=()
[ "$mode" = example ] && targets=(--target hmo-tools)
"$cmake_bin" --build "$build" -j "$jobs" "${targets[@]}"

case "$mode" in
  example)
    "$root/scripts/run-example.sh" "$build"
    ;;
  test)
    cd "$build"
    ctest --output-on-failure -j "$jobs"
    ;;
  *)
    echo "usage: $0 example|test" >&2
    exit 2
    ;;
esac
