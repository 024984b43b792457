// The scheduler benchmark: every module of an HLO directory plus generated
// families (MLP training steps, attention blocks, wide fan-out, while loops),
// each scheduled by every strategy plugin, the module peak measured by the
// heap simulator (what the memory-scheduler pass compares).
//
// Per module it prints the peak of each of XLA's strategies (list, dfs,
// post-order, bfs), XLA's default (the lowest of list, dfs, post-order; ties
// in that order), ours (the memory-scheduler pass's default: the lowest of
// those and our local-search strategy), the exact optimum when the module is
// one computation (apart from reduction computations) small enough for the
// exact search to finish, and scheduling times (XLA's: its three strategies;
// ours: the whole pass); then the geometric mean of ours / XLA's default.
//
//   hmo_scheduler_bench [--hlo-dir DIR] [--plugin-dir DIR] [--large N] [--no-generated]

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/exact_scheduler.h"
#include "core/memory_model.h"
#include "core/module_views.h"
#include "core/schedule_improver.h"
#include "fmt/format.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/strategy_host/scheduler_strategy_adapter.h"
#include "hmo/strategy_host/scheduling_view.h"
#include "hmo/text/hlo_parser.h"
#include "module_families.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "pass/memory_scheduler.h"
#include "spdlog/spdlog.h"

namespace hmo::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

const std::vector<std::string> kXlaStrategies = {"list", "dfs", "post-order"};

struct Result {
  std::string name;
  std::string family;
  int64_t instructions = 0;
  std::map<std::string, int64_t> peak;    // by strategy; -1: failed
  std::map<std::string, double> seconds;  // by strategy
  int64_t xla_default = 0;
  std::string xla_choice;
  int64_t ours = 0;
  std::string our_choice;
  std::optional<int64_t> optimum;
  double xla_seconds = 0, our_seconds = 0;
};

// The exact optimum of a one-computation module, when the search proves it.
std::optional<int64_t> ProvenOptimum(const HloModule& module, const HloAliasAnalysis& alias,
                                     const scheduler::SchedulingInputs& inputs) {
  // Only the entry counts when it calls nothing through control flow
  // (reduction computations and fusions run inside one instruction's step).
  const HloComputation& computation = *module.entry_computation();
  for (const HloInstruction* instruction : computation.instructions()) {
    switch (instruction->opcode()) {
      case HloOpcode::kWhile:
      case HloOpcode::kCall:
      case HloOpcode::kConditional:
      case HloOpcode::kAsyncStart:
        return std::nullopt;
      default:
        break;
    }
  }
  if (computation.instruction_count() > scheduler::ExactProblem::kMaxInstructions) {
    return std::nullopt;
  }
  absl::StatusOr<std::unique_ptr<SchedulingView>> view =
      BuildSchedulingView(computation, inputs.may_share, &inputs.values);
  if (!view.ok()) return std::nullopt;
  absl::StatusOr<scheduler::SchedulingGraph> graph =
      scheduler::SchedulingGraph::FromView((*view)->view());
  if (!graph.ok()) return std::nullopt;
  scheduler::MemoryModel model(*graph);
  scheduler::ExactOptions options;
  options.max_states = 3'000'000;
  scheduler::ExactResult exact = scheduler::SolveExact(
      scheduler::MakeComputationProblem(model), scheduler::ImprovedSchedule(model), options);
  if (!exact.optimal) {
    spdlog::info("{}: exact search gave up after {} states", module.name(), exact.states);
    return std::nullopt;
  }
  HloSchedule schedule(&module);
  std::vector<HloInstruction*> sequence;
  for (int id : exact.order) sequence.push_back((*view)->instruction(id));
  schedule.set_sequence(&computation, sequence);
  absl::StatusOr<int64_t> peak =
      HeapSimulator::MinimumMemoryForModule(schedule, alias, ByteSizeOfValue(8));
  // The model counts one computation as the simulator does; if they ever
  // disagree, the optimum is not known.
  if (!peak.ok() || *peak != exact.peak) {
    spdlog::warn("{}: the live-byte model ({}) and the heap simulator ({}) disagree", module.name(),
                 exact.peak, peak.ok() ? *peak : -1);
    return std::nullopt;
  }
  return *peak;
}

// Runs the memory-scheduler pass (default candidates: XLA's three, then
// ours) on a copy of `module`, and bfs on its own.
absl::StatusOr<Result> Measure(const std::string& name, const std::string& family,
                               const HloModule& module, const PluginHost& host,
                               bool with_optimum) {
  Result result;
  result.name = name;
  result.family = family;
  result.instructions = module.instruction_count();
  std::unique_ptr<HloModule> copy = module.Clone();
  absl::StatusOr<PassOptions> options = MemorySchedulerPass::OptionSchema().Bind({});
  if (!options.ok()) return options.status();
  absl::StatusOr<std::unique_ptr<MemorySchedulerPass>> pass = MemorySchedulerPass::Create(*options);
  if (!pass.ok()) return pass.status();
  const auto start = Clock::now();
  {
    AnalysisManager analyses(*copy, &host.registries().analyses);
    PassContext context(analyses, host.registries());
    absl::StatusOr<bool> ran = (*pass)->Run(*copy, context);
    if (!ran.ok()) return ran.status();
  }
  result.our_seconds = Seconds(start);
  const MemorySchedulerMetrics& metrics = (*pass)->metrics();
  for (const MemorySchedulerMetrics::Candidate& c : metrics.candidates) {
    result.peak[c.strategy] = c.valid_schedule ? c.peak_memory : -1;
    result.seconds[c.strategy] = c.seconds;
  }
  result.ours = metrics.candidates[metrics.selected].peak_memory;
  result.our_choice = metrics.candidates[metrics.selected].strategy;
  result.xla_default = -1;
  for (const std::string& c : kXlaStrategies) {
    result.xla_seconds += result.seconds[c];
    if (result.peak[c] >= 0 && (result.xla_default < 0 || result.peak[c] < result.xla_default)) {
      result.xla_default = result.peak[c];
      result.xla_choice = c;
    }
  }

  absl::StatusOr<std::unique_ptr<HloAliasAnalysis>> alias = HloAliasAnalysis::Run(&module);
  if (!alias.ok()) return alias.status();
  const scheduler::SchedulingInputs inputs = scheduler::MakeSchedulingInputs(**alias);
  absl::StatusOr<HloSchedule> bfs = ScheduleModuleWithStrategy(
      module, host.registries().strategies, "bfs", {}, inputs.may_share, &inputs.values);
  if (!bfs.ok()) return bfs.status();
  absl::StatusOr<int64_t> bfs_peak =
      HeapSimulator::MinimumMemoryForModule(*bfs, **alias, ByteSizeOfValue(8));
  if (!bfs_peak.ok()) return bfs_peak.status();
  result.peak["bfs"] = *bfs_peak;
  if (with_optimum) result.optimum = ProvenOptimum(module, **alias, inputs);
  return result;
}

std::string Bytes(int64_t bytes) {
  if (bytes < 0) return "failed";
  if (bytes >= 10 * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  if (bytes >= 10 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

void PrintTable(const std::vector<Result>& results) {
  fmt::print(
      "| module | instrs | list | dfs | post-order | bfs | XLA default | ours (chosen) "
      "| ours / XLA | optimum | time XLA (s) | time ours (s) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Result& r : results) {
    fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} ({}) | {:.3f} | {} | {:.3f} | {:.3f} |\n",
               r.name, r.instructions, Bytes(r.peak.at("list")), Bytes(r.peak.at("dfs")),
               Bytes(r.peak.at("post-order")), Bytes(r.peak.at("bfs")), Bytes(r.xla_default),
               Bytes(r.ours), r.our_choice, double(r.ours) / double(r.xla_default),
               r.optimum ? Bytes(*r.optimum) : std::string("-"), r.xla_seconds, r.our_seconds);
  }
}

void PrintSummary(const std::vector<Result>& results) {
  std::map<std::string, std::pair<double, int>> by_family;
  double log_sum = 0;
  int above = 0, with_optimum = 0, within_2_percent = 0;
  for (const Result& r : results) {
    const double ratio = double(r.ours) / double(r.xla_default);
    log_sum += std::log(ratio);
    by_family[r.family].first += std::log(ratio);
    by_family[r.family].second += 1;
    above += r.ours > r.xla_default;
    if (r.optimum) {
      ++with_optimum;
      within_2_percent += r.ours <= *r.optimum * 1.02;
    }
  }
  fmt::print("\n");
  for (const auto& [family, sum] : by_family) {
    fmt::print("family {:<12} modules {:>3}  geomean ours / XLA default = {:.4f}\n", family,
               sum.second, std::exp(sum.first / sum.second));
  }
  fmt::print("modules where ours > XLA default: {}\n", above);
  fmt::print("modules with a proven optimum: {}, ours within 2% of it: {}\n", with_optimum,
             within_2_percent);
  fmt::print("SUMMARY: {} modules, geometric-mean peak ours / XLA default = {:.4f}\n",
             results.size(), std::exp(log_sum / results.size()));
}

int Main(int argc, char** argv) {
  std::filesystem::path hlo_dir = std::filesystem::path(HMO_SOURCE_DIR) / "tests" / "hlo";
  std::filesystem::path plugin_dir = HMO_TEST_PLUGIN_DIR;
  int large = 0;
  bool generated = true, verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--hlo-dir" && i + 1 < argc) {
      hlo_dir = argv[++i];
    } else if (arg == "--plugin-dir" && i + 1 < argc) {
      plugin_dir = argv[++i];
    } else if (arg == "--large" && i + 1 < argc) {
      large = std::stoi(argv[++i]);
    } else if (arg == "--no-generated") {
      generated = false;
    } else if (arg == "-v") {
      verbose = true;
    } else {
      fmt::print(stderr, "usage: {} [--hlo-dir DIR] [--plugin-dir DIR] [--large LAYERS] "
                         "[--no-generated] [-v]\n", argv[0]);
      return 2;
    }
  }
  spdlog::set_level(verbose ? spdlog::level::info : spdlog::level::warn);
  PluginHost host;
  for (const char* strategy : {"list", "dfs", "post_order", "bfs", "local_search", "exact"}) {
    absl::Status status =
        host.LoadPlugin(plugin_dir / fmt::format("libhmo_{}_strategy.so", strategy));
    if (!status.ok()) {
      fmt::print(stderr, "error: {}\n", std::string(status.message()));
      return 1;
    }
  }

  std::vector<Result> results;
  auto run = [&](const std::string& name, const std::string& family, HloModule& module) {
    absl::StatusOr<Result> result = Measure(name, family, module, host, /*with_optimum=*/true);
    if (!result.ok()) {
      fmt::print(stderr, "{}: error: {}\n", name, std::string(result.status().message()));
      return;
    }
    fmt::print(stderr, "{}: XLA {} ({}), ours {} ({})\n", name, result->xla_default,
               result->xla_choice, result->ours, result->our_choice);
    results.push_back(*std::move(result));
  };

  if (!hlo_dir.empty()) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(hlo_dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".hlo" || ext == ".txt") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> modules =
          ParseHloModulesFile(file.string());
      if (!modules.ok()) {
        fmt::print(stderr, "{}: skipped: {}\n", file.string(),
                   std::string(modules.status().message()));
        continue;
      }
      for (size_t i = 0; i < modules->size(); ++i) {
        std::string name = file.filename().string();
        if (modules->size() > 1) name += fmt::format("#{}", i + 1);
        run(name, "xla-corpus", *(*modules)[i]);
      }
    }
  }
  if (generated) {
    struct Generated {
      std::string name, family, text;
    };
    std::vector<Generated> modules;
    for (auto [layers, batch, width] : {std::tuple{4, 256, 128}, {8, 64, 256}, {16, 32, 128},
                                        {6, 512, 64}, {3, 16, 512}}) {
      modules.push_back({fmt::format("mlp-train l{} b{} w{}", layers, batch, width), "mlp-train",
                         MlpTrainStep(layers, batch, width)});
    }
    for (auto [layers, heads, seq, dim] : {std::tuple{1, 4, 256, 128}, {2, 8, 512, 256},
                                           {4, 4, 128, 128}}) {
      modules.push_back({fmt::format("attention l{} h{} s{} d{}", layers, heads, seq, dim),
                         "attention", AttentionBlocks(layers, heads, seq, dim)});
    }
    for (auto [branches, seed] : {std::pair{6, 1}, {10, 2}, {16, 3}, {24, 4}}) {
      modules.push_back({fmt::format("fan-out k{} s{}", branches, seed), "fan-out",
                         WideFanOut(branches, seed)});
    }
    for (auto [branches, width] : {std::pair{4, 256}, {8, 1024}, {16, 512}}) {
      modules.push_back({fmt::format("while k{} w{}", branches, width), "while",
                         WhileLoop(branches, width)});
    }
    for (const Generated& g : modules) {
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(g.text, g.name);
      if (!module.ok()) {
        fmt::print(stderr, "{}: generator error: {}\n", g.name,
                   std::string(module.status().message()));
        continue;
      }
      run(g.name, g.family, **module);
    }
  }
  PrintTable(results);
  PrintSummary(results);

  if (large > 0) {
    // Scaling: an MLP training step of `large` layers (about 17 instructions
    // per layer), scheduled the way the default pass does.
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(MlpTrainStep(large, 8, 16), "large");
    if (!module.ok()) {
      fmt::print(stderr, "large: {}\n", std::string(module.status().message()));
      return 1;
    }
    const auto start = Clock::now();
    absl::StatusOr<Result> result = Measure("large", "large", **module, host, false);
    if (!result.ok()) {
      fmt::print(stderr, "large: {}\n", std::string(result.status().message()));
      return 1;
    }
    fmt::print("\nLARGE: {} instructions; XLA default {} ({:.2f} s); ours {} ({:.2f} s); "
               "ours / XLA = {:.4f}; wall {:.2f} s\n",
               result->instructions, Bytes(result->xla_default), result->xla_seconds,
               Bytes(result->ours), result->our_seconds,
               double(result->ours) / double(result->xla_default), Seconds(start));
    for (const auto& [strategy, seconds] : result->seconds) {
      fmt::print("  {:<13} {:>10}  {:.2f} s\n", strategy, Bytes(result->peak.at(strategy)),
                 seconds);
    }
  }
  return 0;
}

}  // namespace
}  // namespace hmo::bench

int main(int argc, char** argv) { return hmo::bench::Main(argc, argv); }
