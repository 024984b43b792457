// HostMemoryPool acquire/release against allocating and freeing the same
// element directly from a host allocator, with the ratio printed at the end
// of the same run. The pinned variants need a CUDA device and are skipped
// (with a message) without one.

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "hmo/gpu/aligned_host_memory_allocator.h"
#include "hmo/gpu/host_memory_pool.h"
#include "hmo/gpu/pinned_host_memory_allocator.h"

namespace hmo::gpu {
namespace {

constexpr HostElementType kElementType = HostElementType::kS64;

std::unique_ptr<HostMemoryAllocator> MakeAllocator(bool pinned, benchmark::State& state) {
  if (!pinned) return std::make_unique<AlignedHostMemoryAllocator>();
  absl::StatusOr<std::unique_ptr<PinnedHostMemoryAllocator>> allocator =
      PinnedHostMemoryAllocator::Create();
  if (!allocator.ok()) {
    state.SkipWithError(std::string(allocator.status().message()).c_str());
    return nullptr;
  }
  return *std::move(allocator);
}

void BM_PoolAcquireRelease(benchmark::State& state, bool pinned) {
  std::unique_ptr<HostMemoryAllocator> allocator = MakeAllocator(pinned, state);
  if (allocator == nullptr) return;
  std::unique_ptr<HostMemoryPool> pool = *HostMemoryPool::Create(*allocator, kElementType);
  for (auto _ : state) {
    absl::StatusOr<HostMemoryPool::Handle> handle = pool->Acquire();
    benchmark::DoNotOptimize(handle->data());
  }
}

void BM_AllocatorAllocateFree(benchmark::State& state, bool pinned) {
  std::unique_ptr<HostMemoryAllocator> allocator = MakeAllocator(pinned, state);
  if (allocator == nullptr) return;
  for (auto _ : state) {
    absl::StatusOr<OwnedHostMemory> memory = allocator->Allocate(ByteWidth(kElementType));
    benchmark::DoNotOptimize(memory->data());
  }
}

BENCHMARK_CAPTURE(BM_PoolAcquireRelease, aligned, false);
BENCHMARK_CAPTURE(BM_AllocatorAllocateFree, aligned, false);
BENCHMARK_CAPTURE(BM_PoolAcquireRelease, aligned, false)->Threads(4);
BENCHMARK_CAPTURE(BM_AllocatorAllocateFree, aligned, false)->Threads(4);
BENCHMARK_CAPTURE(BM_PoolAcquireRelease, pinned, true);
BENCHMARK_CAPTURE(BM_AllocatorAllocateFree, pinned, true);

// Console output as usual, plus the wall and CPU time per iteration of every
// run, so the ratios can be printed after the runs.
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  struct Times {
    double wall_ns = 0;
    double cpu_ns = 0;
  };
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      times[run.benchmark_name()] = {run.GetAdjustedRealTime(), run.GetAdjustedCPUTime()};
    }
  }
  std::map<std::string, Times> times;
};

void PrintRatio(const RecordingReporter& reporter, const std::string& variant,
                const std::string& suffix) {
  auto pool = reporter.times.find("BM_PoolAcquireRelease/" + variant + suffix);
  auto direct = reporter.times.find("BM_AllocatorAllocateFree/" + variant + suffix);
  if (pool == reporter.times.end() || direct == reporter.times.end() ||
      pool->second.wall_ns <= 0 || pool->second.cpu_ns <= 0) {
    std::printf("%s%s: ratio not available (a variant was skipped or filtered out)\n",
                variant.c_str(), suffix.c_str());
    return;
  }
  // CPU time is the steadier measure on a loaded machine; both are shown.
  std::printf("%s%s: allocator allocate/free %.1f ns wall / %.1f ns cpu, pool acquire/release "
              "%.1f ns wall / %.1f ns cpu: pool is %.2fx faster (wall), %.2fx (cpu)\n",
              variant.c_str(), suffix.c_str(), direct->second.wall_ns, direct->second.cpu_ns,
              pool->second.wall_ns, pool->second.cpu_ns,
              direct->second.wall_ns / pool->second.wall_ns,
              direct->second.cpu_ns / pool->second.cpu_ns);
}

}  // namespace
}  // namespace hmo::gpu

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  hmo::gpu::RecordingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  hmo::gpu::PrintRatio(reporter, "aligned", "");
  hmo::gpu::PrintRatio(reporter, "aligned", "/threads:4");
  hmo::gpu::PrintRatio(reporter, "pinned", "");
  benchmark::Shutdown();
  return 0;
}
