// Scaling of the heap algorithms with the number of buffers: synthetic
// instances of 10,000 and 100,000 buffers (same distribution: random start in
// a window that grows with n so about the same number of buffers are live at
// once, random length and size), each algorithm timed on both; the summary
// prints the 100k / 10k time ratio. An O(n log n) algorithm gives about 12-15;
// O(n^2) would give about 100.
//
// The instance comparison against the MiniMalloc benchmarks is
// heap_packing_bench.cc; this file only measures growth.
//
// Flags (besides Google Benchmark's): --seed=N (default 1).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "hmo/analysis/buffer_packing_csv.h"

namespace {

uint64_t g_seed = 1;
// (algorithm, buffers) -> seconds; (algorithm, buffers) -> height / lower bound.
std::map<std::pair<std::string, int64_t>, double> g_seconds;
std::map<std::pair<std::string, int64_t>, double> g_ratio;

hmo::PackingInstance MakeInstance(int64_t buffers) {
  std::mt19937_64 random(g_seed);
  hmo::PackingInstance instance;
  instance.reserve(buffers);
  // About 100 buffers live at any time, whatever n.
  const int64_t window = buffers;
  for (int64_t i = 0; i < buffers; ++i) {
    hmo::HeapCsvBuffer buffer;
    buffer.id = std::to_string(i);
    buffer.lower = static_cast<int64_t>(random() % window);
    buffer.upper = buffer.lower + 1 + static_cast<int64_t>(random() % 200);
    buffer.size = 64 * (1 + static_cast<int64_t>(random() % 1024));
    instance.push_back(std::move(buffer));
  }
  return instance;
}

void RunScaling(benchmark::State& state, const std::string& algorithm, int64_t buffers) {
  const hmo::PackingInstance instance = MakeInstance(buffers);
  for (auto _ : state) {
    auto result = hmo::PackBuffers(instance, algorithm);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    g_seconds[{algorithm, buffers}] = result->seconds;
    g_ratio[{algorithm, buffers}] =
        static_cast<double>(result->height) / static_cast<double>(result->lower_bound);
    state.counters["height_over_lower_bound"] = g_ratio[{algorithm, buffers}];
    state.counters["solve_seconds"] = result->seconds;
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--seed=", 0) == 0) {
      g_seed = std::strtoull(arg.c_str() + 7, nullptr, 10);
    } else {
      std::fprintf(stderr, "unknown flag: %s\n", argv[i]);
      return 2;
    }
  }
  const std::vector<std::string> algorithms = {"best-fit", "best-fit-temporal", "lowest-offset",
                                               "fast-merge", "fast-split"};
  for (const std::string& algorithm : algorithms) {
    for (int64_t buffers : {int64_t{10'000}, int64_t{100'000}}) {
      benchmark::RegisterBenchmark((algorithm + "/" + std::to_string(buffers)).c_str(), RunScaling,
                                   algorithm, buffers)
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\n%-20s %12s %12s %10s %12s %12s\n", "algorithm", "10k_s", "100k_s", "ratio",
              "10k_h/lb", "100k_h/lb");
  for (const std::string& algorithm : algorithms) {
    const double small = g_seconds[{algorithm, 10'000}];
    const double large = g_seconds[{algorithm, 100'000}];
    std::printf("%-20s %12.4f %12.4f %10.2f %12.4f %12.4f\n", algorithm.c_str(), small, large,
                small > 0 ? large / small : 0.0, g_ratio[{algorithm, 10'000}],
                g_ratio[{algorithm, 100'000}]);
  }
  return 0;
}
