// Heap-packing benchmark over the public buffer-packing instances of
// MiniMalloc and idealloc (see bench/minimalloc/README.md).
//
// For each instance: the lower bound (most bytes live at once), the heap size
// of XLA's GlobalDecreasingSizeBestFitHeap (kSpatial, best fit) and of
// TightPackingHeap, their ratios and times; then a summary line with the
// geometric means of ours / best-fit and ours / lower bound. Every placement
// is checked with ValidateHeapSimulatorResult.
//
// Flags (besides Google Benchmark's):
//   --data_dir=DIR     where challenging/, examples/, realworld/ live
//                      (default: bench/minimalloc/data, then the large
//                      realworld files from ../shared/bench/minimalloc)
//   --node_budget=N    TightPackingOptions::node_budget
//   --time_limit=SEC   TightPackingOptions::time_limit_seconds (default 0)
//   --repair=N         TightPackingOptions::repair_attempts
//   --only=SUBSTR      run only instances whose name contains SUBSTR
//   --alignment=N      heap alignment (default 1)

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "hmo/analysis/best_fit_heap.h"
#include "hmo/analysis/heap_packing_csv.h"
#include "hmo/analysis/heap_result_validator.h"
#include "hmo/analysis/tight_packing_heap.h"

namespace {

using hmo::HeapEventLog;

struct Instance {
  std::string name;
  std::string path;
};

struct Row {
  std::string name;
  size_t buffers = 0;
  int64_t lower_bound = 0;
  int64_t best_fit = 0;
  int64_t ours = 0;
  double best_fit_seconds = 0;
  double ours_seconds = 0;
  std::string method;
  bool optimal = false;
  bool valid = true;
};

struct Flags {
  std::string data_dir;
  std::string shared_dir = std::string(HMO_SOURCE_DIR) + "/../shared/bench/minimalloc";
  int64_t node_budget = hmo::TightPackingOptions{}.node_budget;
  double time_limit = 0;
  int64_t repair = hmo::TightPackingOptions{}.repair_attempts;
  std::string only;
  int64_t alignment = 1;
};

Flags g_flags;
std::vector<Row> g_rows;

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::vector<Instance> FindInstances() {
  namespace fs = std::filesystem;
  std::vector<Instance> instances;
  const std::vector<std::string> roots =
      g_flags.data_dir.empty()
          ? std::vector<std::string>{std::string(HMO_SOURCE_DIR) + "/bench/minimalloc/data",
                                     g_flags.shared_dir}
          : std::vector<std::string>{g_flags.data_dir};
  std::vector<std::string> seen;
  for (const std::string& root : roots) {
    for (const char* group : {"examples", "challenging", "realworld"}) {
      const fs::path dir = fs::path(root) / group;
      if (!fs::is_directory(dir)) continue;
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".csv") files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& file : files) {
        const std::string name = std::string(group) + "/" + file.filename().string();
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
        if (!g_flags.only.empty() && name.find(g_flags.only) == std::string::npos) continue;
        seen.push_back(name);
        instances.push_back({name, file.string()});
      }
    }
  }
  return instances;
}

void RunInstance(benchmark::State& state, const Instance& instance) {
  auto buffers = hmo::ReadHeapCsvFile(instance.path);
  if (!buffers.ok()) {
    state.SkipWithError(std::string(buffers.status().message()).c_str());
    return;
  }
  const HeapEventLog<int32_t> events = hmo::HeapEventsFromCsvBuffers(*buffers);
  Row row;
  row.name = instance.name;
  row.buffers = buffers->size();
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    hmo::GlobalDecreasingSizeBestFitHeap<int32_t> best_fit(g_flags.alignment);
    events.Replay(best_fit);
    auto best_fit_result = best_fit.Finish();
    const auto t1 = std::chrono::steady_clock::now();
    hmo::TightPackingOptions options;
    options.node_budget = g_flags.node_budget;
    options.time_limit_seconds = g_flags.time_limit;
    options.repair_attempts = g_flags.repair;
    hmo::TightPackingHeap<int32_t> tight(g_flags.alignment, options);
    events.Replay(tight);
    auto tight_result = tight.Finish();
    const auto t2 = std::chrono::steady_clock::now();
    if (!best_fit_result.ok() || !tight_result.ok()) {
      state.SkipWithError("heap algorithm failed");
      return;
    }
    row.best_fit = best_fit_result->heap_size;
    row.ours = tight_result->heap_size;
    row.lower_bound = tight.report().lower_bound;
    row.best_fit_seconds = Seconds(t1 - t0);
    row.ours_seconds = Seconds(t2 - t1);
    row.method = tight.report().method;
    row.optimal = tight.report().proven_optimal;
    row.valid =
        hmo::ValidateHeapSimulatorResult(events, *best_fit_result, g_flags.alignment).ok() &&
        hmo::ValidateHeapSimulatorResult(events, *tight_result, g_flags.alignment).ok();
  }
  state.counters["lower_bound"] = static_cast<double>(row.lower_bound);
  state.counters["best_fit"] = static_cast<double>(row.best_fit);
  state.counters["ours"] = static_cast<double>(row.ours);
  state.counters["ours_over_best_fit"] =
      static_cast<double>(row.ours) / static_cast<double>(row.best_fit);
  state.counters["ours_over_lower_bound"] =
      static_cast<double>(row.ours) / static_cast<double>(row.lower_bound);
  g_rows.push_back(row);
}

void PrintSummary() {
  std::printf("\n%-28s %7s %16s %16s %16s %9s %9s %8s %8s  %s\n", "instance", "buffers",
              "lower_bound", "best_fit", "ours", "bf/lb", "ours/lb", "bf_s", "ours_s",
              "method");
  double log_vs_best_fit = 0;
  double log_vs_lower_bound = 0;
  int valid = 0;
  for (const Row& row : g_rows) {
    const double bf_lb = static_cast<double>(row.best_fit) / static_cast<double>(row.lower_bound);
    const double ours_lb = static_cast<double>(row.ours) / static_cast<double>(row.lower_bound);
    std::printf("%-28s %7zu %16lld %16lld %16lld %9.4f %9.4f %8.2f %8.2f  %s%s%s\n",
                row.name.c_str(), row.buffers, static_cast<long long>(row.lower_bound),
                static_cast<long long>(row.best_fit), static_cast<long long>(row.ours), bf_lb,
                ours_lb, row.best_fit_seconds, row.ours_seconds, row.method.c_str(),
                row.optimal ? " (optimal)" : "", row.valid ? "" : " INVALID");
    log_vs_best_fit += std::log(static_cast<double>(row.ours) / static_cast<double>(row.best_fit));
    log_vs_lower_bound += std::log(ours_lb);
    valid += row.valid ? 1 : 0;
  }
  const double count = static_cast<double>(std::max<size_t>(1, g_rows.size()));
  std::printf(
      "\nSUMMARY instances=%zu valid=%d geomean(ours/best_fit)=%.4f "
      "geomean(ours/lower_bound)=%.4f\n",
      g_rows.size(), valid, std::exp(log_vs_best_fit / count),
      std::exp(log_vs_lower_bound / count));
}

bool ParseFlag(const char* arg, const char* name, std::string& value) {
  const std::string prefix = std::string("--") + name + "=";
  if (std::string(arg).rfind(prefix, 0) != 0) return false;
  value = std::string(arg).substr(prefix.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    std::string value;
    if (ParseFlag(argv[i], "data_dir", value)) {
      g_flags.data_dir = value;
    } else if (ParseFlag(argv[i], "node_budget", value)) {
      g_flags.node_budget = std::atoll(value.c_str());
    } else if (ParseFlag(argv[i], "time_limit", value)) {
      g_flags.time_limit = std::atof(value.c_str());
    } else if (ParseFlag(argv[i], "repair", value)) {
      g_flags.repair = std::atoll(value.c_str());
    } else if (ParseFlag(argv[i], "only", value)) {
      g_flags.only = value;
    } else if (ParseFlag(argv[i], "alignment", value)) {
      g_flags.alignment = std::atoll(value.c_str());
    } else {
      std::fprintf(stderr, "unknown flag: %s\n", argv[i]);
      return 2;
    }
  }
  for (const Instance& instance : FindInstances()) {
    benchmark::RegisterBenchmark(instance.name.c_str(), RunInstance, instance)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  PrintSummary();
  return 0;
}
