// hmo pack FILE.csv [--algorithm NAME | --capacity N] [--alignment N] [-o OUT]:
// packs a buffer-lifetime instance in MiniMalloc's CSV format with a heap
// algorithm, or decides whether it fits a capacity (DecideTightPacking),
// validates the plan and writes the CSV with an `offset` column; the outcome,
// height, lower bound and time go to stderr. A decision that finds no
// placement writes nothing and exits 1.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "argument_parser.h"
#include "atomic_file.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/analysis/buffer_packing_csv.h"
#include "hmo/analysis/heap_packing_problem.h"
#include "hmo/base/status_macros.h"
#include "hmo/analysis/tight_packing_solver.h"
#include "logging_options.h"
#include "terminal_progress.h"
#include "spdlog/spdlog.h"
#include "subcommand.h"

namespace hmo::cli {
namespace {

// The default node budget of --capacity and --algorithm tight: every
// MiniMalloc challenging instance is decided well within it (at most 317,165
// nodes), and tight, which spends half of it at the lower bound first, reaches
// the lower bound wherever it is the optimum (bench/memory_plan/README.md).
constexpr int64_t kSearchNodeBudget = 1'000'000;

// With no --algorithm, the tight search follows the default algorithm on
// instances of at most this many buffers (its node budget bounds the
// branching, not the cost of a node, which grows with the instance).
constexpr size_t kMaxDefaultSearchBuffers = 5'000;

// Writes `csv` to `output` (atomically) or stdout.
int WriteCsv(const std::string& output, const std::string& csv) {
  if (output.empty()) {
    fmt::print("{}", csv);
    return kExitOk;
  }
  absl::Status written = WriteFileAtomically(output, csv);
  if (!written.ok()) {
    spdlog::error("{}", std::string(written.message()));
    return kExitFailure;
  }
  return kExitOk;
}

// --capacity: the decision search. Only a found placement, validated, is
// written; infeasible and aborted exit 1 with nothing written.
int RunDecision(const std::string& file, const PackingInstance& instance, int64_t capacity,
                int64_t alignment, const TightPackingOptions& options, const std::string& output) {
  const auto begin = std::chrono::steady_clock::now();
  const TightPackingDecision decision =
      DecideTightPacking(ToHeapPackingProblem(instance, alignment), capacity, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const std::string head = fmt::format("{}: {} buffers, capacity {}", file, instance.size(), capacity);
  if (decision.outcome == TightPackingOutcome::kInfeasible) {
    fmt::print(stderr, "{}: infeasible (proven by {}), lower bound {}, {} nodes, {:.3f} s\n", head,
               decision.method, decision.lower_bound, decision.nodes, seconds);
    return kExitFailure;
  }
  if (decision.outcome == TightPackingOutcome::kAborted) {
    fmt::print(stderr, "{}: aborted ({}), lower bound {}, {} nodes, {:.3f} s\n", head,
               decision.method, decision.lower_bound, decision.nodes, seconds);
    return kExitFailure;
  }
  int64_t height = 0;
  for (size_t i = 0; i < instance.size(); ++i) {
    if (instance[i].size > 0) height = std::max(height, decision.offsets[i] + instance[i].size);
  }
  // The search's own bookkeeping is not trusted: check the plan independently.
  if (absl::Status valid = ValidatePacking(instance, decision.offsets, alignment); !valid.ok()) {
    spdlog::error("{}: the decision search produced an invalid plan: {}", file,
                  std::string(valid.message()));
    return kExitFailure;
  }
  if (height > capacity) {
    spdlog::error("{}: the decision search produced height {} over the capacity", file, height);
    return kExitFailure;
  }
  fmt::print(stderr, "{}: found (by {}), height {}, lower bound {}, {} nodes, {:.3f} s\n", head,
             decision.method, height, decision.lower_bound, decision.nodes, seconds);
  return WriteCsv(output, WriteMiniMallocCsv(instance, decision.offsets));
}

// A non-negative integer option; false (after the error) when it is not one.
bool ParseCount(const std::string& flag, const std::string& text, int64_t& value) {
  if (!absl::SimpleAtoi(text, &value) || value < 0) {
    spdlog::error("{} takes a non-negative integer, got '{}'", flag, text);
    return false;
  }
  return true;
}

// --algorithm tight: SolveTightPacking from XLA's best-fit placement, on the
// instance in its own time (TightPackingHeap sees only the order of the heap
// events, and the search's W and A preorder keys need real lifespans).
absl::StatusOr<PackingResult> PackTight(const PackingInstance& instance, int64_t alignment,
                                        const TightPackingOptions& options,
                                        TightPackingReport& report) {
  const auto begin = std::chrono::steady_clock::now();
  HMO_ASSIGN_OR_RETURN(PackingResult result, PackBuffers(instance, "best-fit", alignment));
  result.algorithm = "tight";
  const HeapPackingProblem problem = ToHeapPackingProblem(instance, alignment);
  result.offsets = SolveTightPacking(problem, std::move(result.offsets), options, &report);
  result.height = HeapPackingHeight(problem, result.offsets);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  HMO_RETURN_IF_ERROR(ValidatePacking(instance, result.offsets, alignment));
  return result;
}

int PackCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string algorithm;
  std::string alignment_text = "1";
  std::string capacity_text;
  std::string node_budget_text;
  std::string time_limit_text = "0";
  std::string output;
  LoggingOptions logging;
  ArgumentParser parser(
      "hmo pack FILE.csv [--algorithm NAME | --capacity N] [--alignment N] [-o OUT]",
      "Packs the buffers of FILE.csv (columns id,lower,upper,size; a buffer is live in\n"
      "[lower, upper)) with a heap algorithm, checks that no two buffers live at once\n"
      "overlap, and writes the CSV with an offset column to stdout or OUT. Prints the\n"
      "height, the lower bound (most bytes live at once) and the time to stderr.\n"
      "With --capacity N it decides instead whether the buffers fit in N bytes (the\n"
      "tight packer's greedy orders, then its MiniMalloc-style branch and bound within\n"
      "--node-budget nodes) and prints found, infeasible (proven) or aborted; only a\n"
      "found placement is written, otherwise it exits 1. With no --algorithm, the\n"
      "default algorithm runs, then (on instances of at most " +
          std::to_string(kMaxDefaultSearchBuffers) +
          " buffers) the tight\n"
          "search, and the lower placement is kept. --node-budget and --time-limit bound\n"
          "the tight search (--capacity, --algorithm tight and the default).\n"
          "Algorithms: " +
          absl::StrJoin(PackingAlgorithmNames(), ", ") + ".");
  parser.SetPositionals("FILE.csv", &files, 1, "the instance");
  parser.AddOption("--algorithm", "NAME", &algorithm,
                   "heap algorithm (default " + PackingAlgorithmNames().front() +
                       ", then the tight search; the lower stays)");
  parser.AddOption("--alignment", "N", &alignment_text, "offset alignment (default 1)");
  parser.AddOption("--capacity", "N", &capacity_text,
                   "decide whether the buffers fit in N bytes (no --algorithm)");
  parser.AddOption("--node-budget", "N", &node_budget_text,
                   fmt::format("search nodes (default {}); they decide the result",
                               kSearchNodeBudget));
  parser.AddOption("--time-limit", "S", &time_limit_text,
                   "safety cap in seconds (default 0: none; may make results machine-dependent)");
  parser.AddOption("-o,--output", "OUT", &output, "write the CSV to OUT (atomically)");
  logging.AddTo(parser);
  if (auto exit = ParseArgumentsOrExit(parser, "pack", args)) return *exit;
  logging.Apply();
  if (files.size() != 1) {
    spdlog::error("pack takes exactly one FILE.csv, got {}", files.size());
    return kExitUsage;
  }
  int64_t alignment = 0;
  if (!absl::SimpleAtoi(alignment_text, &alignment) || alignment <= 0) {
    spdlog::error("--alignment takes a positive integer, got '{}'", alignment_text);
    return kExitUsage;
  }
  const bool decide = !capacity_text.empty();
  if (decide && !algorithm.empty()) {
    spdlog::error("--capacity runs the decision search; it takes no --algorithm");
    return kExitUsage;
  }
  // No algorithm: the default one, then the tight search; the lower stays.
  const bool default_choice = !decide && algorithm.empty();
  if (algorithm.empty()) algorithm = PackingAlgorithmNames().front();
  const bool tight = !decide && algorithm == "tight";
  if (!decide && !tight && !default_choice &&
      (!node_budget_text.empty() || time_limit_text != "0")) {
    spdlog::error(
        "--node-budget and --time-limit apply to --capacity, --algorithm tight and the default");
    return kExitUsage;
  }
  int64_t capacity = 0;
  TightPackingOptions options;
  options.node_budget = kSearchNodeBudget;
  if (decide && !ParseCount("--capacity", capacity_text, capacity)) return kExitUsage;
  if (!node_budget_text.empty() &&
      !ParseCount("--node-budget", node_budget_text, options.node_budget)) {
    return kExitUsage;
  }
  if (!absl::SimpleAtod(time_limit_text, &options.time_limit_seconds) ||
      !(options.time_limit_seconds >= 0)) {
    spdlog::error("--time-limit takes a non-negative number of seconds, got '{}'",
                  time_limit_text);
    return kExitUsage;
  }
  auto instance = ReadHeapCsvFile(files.front());
  if (!instance.ok()) {
    fmt::print(stderr, "{}\n", std::string(instance.status().message()));
    return kExitFailure;
  }
  // The tight search runs seconds on hard instances: on a terminal a line
  // says so while it does, with its nodes and the best height so far.
  const std::unique_ptr<TerminalProgress> terminal = TerminalProgress::ForStderr(logging.quiet);
  options.progress = terminal.get();
  if (decide) return RunDecision(files.front(), *instance, capacity, alignment, options, output);
  const auto announce_search = [&](int64_t height) {
    if (terminal == nullptr) return;
    terminal->Update("pack", 0, 0,
                     height > 0
                         ? fmt::format("tight search (up to {} nodes) below height {}",
                                       options.node_budget, height)
                         : fmt::format("tight search (up to {} nodes)", options.node_budget));
  };
  if (tight) announce_search(0);
  TightPackingReport report;
  auto result = tight ? PackTight(*instance, alignment, options, report)
                      : PackBuffers(*instance, algorithm, alignment);
  if (!result.ok()) {
    spdlog::error("{}", std::string(result.status().message()));
    return absl::IsInvalidArgument(result.status()) &&
                   std::string(result.status().message()).rfind("unknown", 0) == 0
               ? kExitUsage
               : kExitFailure;
  }
  bool searched = tight;
  if (default_choice && instance->size() <= kMaxDefaultSearchBuffers &&
      result->height > result->lower_bound) {
    TightPackingReport search_report;
    announce_search(result->height);
    absl::StatusOr<PackingResult> search = PackTight(*instance, alignment, options, search_report);
    if (!search.ok()) {
      spdlog::error("{}", std::string(search.status().message()));
      return kExitFailure;
    }
    const double both_seconds = result->seconds + search->seconds;
    if (search->height < result->height) {
      search->algorithm =
          fmt::format("{}, then tight (lower than its {})", result->algorithm, result->height);
      result = std::move(search);
      report = search_report;
      searched = true;
    } else {
      result->algorithm =
          fmt::format("{} (tight: {}, not lower)", result->algorithm, search->height);
    }
    result->seconds = both_seconds;
  }
  if (terminal != nullptr) terminal->Done();
  const double over =
      result->lower_bound > 0
          ? 100.0 * static_cast<double>(result->height - result->lower_bound) / result->lower_bound
          : 0.0;
  const std::string search = searched
                                 ? fmt::format(" ({}, {} nodes{})", report.method, report.nodes,
                                               report.proven_optimal ? ", optimal" : "")
                                 : "";
  fmt::print(stderr,
             "{}: {} buffers, algorithm {}: height {}, lower bound {} (+{:.2f}%), {:.3f} s{}\n",
             files.front(), instance->size(), result->algorithm, result->height,
             result->lower_bound, over, result->seconds, search);
  return WriteCsv(output, WriteMiniMallocCsv(*instance, result->offsets));
}

const SubcommandRegistration kPack{
    {"pack", "pack a MiniMalloc CSV buffer-lifetime instance with a heap algorithm", &PackCommand}};

}  // namespace
}  // namespace hmo::cli
