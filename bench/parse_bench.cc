// HLO text parse throughput on the largest corpus module, measured next to a
// plain copy of the same bytes in the same run; prints the ratio at the end.
//
//   hmo_parse_bench [--benchmark_filter=...]
// Reads HMO_SOURCE_DIR/tests/hlo/attention_model.hlo (or the file given in
// the HMO_PARSE_BENCH_FILE environment variable).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"

namespace {

const std::string& Input() {
  static const std::string* text = [] {
    const char* env = std::getenv("HMO_PARSE_BENCH_FILE");
    std::string path = env ? env : std::string(HMO_SOURCE_DIR) + "/tests/hlo/attention_model.hlo";
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (ss.str().empty()) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      std::exit(1);
    }
    return new std::string(ss.str());
  }();
  return *text;
}

// Baseline: touch every byte once by copying the text.
void BM_CopyBytes(benchmark::State& state) {
  const std::string& text = Input();
  std::string copy;
  for (auto _ : state) {
    copy.assign(text.data(), text.size());
    benchmark::DoNotOptimize(copy.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_CopyBytes)->Unit(benchmark::kMillisecond);

void BM_ParseHloModule(benchmark::State& state) {
  const std::string& text = Input();
  for (auto _ : state) {
    auto module = hmo::ParseHloModule(text, "attention_model.hlo");
    if (!module.ok()) {
      state.SkipWithError(std::string(module.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(module->get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_ParseHloModule)->Unit(benchmark::kMillisecond);

void BM_PrintHloModule(benchmark::State& state) {
  auto module = hmo::ParseHloModule(Input(), "attention_model.hlo");
  if (!module.ok()) {
    state.SkipWithError("parse failed");
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string printed = hmo::PrintHloModule(**module);
    bytes = printed.size();
    benchmark::DoNotOptimize(printed.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}
BENCHMARK(BM_PrintHloModule)->Unit(benchmark::kMillisecond);

// Console output plus a summary: MB/s of each benchmark and parse/copy ratio.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.iterations == 0 || run.error_occurred) continue;
      // CPU time: wall time is noisy on shared build machines.
      const double seconds_per_iter = run.cpu_accumulated_time / static_cast<double>(run.iterations);
      seconds_[run.benchmark_name()] = seconds_per_iter;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    const double mb = static_cast<double>(Input().size()) / 1e6;
    auto find = [&](const char* name) -> double {
      auto it = seconds_.find(name);
      return it == seconds_.end() ? 0.0 : it->second;
    };
    const double copy = find("BM_CopyBytes");
    const double parse = find("BM_ParseHloModule");
    if (copy > 0 && parse > 0) {
      std::printf("\ninput: %.2f MB (rates from CPU time)\n", mb);
      std::printf("copy : %10.1f MB/s\n", mb / copy);
      std::printf("parse: %10.1f MB/s (%.1f ms per parse)\n", mb / parse, parse * 1e3);
      std::printf("parse is %.1fx slower than copying the bytes\n", parse / copy);
    }
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
