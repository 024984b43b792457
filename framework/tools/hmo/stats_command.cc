// hmo stats FILE [--target BACKEND] [--format table|json|html] [-o OUT]: the
// memory statistics of the modules in FILE under a target's memory model
// (buffer assignment, PJRT-style compiled memory stats, temp heaps,
// allocations, the target executable's arenas) as a table, JSON
// (docs/memory-stats-json.md) or a self-contained HTML memory timeline.

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "argument_parser.h"
#include "dump_directory.h"
#include "atomic_file.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/plugin/plugin_registries.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "logging_options.h"
#include "parallel_jobs.h"
#include "plugin_options.h"
#include "spdlog/spdlog.h"
#include "subcommand.h"
#include "verifier_diagnostics.h"

namespace hmo::cli {
namespace {

int StatsCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string format_name = "table";
  std::string output;
  std::string module_selector;
  std::string target;
  std::string pointer_size;
  std::string alignment;
  std::string heap;
  bool allocate_constants = false;
  std::string jobs;
  std::string stage_name = "after";
  PluginOptions plugin_options;
  LoggingOptions logging;
  ArgumentParser parser(
      "hmo stats FILE|DUMP_DIR [--format table|json|html] [-o OUT]",
      "Assigns buffers for the modules in FILE (under their schedule, or a post-order one when\n"
      "unscheduled) as a target's backend does (--target) and prints PJRT-style memory\n"
      "statistics: argument, output, alias, temp (device and host S(5); on an XLA dump for\n"
      "that target, XLA's memory_analysis()), the peak estimate, the temp heaps against their\n"
      "lower bound, the allocations, and the device arenas the target's executable allocates\n"
      "(the figure a memory limit bounds). A file with several modules ('// -----') gives one\n"
      "report each (JSON: an array); --format html needs a single module (see --module).\n"
      "A directory is read as an --xla_dump_to dump: each program's module at --stage\n"
      "(module_<N>.<program>.<platform>_after_optimizations.txt by default), one report each.");
  parser.SetPositionals("FILE|DUMP_DIR", &files, 1, "the HLO text file, or an XLA dump directory");
  parser.AddOption("--stage", "before|after", &stage_name,
                   "which module of each program a dump directory gives: before or after XLA's "
                   "optimizations (default after)");
  parser.AddOption("--format", "FORMAT", &format_name, "table (default), json or html");
  parser.AddOption("-o,--output", "OUT", &output, "write the report to OUT (atomically)");
  parser.AddOption("--module", "N|NAME", &module_selector,
                   "only the module with this index (from 0) or name");
  parser.AddOption("--target", "BACKEND", &target,
                   "the backend whose memory model measures (a loaded backend: cpu, gpu, ...; "
                   "'none': the module as written, alignment 1, hmo's best packing); default: gpu "
                   "when the file name says 'gpu_', else the host's cpu");
  parser.AddOption("--pointer-size", "BYTES", &pointer_size,
                   "bytes per tuple element pointer (default: the target's)");
  parser.AddOption("--alignment", "BYTES", &alignment,
                   "alignment of buffer offsets (default: the target's)");
  parser.AddOption("--heap", "ALGORITHM", &heap,
                   "temp packing: xla (XLA's best fit), search (XLA's packing search) or best "
                   "(also hmo's tight packer; never worse than xla); default: the target's");
  parser.AddFlag("--allocate-constants", &allocate_constants,
                 "give constants allocations (XLA's allocate_buffers_for_constants; the "
                 "executing targets always do)");
  plugin_options.AddTo(parser);
  parser.AddOption("-j,--jobs", "N", &jobs,
                   "assign buffers for at most N modules at once (default: all cores)");
  logging.AddTo(parser);
  if (auto exit = ParseArgumentsOrExit(parser, "stats", args)) return *exit;
  if (auto exit = CheckPluginDirectoriesOrExit(plugin_options, "stats")) return *exit;
  logging.Apply();
  if (files.size() != 1) {
    spdlog::error("stats takes exactly one FILE, got {}", files.size());
    return kExitUsage;
  }
  absl::StatusOr<DumpStage> stage = ParseDumpStage(stage_name);
  if (!stage.ok()) {
    spdlog::error("{}", std::string(stage.status().message()));
    return kExitUsage;
  }
  // The files read: FILE, or each program's module of a dump directory.
  std::vector<std::string> paths = files;
  if (std::filesystem::is_directory(files.front())) {
    absl::StatusOr<std::vector<DumpModule>> dump = FindDumpModules(files.front(), *stage);
    if (!dump.ok()) {
      spdlog::error("{}", std::string(dump.status().message()));
      return kExitFailure;
    }
    paths.clear();
    for (const DumpModule& module : *dump) paths.push_back(module.path.string());
  }
  auto format = ParseMemoryReportFormat(format_name);
  if (!format.ok()) {
    spdlog::error("{}", std::string(format.status().message()));
    return kExitUsage;
  }
  absl::StatusOr<size_t> threads = ParseJobCount(jobs);
  if (!threads.ok()) {
    spdlog::error("{}", std::string(threads.status().message()));
    return kExitUsage;
  }
  // The target's model, then the flags that override its assignment options.
  TargetMemoryModel model;
  const bool target_named = !target.empty();
  if (target.empty()) {
    target =
        std::filesystem::path(paths.front()).filename().string().find("gpu_") != std::string::npos
            ? "gpu"
            : "cpu";
  }
  if (target != "none") {
    PluginHost host;
    if (absl::Status loaded = LoadSearchPathPlugins(host, plugin_options.SearchPath());
        !loaded.ok()) {
      spdlog::warn("{}", std::string(loaded.message()));
    }
    const RegisteredBackend* backend = host.registries().backends.Find(target);
    if (backend != nullptr) {
      model = backend->registration.backend->MemoryModel();
    } else if (target_named) {
      spdlog::error("--target {}: no backend of that name is loaded (loaded: {})", target,
                    host.registries().backends.Names().empty()
                        ? std::string("none")
                        : fmt::format("{}", fmt::join(host.registries().backends.Names(), ", ")));
      return kExitUsage;
    } else {
      spdlog::warn("no backend '{}' is loaded: measuring with no target (--target none)", target);
    }
  }
  MemoryReportOptions& options = model.assignment;
  options.allocate_buffers_for_constants |= allocate_constants;
  if (!heap.empty()) {
    auto heap_algorithm = ParseTempHeapAlgorithm(heap);
    if (!heap_algorithm.ok()) {
      spdlog::error("{}", std::string(heap_algorithm.status().message()));
      return kExitUsage;
    }
    options.heap_algorithm = *heap_algorithm;
  }
  if ((!pointer_size.empty() &&
       (!absl::SimpleAtoi(pointer_size, &options.pointer_size) || options.pointer_size <= 0)) ||
      (!alignment.empty() &&
       (!absl::SimpleAtoi(alignment, &options.alignment) || options.alignment <= 0))) {
    spdlog::error("--pointer-size and --alignment take positive integers");
    return kExitUsage;
  }

  // Every module of every file read, with the file it came from.
  std::vector<std::unique_ptr<HloModule>> modules;
  std::vector<const HloModule*> selected;
  std::vector<std::string> selected_files;
  for (const std::string& path : paths) {
    auto parsed = ParseHloModulesFile(path);
    if (!parsed.ok()) {
      fmt::print(stderr, "{}\n", std::string(parsed.status().message()));
      return kExitFailure;
    }
    if (parsed->empty()) {
      fmt::print(stderr,
                 "{}:1:1: error: the file holds no HLO module (expected 'HloModule NAME')\n", path);
      return kExitFailure;
    }
    for (size_t i = 0; i < parsed->size(); ++i) {
      const HloModule* module = (*parsed)[i].get();
      if (module_selector.empty() || module_selector == std::to_string(i) ||
          module_selector == module->name()) {
        selected.push_back(module);
        selected_files.push_back(path);
      }
      modules.push_back(std::move((*parsed)[i]));
    }
  }
  if (selected.empty()) {
    spdlog::error("{}: no module matches --module {}", files.front(), module_selector);
    return kExitUsage;
  }
  // Buffer assignment assumes a well-formed module: refuse one that is not.
  for (size_t i = 0; i < selected.size(); ++i) {
    const std::vector<HloVerifierError> errors = CollectVerifierErrors(*selected[i], {});
    if (!errors.empty()) {
      fmt::print(stderr, "{}\n",
                 FormatVerifierError(selected_files[i], *selected[i], errors.front()));
      return kExitFailure;
    }
  }
  if (*format == MemoryReportFormat::kHtml && selected.size() > 1) {
    spdlog::error("{} holds {} modules; --format html needs one (use --module N)", files.front(),
                  selected.size());
    return kExitUsage;
  }

  // Modules are independent: assign their buffers in parallel, print in order.
  std::vector<absl::StatusOr<std::string>> formatted(selected.size(), std::string());
  RunJobsInParallel(
      selected.size(), *threads,
      [&](size_t i) {
        auto report = BuildTargetMemoryReport(*selected[i], model);
        if (!report.ok()) {
          formatted[i] = report.status();
          return;
        }
        formatted[i] = FormatMemoryReport(*report, *format);
      },
      /*progress=*/nullptr);
  std::string text;
  for (size_t i = 0; i < selected.size(); ++i) {
    if (!formatted[i].ok()) {
      spdlog::error("{}: module '{}': {}", selected_files[i], selected[i]->name(),
                    std::string(formatted[i].status().message()));
      return kExitFailure;
    }
    std::string one = *std::move(formatted[i]);
    if (*format == MemoryReportFormat::kJson && selected.size() > 1) {
      while (!one.empty() && one.back() == '\n') one.pop_back();
      text += (i == 0 ? "[\n" : ",\n") + one;
      if (i + 1 == selected.size()) text += "\n]\n";
    } else {
      if (i > 0) text += "\n";
      text += one;
    }
  }
  if (output.empty()) {
    fmt::print("{}", text);
    return kExitOk;
  }
  absl::Status written = WriteFileAtomically(output, text);
  if (!written.ok()) {
    spdlog::error("{}", std::string(written.message()));
    return kExitFailure;
  }
  return kExitOk;
}

const SubcommandRegistration kStats{
    {"stats", "print memory statistics of HLO modules (table, JSON, HTML timeline)",
     &StatsCommand}};

}  // namespace
}  // namespace hmo::cli
