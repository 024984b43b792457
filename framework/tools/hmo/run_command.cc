// hmo run: runs a pipeline of plugin passes on HLO modules.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "argument_parser.h"
#include "atomic_file.h"
#include "execute_options.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/execution/random_literals.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pipeline/changed_check.h"
#include "hmo/pipeline/dump_after_pass.h"
#include "hmo/pipeline/pass_manager.h"
#include "hmo/pipeline/pass_timing.h"
#include "hmo/pipeline/pipeline_yaml_printer.h"
#include "hmo/pipeline/verify_after_pass.h"
#include "verifier_diagnostics.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"
#include "hmo/verifier/hlo_verifier.h"
#include "logging_options.h"
#include "terminal_progress.h"
#include "launched_process.h"
#include "execution_summary.h"
#include "module_inputs.h"
#include "parallel_jobs.h"
#include "pipeline_setup.h"
#include "plugin_options.h"
#include "spdlog/spdlog.h"
#include "subcommand.h"
#include "text_form_options.h"

namespace hmo::cli {
namespace {
namespace fs = std::filesystem;

struct RunArguments {
  std::vector<std::string> positionals;
  PipelineArguments pipeline;
  std::string output;
  std::string jobs;
  std::string stage = "after";
  bool time_passes = false;
  bool report = false;
  // HMO_CHECK_CHANGED=1 turns it on by default (the test suite sets it).
  bool check_changed = std::getenv("HMO_CHECK_CHANGED") != nullptr &&
                       std::string_view(std::getenv("HMO_CHECK_CHANGED")) == "1";
  bool dump_pipeline = false;
  TextFormOptions form;
  ExecuteArguments execute;
};

// What happened to one input.
struct ModuleResult {
  absl::Status status;
  std::string module_name;
  PipelineRunSummary summary;
  std::string text;  // the result, kept only when it goes to stdout
  std::string execution_summary;  // --execute: what ExecuteAndSummarize reported
  std::string memory_limit;       // the memory-limit check, when there is a limit
};

// Shared, read-only state of one `hmo run`.
struct RunSetup {
  const ResolvedPipeline* pipeline;
  const PluginRegistries* registries;
  PassTimingTable* timing;  // null unless --time-passes
  bool check_changed;
  bool keep_text;
  HloPrintOptions print_options;  // the form of -o and stdout
  const ExecuteSettings* execute;  // null unless --execute / --check
  // --results-dir of this run, made per input when there are several.
  std::string results_dir;
  bool results_per_input;
  // Where the passes report progress: one input's, on a terminal; null
  // otherwise (several inputs report how many modules are done).
  ProgressSink* pass_progress;
};

ModuleResult RunOneModule(const RunSetup& setup, const fs::path& input,
                          const std::optional<fs::path>& output) {
  ModuleResult result;
  auto module = ParseHloModuleFile(input.string());
  if (!module.ok()) {
    result.status = module.status();
    return result;
  }
  result.module_name = (*module)->name();
  // Before any pass, so that passes see (and may fold) the same values the
  // reference run of --check will.
  if (setup.execute != nullptr) FillElidedConstants(**module, setup.execute->seed);
  PassManager manager(*setup.pipeline, *setup.registries);
  manager.set_progress(setup.pass_progress);
  // The first error, placed in the input file where its instruction was
  // written (instructions a pass made have no place).
  const std::string input_name = input.string();
  VerifyAfterPassInstrumentation verify(setup.pipeline->verify, [&input_name](const HloModule& m) {
    const std::vector<HloVerifierError> errors = CollectVerifierErrors(m, {});
    if (errors.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(VerifierErrorPrefix(input_name, errors.front()) +
                                      errors.front().ToString());
  });
  manager.AddInstrumentation(&verify);
  std::optional<ChangedCheckInstrumentation> changed_check;
  if (setup.check_changed) manager.AddInstrumentation(&changed_check.emplace());
  std::optional<DumpAfterPassInstrumentation> dump;
  if (!setup.pipeline->dump.directory.empty()) {
    manager.AddInstrumentation(
        &dump.emplace(setup.pipeline->dump.directory, setup.pipeline->dump.after));
  }
  std::optional<PassTimingInstrumentation> timing;
  if (setup.timing != nullptr) manager.AddInstrumentation(&timing.emplace(*setup.timing));

  absl::StatusOr<PipelineRunSummary> summary = manager.Run(**module);
  if (!summary.ok()) {
    result.status = absl::Status(summary.status().code(),
                                 fmt::format("{}: {}", input.string(),
                                             std::string(summary.status().message())));
    return result;
  }
  result.summary = *std::move(summary);
  if (result.summary.memory_limit.has_value()) {
    result.memory_limit = result.summary.memory_limit->Describe();
  }
  if (output.has_value()) {
    result.status = WriteFileAtomically(*output, PrintHloModule(**module, setup.print_options));
  } else if (setup.keep_text) {
    result.text = PrintHloModule(**module, setup.print_options);
  }
  if (result.status.ok() && setup.execute != nullptr) {
    fs::path results_dir;
    if (!setup.results_dir.empty()) {
      results_dir = setup.results_per_input ? fs::path(setup.results_dir) / input.stem()
                                            : fs::path(setup.results_dir);
    }
    ExecutionSummary execution = ExecuteAndSummarize(*setup.execute, **module, input, results_dir);
    result.execution_summary = std::move(execution.summary);
    result.status = std::move(execution.status);
  }
  return result;
}

// The reports passes made through PassContext::Report, one indented block
// per pass run that reported something.
std::string FormatPassReports(const PipelineRunSummary& summary) {
  std::string text;
  for (const PassRunRecord& run : summary.runs) {
    if (run.report.empty()) continue;
    text += fmt::format("  {} (#{}):\n", run.pass, run.sequence);
    size_t begin = 0;
    while (begin < run.report.size()) {
      size_t end = run.report.find('\n', begin);
      if (end == std::string::npos) end = run.report.size();
      text += fmt::format("    {}\n", std::string_view(run.report).substr(begin, end - begin));
      begin = end + 1;
    }
  }
  return text;
}

std::string DescribeResult(const ModuleInput& input, const ModuleResult& result) {
  std::vector<std::string> changed;
  for (const PassRunRecord& run : result.summary.runs) {
    if (run.changed && std::find(changed.begin(), changed.end(), run.pass) == changed.end()) {
      changed.push_back(run.pass);
    }
  }
  // A dump's module is known by the program JAX compiled; other files by
  // the module they hold.
  std::string line =
      fmt::format("{}: {} '{}': {} pass run{}, ", input.path.string(),
                  input.program.empty() ? "module" : "program",
                  input.program.empty() ? result.module_name : input.program,
                  result.summary.runs.size(), result.summary.runs.size() == 1 ? "" : "s");
  line += changed.empty() ? std::string("unchanged")
                          : fmt::format("changed by {}", fmt::join(changed, ", "));
  if (result.summary.fixed_point_caps_reached > 0) {
    line += fmt::format(" ({} fixed-point group{} hit max-iterations)",
                        result.summary.fixed_point_caps_reached,
                        result.summary.fixed_point_caps_reached == 1 ? "" : "s");
  }
  return line;
}

// Maps each input to its output file: OUT itself for one input (unless OUT is
// a directory), else OUT/<input file name>.
absl::StatusOr<std::vector<std::optional<fs::path>>> PlanOutputs(
    const std::vector<ModuleInput>& inputs, const std::string& output) {
  std::vector<std::optional<fs::path>> outputs(inputs.size());
  if (output.empty()) return outputs;
  std::error_code error;
  if (inputs.size() == 1 && !fs::is_directory(output, error)) {
    outputs[0] = fs::path(output);
    return outputs;
  }
  fs::create_directories(output, error);
  if (!fs::is_directory(output, error)) {
    return absl::InvalidArgumentError(
        fmt::format("-o {}: with several inputs, -o must be a directory", output));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const fs::path target = fs::path(output) / inputs[i].path.filename();
    for (size_t j = 0; j < i; ++j) {
      if (*outputs[j] == target) {
        return absl::InvalidArgumentError(
            fmt::format("inputs {} and {} would both be written to {}", inputs[j].path.string(),
                        inputs[i].path.string(), target.string()));
      }
    }
    outputs[i] = target;
  }
  return outputs;
}

int Fail(const absl::Status& status) {
  fmt::print(stderr, "hmo run: error: {}\n", std::string(status.message()));
  return kExitFailure;
}

int RunCommand(const std::vector<std::string>& args) {
  RunArguments arguments;
  PluginOptions plugin_options;
  LoggingOptions logging;
  ArgumentParser parser(
      "hmo run PIPELINE.yaml INPUT... [-o OUT]\n"
      "       hmo run --passes='PASS{key=value},...' INPUT... [-o OUT]",
      "Loads plugins, runs the pipeline on each INPUT (an HLO file, or a directory of *.hlo /\n"
      "*.txt files; several run in parallel) and prints a summary. A directory XLA dumped into\n"
      "(--xla_dump_to) gives each program's module at --stage, in module order\n"
      "(module_<N>.<program>.<platform>_after_optimizations.txt by default), and the summary\n"
      "names the program. With one input and no -o the resulting module goes to stdout.\n"
      "Outputs are written atomically; a failing module leaves no output, the others still\n"
      "complete, and the exit status is 1.\n"
      "With --execute (or --check) each module is then compiled and run, one at a time, and\n"
      "a summary of each run goes to stdout instead of the module text.");
  parser.SetPositionals("PIPELINE.yaml INPUT...", &arguments.positionals, 0,
                        "the pipeline file (unless --passes), then the inputs");
  parser.AddOption("--stage", "before|after", &arguments.stage,
                   "which module of each program a dump directory gives: before or after XLA's "
                   "optimizations (default after)");
  parser.AddOption("--passes", "PIPELINE", &arguments.pipeline.passes_text,
                   "the pipeline as one line: a{k=v},fixed-point(max-iterations=4){b,c}");
  parser.AddOption("-o,--output", "OUT", &arguments.output,
                   "output file (one input) or directory (several)");
  arguments.form.AddTo(parser);
  plugin_options.AddTo(parser);
  parser.AddOption("--verify", "MODE", &arguments.pipeline.verify,
                   "never | changed | always (overrides the pipeline's 'verify')");
  parser.AddFlag("--time-passes", &arguments.time_passes,
                 "print a table of time spent per pass (stderr)");
  parser.AddFlag("--report", &arguments.report,
                 "print what each pass reported (e.g. memory-scheduler: every candidate's "
                 "peak and the one chosen) after each module's summary");
  parser.AddOption("--memory-limit", "SIZE", &arguments.pipeline.memory_limit,
                   "fail unless the target's device arenas after the pipeline (as hmo stats "
                   "--target counts them) are at most SIZE (80GiB, 512MiB, bytes; overrides the "
                   "pipeline's 'memory-limit'); with --execute, also refuse an executable whose "
                   "device arenas exceed it");
  parser.AddOption("--target", "BACKEND", &arguments.pipeline.target,
                   "the backend whose memory model every memory measure uses (overrides the "
                   "pipeline's 'target'; default: --backend when executing, else cpu)");
  parser.AddOption("--dump-to", "DIR", &arguments.pipeline.dump_to,
                   "dump the module after passes, and the resolved pipeline, into DIR");
  parser.AddOption("--dump-after", "REGEX", &arguments.pipeline.dump_after,
                   "dump only after passes whose name matches REGEX (default: all)");
  parser.AddFlag("--check-changed", &arguments.check_changed,
                 "fail when a pass's 'changed' result does not match what it did (default "
                 "on when HMO_CHECK_CHANGED=1)");
  parser.AddFlag("--dump-pipeline", &arguments.dump_pipeline,
                 "print the resolved pipeline as YAML (and stop when there is no INPUT)");
  parser.AddOption("-j,--jobs", "N", &arguments.jobs,
                   "run at most N modules at once (default: all cores)");
  arguments.execute.AddTo(parser);
  logging.AddTo(parser);
  if (auto exit = ParseArgumentsOrExit(parser, "run", args)) return *exit;
  if (auto exit = CheckPluginDirectoriesOrExit(plugin_options, "run")) return *exit;
  logging.Apply();

  std::vector<std::string> inputs = arguments.positionals;
  if (arguments.pipeline.passes_text.empty()) {
    if (inputs.empty()) {
      fmt::print(stderr, "hmo run: error: missing PIPELINE.yaml (or --passes) (see --help)\n");
      return kExitUsage;
    }
    arguments.pipeline.yaml_file = inputs.front();
    inputs.erase(inputs.begin());
  }
  absl::StatusOr<size_t> job_count = ParseJobCount(arguments.jobs);
  if (!job_count.ok()) {
    fmt::print(stderr, "hmo run: error: {}\n", std::string(job_count.status().message()));
    return kExitUsage;
  }
  size_t threads = *job_count;
  absl::StatusOr<DumpStage> stage = ParseDumpStage(arguments.stage);
  if (!stage.ok()) {
    fmt::print(stderr, "hmo run: error: {}\n", std::string(stage.status().message()));
    return kExitUsage;
  }

  const PluginSearchPath search_path = plugin_options.SearchPath();
  PluginHost host;
  if (absl::Status loaded = LoadSearchPathPlugins(host, search_path); !loaded.ok()) {
    return Fail(loaded);
  }
  std::optional<ExecuteSettings> execute;
  if (const std::string ignored = arguments.execute.IgnoredOption(); !ignored.empty()) {
    fmt::print(stderr, "hmo run: error: {} applies to execution: add --execute or --check\n",
               ignored);
    return kExitUsage;
  }
  if (arguments.execute.enabled()) {
    absl::StatusOr<ExecuteSettings> settings =
        ResolveExecuteArguments(arguments.execute, host.registries());
    if (!settings.ok()) {
      fmt::print(stderr, "hmo run: error: {}\n", std::string(settings.status().message()));
      return kExitUsage;
    }
    execute = *std::move(settings);
    // In a multi-process launch every process runs its device and gets every
    // device's results; process 0 alone prints and writes them.
    if (LaunchedProcessIndex() > 0) {
      if (std::freopen("/dev/null", "w", stdout) == nullptr)
        return Fail(absl::UnavailableError("cannot silence stdout"));
      execute->results_dir.clear();
    }
    // Runs are measured (time, peak RSS of the process): one at a time.
    threads = 1;
    arguments.pipeline.default_target = std::string(execute->backend->name());
  }
  absl::StatusOr<ResolvedPipeline> pipeline = SetUpPipeline(arguments.pipeline, host, search_path);
  if (!pipeline.ok()) return Fail(pipeline.status());
  if (execute.has_value()) {
    execute->memory_limit = pipeline->memory_limit;
    execute->pipeline_target = pipeline->target;
  }
  const std::string pipeline_yaml = PrintPipelineYaml(*pipeline);
  if (arguments.dump_pipeline) {
    fmt::print("{}", pipeline_yaml);
    if (inputs.empty()) return kExitOk;
  }
  if (inputs.empty()) {
    fmt::print(stderr, "hmo run: error: missing INPUT (see --help)\n");
    return kExitUsage;
  }
  absl::StatusOr<std::vector<ModuleInput>> files = ExpandModuleInputs(inputs, *stage);
  if (!files.ok()) return Fail(files.status());
  absl::StatusOr<std::vector<std::optional<fs::path>>> outputs =
      PlanOutputs(*files, arguments.output);
  if (!outputs.ok()) return Fail(outputs.status());
  if (!pipeline->dump.directory.empty()) {
    std::error_code error;
    fs::create_directories(pipeline->dump.directory, error);
    absl::Status written =
        WriteFileAtomically(fs::path(pipeline->dump.directory) / "pipeline.yaml", pipeline_yaml);
    if (!written.ok()) return Fail(written);
  }

  const bool module_to_stdout =
      files->size() == 1 && arguments.output.empty() && !execute.has_value();
  PassTimingTable timing;
  // A progress line on a terminal (none under -q or when stderr is not one).
  const std::unique_ptr<TerminalProgress> terminal = TerminalProgress::ForStderr(logging.quiet);
  const RunSetup setup{&*pipeline,
                       &host.registries(),
                       arguments.time_passes ? &timing : nullptr,
                       arguments.check_changed,
                       module_to_stdout,
                       arguments.form.PrintOptions(),
                       execute.has_value() ? &*execute : nullptr,
                       execute.has_value() ? execute->results_dir : std::string(),
                       files->size() > 1,
                       files->size() == 1 ? terminal.get() : nullptr};
  std::vector<ModuleResult> results(files->size());
  spdlog::debug("running {} pass step(s) on {} module(s) with up to {} thread(s)",
                CountPassSteps(pipeline->steps), files->size(), threads);
  RunJobsInParallel(
      files->size(), threads,
      [&](size_t i) { results[i] = RunOneModule(setup, (*files)[i].path, (*outputs)[i]); },
      files->size() > 1 ? terminal.get() : nullptr);

  std::FILE* summary_out = module_to_stdout ? stderr : stdout;
  size_t failed = 0;
  for (size_t i = 0; i < files->size(); ++i) {
    if (!results[i].status.ok()) {
      ++failed;
      // A failed check still shows what ran.
      if (!results[i].execution_summary.empty()) {
        fmt::print(summary_out, "{}\n{}", DescribeResult((*files)[i], results[i]),
                   results[i].execution_summary);
      }
      fmt::print(stderr, "hmo run: error: {}\n", std::string(results[i].status.message()));
      continue;
    }
    fmt::print(summary_out, "{}\n", DescribeResult((*files)[i], results[i]));
    if (!results[i].memory_limit.empty()) {
      fmt::print(summary_out, "  memory-limit: {}\n", results[i].memory_limit);
    }
    if (arguments.report) fmt::print(summary_out, "{}", FormatPassReports(results[i].summary));
    fmt::print(summary_out, "{}", results[i].execution_summary);
  }
  if (module_to_stdout && failed == 0) fmt::print("{}", results[0].text);
  if (files->size() > 1) {
    fmt::print(summary_out, "{} modules: {} ok, {} failed\n", files->size(),
               files->size() - failed, failed);
  }
  if (arguments.time_passes) fmt::print(stderr, "{}", timing.Format());
  return failed == 0 ? kExitOk : kExitFailure;
}

const SubcommandRegistration kRun{
    {"run", "run a pipeline of plugin passes on HLO modules", &RunCommand}};

}  // namespace
}  // namespace hmo::cli
