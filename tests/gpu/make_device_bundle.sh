#!/usr/bin/env bash
# Packs a prebuilt hmo for the GPU device machine, which cannot build hmo:
# it has CUDA, CMake and ninja but none of LLVM 14, Abseil, yaml-cpp,
# spdlog, Boost or OpenBLAS, and no network. Run it HERE (the build
# machine), then hand the tarball to the device run:
#
#   tests/gpu/make_device_bundle.sh                # -> build-device-bundle/hmo-gpu-bundle.tar.xz
#   (device tool) run: carry ["build-device-bundle"],
#     command: tests/gpu/run_gpu_checks.sh
#
# The bundle mirrors a build directory anchored at $HMO_DEVICE_ANCHOR/build
# (default /work/main, where the tests' compiled-in paths point):
#   build/bin/            hmo, the GPU test binaries, the pool benchmark
#   build/lib/            libhmo_framework, lib/hmo/plugins/*.so, the blas
#                         tests' stand-in cuBLAS libraries
#   build/sysroot-lib/    every shared library they need, glibc and its
#                         loader included, so the device's own libraries
#                         (other versions, or none) do not matter
#   build/share/          libdevice.10.bc
# Every ELF file's RUNPATH is set to sysroot-lib and lib, every
# executable's interpreter to the bundled loader (patchelf), and debug info
# is stripped to fit the device tool's 64 MiB. The CUDA driver (libcuda)
# stays the device's. run_gpu_checks.sh unpacks it (and links the anchor to
# the checkout when they differ).
#
# Environment: HMO_BUILD_DIR (default build), HMO_DEVICE_ANCHOR (default
# /work/main), JOBS (default 2).

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${HMO_BUILD_DIR:-$ROOT/build}
ANCHOR=${HMO_DEVICE_ANCHOR:-/work/main}
OUTDIR=${1:-$ROOT/build-device-bundle}
JOBS=${JOBS:-2}

command -v patchelf > /dev/null || apt-get install -y -qq --no-install-recommends patchelf
command -v xz > /dev/null || apt-get install -y -qq --no-install-recommends xz-utils

PLUGINS=(hmo_aliasing hmo_placement hmo_propagation hmo_scheduler hmo_cpu_backend hmo_gpu_backend
         hmo_list_strategy hmo_dfs_strategy hmo_post_order_strategy hmo_bfs_strategy
         hmo_local_search_strategy hmo_exact_strategy)
BINARIES=(hmo hmo_gpu_runtime_tests hmo_gpu_codegen_tests hmo_gpu_compiler_tests hmo_gpu_nccl_tests
          hmo_gpu_blas_tests hmo_gpu_host_memory_pool_bench)
ninja -C "$BUILD" -j "$JOBS" "${BINARIES[@]}" "${PLUGINS[@]}"

STAGE=$OUTDIR/stage
rm -rf "$STAGE"
mkdir -p "$STAGE/build/bin" "$STAGE/build/lib/hmo/plugins" "$STAGE/build/sysroot-lib" "$STAGE/build/share"
for binary in "${BINARIES[@]}"; do cp "$BUILD/bin/$binary" "$STAGE/build/bin/"; done
cp -a "$BUILD"/lib/libhmo_framework.so* "$STAGE/build/lib/"
# The stand-in cuBLAS libraries hmo_gpu_blas_tests loads by their build path.
cp "$BUILD"/lib/libhmo_gpu_blas_fake_cublas_*.so "$STAGE/build/lib/"
for plugin in "${PLUGINS[@]}"; do cp "$BUILD/lib/hmo/plugins/lib$plugin.so" "$STAGE/build/lib/hmo/plugins/"; done
cp "${CUDAToolkit_ROOT:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc" "$STAGE/build/share/"

# Every library any of them loads (ldd resolves transitively), by soname.
mapfile -t ELVES < <(find "$STAGE/build/bin" "$STAGE/build/lib" -type f)
for elf in "${ELVES[@]}"; do
  ldd "$elf" | awk '/=> \// {print $1, $3} /^\t\/.*ld-linux/ {print "LOADER", $1}'
done | sort -u | while read -r soname path; do
  if [[ $soname == LOADER ]]; then
    cp -L "$path" "$STAGE/build/sysroot-lib/$(basename "$path")"
  elif [[ $path != "$BUILD"/* ]]; then
    cp -L "$path" "$STAGE/build/sysroot-lib/$soname"
  fi
done
chmod u+w "$STAGE"/build/sysroot-lib/*

LOADER=$(cd "$STAGE/build/sysroot-lib" && ls ld-linux-*.so.* | head -1)
RUNPATH="$ANCHOR/build/sysroot-lib:$ANCHOR/build/lib"
for elf in "$STAGE"/build/bin/* "$STAGE"/build/lib/libhmo_*.so* "$STAGE"/build/lib/hmo/plugins/*.so \
           "$STAGE"/build/sysroot-lib/*; do
  [[ -L $elf ]] && continue
  case $(basename "$elf") in ld-linux-*|libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*) continue ;; esac
  strip --strip-debug "$elf" 2> /dev/null || true
  patchelf --set-rpath "$RUNPATH" "$elf"
done
for binary in "$STAGE"/build/bin/*; do
  patchelf --set-interpreter "$ANCHOR/build/sysroot-lib/$LOADER" "$binary"
done
# What the bundle was made from, for the device log.
{
  echo "made $(date -u +%FT%TZ) from $(git -C "$ROOT" rev-parse --short HEAD) ($(git -C "$ROOT" status --porcelain | wc -l) uncommitted changes)"
  echo "anchor $ANCHOR"
  ls -l "$STAGE/build/sysroot-lib"
} > "$STAGE/build/BUNDLE.txt"

mkdir -p "$OUTDIR"
tar -C "$STAGE" -cf - build | xz -T "$JOBS" -9 > "$OUTDIR/hmo-gpu-bundle.tar.xz"
rm -rf "$STAGE"
ls -l "$OUTDIR/hmo-gpu-bundle.tar.xz"
