#!/usr/bin/env bash
# Installs the hmo build to a temporary prefix, builds examples/custom-scheduler
# (C ABI) and examples/custom-pass (a C pass alone, on the C ABI; then with the
# C++ pass, on the C++ SDK) against the installed SDK (find_package(hmo)), and
# runs the installed hmo with each: a YAML pipeline that selects the example's
# strategy, and the example's passes.
#   usage: sdk_install_test.sh BUILD_DIR SOURCE_DIR CMAKE CXX_COMPILER
set -euo pipefail
build=$1
source=$2
cmake=$3
cxx=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

echo "== install to $prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/hmo"
test -f "$prefix/include/hmo/plugin/scheduler_strategy_abi.h"
test -f "$prefix/lib/cmake/hmo/hmoConfig.cmake"
ls "$prefix"/lib/libhmo_framework.so* >/dev/null

echo "== build the example against the installed SDK"
# A C-only consumer must not need hmo's C++ dependencies: hide them.
"$cmake" -S "$source/examples/custom-scheduler" -B "$work/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_DISABLE_FIND_PACKAGE_absl=TRUE -DCMAKE_DISABLE_FIND_PACKAGE_fmt=TRUE \
  -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=TRUE >/dev/null
"$cmake" --build "$work/example" >/dev/null
plugin=$work/example/libhmo_custom_scheduler.so
test -f "$plugin"
# A C-ABI plugin needs nothing from libhmo_framework.so and exports one symbol.
if readelf -d "$plugin" | grep -q hmo_framework; then
  echo "FAIL: the C-ABI example links libhmo_framework" >&2; exit 1
fi
exported=$(nm -D --defined-only "$plugin" | awk '$2 == "T" {print $3}')
if [ "$exported" != "hmoGetPluginInfo" ]; then
  echo "FAIL: the example exports '$exported', expected only hmoGetPluginInfo" >&2; exit 1
fi

hmo=$prefix/bin/hmo
echo "== the installed hmo lists the example's strategy"
HMO_PLUGIN_PATH= "$hmo" plugins --plugin-dir "$work/example" | tee "$work/plugins.txt"
grep -Eq "custom-scheduler 1.0.0 \(C plugin, ABI 1\.[0-9]+\)" "$work/plugins.txt"
grep -Eq "strategies: +random-topological-order" "$work/plugins.txt"
# The strategy declares its option (ABI 1.3): listed, and checked by the host.
HMO_PLUGIN_PATH= "$hmo" passes random-topological-order --plugin-dir "$work/example" \
  | tee "$work/strategy-options.txt"
grep -q "seed: int (default 1)" "$work/strategy-options.txt"

# Everything but the example comes from the installed tree (the memory
# scheduler pass included).
run() {
  HMO_PLUGIN_PATH= "$hmo" run "$1" "$source/tests/cli/data/wide.hlo" \
    --plugin-dir "$work/example" -o "$2"
}
echo "== the installed hmo runs a YAML pipeline selecting the strategy"
pipeline=$source/tests/cli/data/custom_scheduler.yaml
run "$pipeline" "$work/seed42.hlo"
grep -q "is_scheduled=true" "$work/seed42.hlo"
"$hmo" verify "$work/seed42.hlo"
run "$pipeline" "$work/seed42-again.hlo"
cmp "$work/seed42.hlo" "$work/seed42-again.hlo"

echo "== a seed that is not an integer is refused before any scheduling"
sed 's/seed=42/seed=forty-two/' "$pipeline" > "$work/bad-seed.yaml"
if run "$work/bad-seed.yaml" "$work/bad-seed.hlo" 2>"$work/bad-seed.txt"; then
  echo "FAIL: a non-integer seed was accepted" >&2; exit 1
fi
grep -q "scheduler strategy 'random-topological-order'" "$work/bad-seed.txt"
test ! -e "$work/bad-seed.hlo"

echo "== a different seed gives a different (still valid) schedule"
sed 's/seed=42/seed=7/' "$pipeline" > "$work/seed7.yaml"
run "$work/seed7.yaml" "$work/seed7.hlo"
"$hmo" verify "$work/seed7.hlo"
if cmp -s "$work/seed42.hlo" "$work/seed7.hlo"; then
  echo "FAIL: seeds 42 and 7 gave the same schedule" >&2; exit 1
fi
echo "== build the C pass example alone, without hmo's C++ dependencies"
# With clang (installed by scripts/bootstrap.sh test), as C99 linked with
# -nostdlib++; GCC before 13 has no -nostdlib++ (the check below holds anyway).
c_compiler=()
if command -v clang-14 >/dev/null; then c_compiler=(-DCMAKE_C_COMPILER=clang-14); fi
"$cmake" -S "$source/examples/custom-pass" -B "$work/c-pass" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release -DHMO_EXAMPLE_CXX_PASS=OFF \
  "${c_compiler[@]}" \
  -DCMAKE_DISABLE_FIND_PACKAGE_absl=TRUE -DCMAKE_DISABLE_FIND_PACKAGE_fmt=TRUE \
  -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=TRUE >/dev/null
"$cmake" --build "$work/c-pass" -- -v > "$work/c-pass-build.txt"
grep -q -- "-std=c99" "$work/c-pass-build.txt"
if [ ${#c_compiler[@]} -gt 0 ]; then grep -q -- "-nostdlib++" "$work/c-pass-build.txt"; fi
c_pass=$work/c-pass/libhmo_custom_c_pass.so
test -f "$c_pass"
test ! -e "$work/c-pass/libhmo_custom_pass.so"
# A C pass links neither hmo nor a C++ library, and exports one symbol.
if readelf -d "$c_pass" | grep -Eq "hmo_framework|libstdc\+\+|libc\+\+"; then
  echo "FAIL: the C pass links hmo or a C++ library:" >&2; readelf -d "$c_pass" >&2; exit 1
fi
exported=$(nm -D --defined-only "$c_pass" | awk '$2 == "T" {print $3}')
if [ "$exported" != "hmoGetPluginInfo" ]; then
  echo "FAIL: the C pass exports '$exported', expected only hmoGetPluginInfo" >&2; exit 1
fi
HMO_PLUGIN_PATH= "$hmo" plugins --plugin-dir "$work/c-pass" | tee "$work/c-pass-plugins.txt"
grep -Eq "custom-c-pass 1.0.0 \(C plugin, ABI 1\.[0-9]+\)" "$work/c-pass-plugins.txt"
grep -Eq "passes: +prefix-names" "$work/c-pass-plugins.txt"
HMO_PLUGIN_PATH= "$hmo" passes --plugin-dir "$work/c-pass" | grep -A3 "^prefix-names" \
  | tee "$work/c-pass-passes.txt"
grep -q "prefix" "$work/c-pass-passes.txt"

echo "== the installed hmo runs the C pass in a pipeline"
module=$source/tests/hlo/if_conditional.hlo
HMO_PLUGIN_PATH= "$hmo" run "$module" --plugin-dir "$work/c-pass" \
  "--passes=prefix-names{prefix=x_}" -o "$work/prefixed.hlo"
"$hmo" verify "$work/prefixed.hlo"
grep -q "^ENTRY x_" "$work/prefixed.hlo"
if grep -E "^ *(ROOT )?[a-z]" "$work/prefixed.hlo" | grep -Ev "^ *(ROOT )?x_|^HloModule|^ENTRY" | grep -q .; then
  echo "FAIL: prefix-names left a name without its prefix" >&2; exit 1
fi
# The host types the option: a list is not a string.
if HMO_PLUGIN_PATH= "$hmo" run "$module" --plugin-dir "$work/c-pass" \
     "--passes=prefix-names{prefix=[a,b]}" -o "$work/bad-prefix.hlo" 2>"$work/bad-prefix.txt"; then
  echo "FAIL: a list was accepted for a string option" >&2; exit 1
fi
test ! -e "$work/bad-prefix.hlo"
cat "$work/bad-prefix.txt"

echo "== build the C++ pass example against the installed SDK"
"$cmake" -S "$source/examples/custom-pass" -B "$work/pass" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
"$cmake" --build "$work/pass" >/dev/null
pass_plugin=$work/pass/libhmo_custom_pass.so
test -f "$pass_plugin"
exported=$(nm -D --defined-only "$pass_plugin" | awk '$2 == "T" {print $3}')
if [ "$exported" != "hmoGetPluginInfo" ]; then
  echo "FAIL: the C++ example exports '$exported', expected only hmoGetPluginInfo" >&2; exit 1
fi
HMO_PLUGIN_PATH= "$hmo" plugins --plugin-dir "$work/pass" | tee "$work/pass-plugins.txt"
grep -Eq "custom-pass 1.0.0 \(C\+\+ plugin, ABI 1\.[0-9]+\)" "$work/pass-plugins.txt"
grep -Eq "passes: +strip-attributes" "$work/pass-plugins.txt"

echo "== the installed hmo runs the example's pass"
grep -q "metadata=" "$module"
HMO_PLUGIN_PATH= "$hmo" run "$module" --plugin-dir "$work/pass" --passes=strip-attributes \
  -o "$work/stripped.hlo"
"$hmo" verify "$work/stripped.hlo"
if grep -q "metadata=" "$work/stripped.hlo"; then
  echo "FAIL: strip-attributes left metadata behind" >&2; exit 1
fi
# The option is typed and validated by the host: a list of names.
HMO_PLUGIN_PATH= "$hmo" run "$module" --plugin-dir "$work/pass" \
  "--passes=strip-attributes{names=[sharding]}" -o "$work/kept.hlo"
grep -q "metadata=" "$work/kept.hlo"
if HMO_PLUGIN_PATH= "$hmo" run "$module" --plugin-dir "$work/pass" \
     "--passes=strip-attributes{names=true,colour=red}" -o "$work/bad.hlo" 2>"$work/bad.txt"; then
  echo "FAIL: an unknown option was accepted" >&2; exit 1
fi
test ! -e "$work/bad.hlo"
cat "$work/bad.txt"
echo "PASS"
