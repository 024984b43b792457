#include "execute_options.h"

#include <charconv>
#include <cstdlib>
#include <limits>

#include "fmt/format.h"

namespace hmo::cli {
namespace {

absl::StatusOr<uint64_t> ParseUnsigned(std::string_view option, const std::string& text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return absl::InvalidArgumentError(
        fmt::format("{} needs a non-negative integer, got '{}'", option, text));
  }
  return value;
}

absl::StatusOr<double> ParseNonNegativeDouble(std::string_view option, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value >= 0)) {
    return absl::InvalidArgumentError(
        fmt::format("{} needs a non-negative number, got '{}'", option, text));
  }
  return value;
}

std::vector<std::string> SplitCommaList(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::string DescribeExecutingBackends(const BackendRegistry& backends) {
  std::vector<std::string> names;
  for (const RegisteredBackend* backend : backends.List()) {
    if (backend->registration.backend->CanExecute()) {
      names.push_back(fmt::format("{} (plugin {})", backend->registration.name, backend->plugin));
    }
  }
  if (names.empty()) {
    return "no executing backend is loaded (load one with --plugin-dir or HMO_PLUGIN_PATH)";
  }
  return fmt::format("executing backends: {}", fmt::join(names, ", "));
}

}  // namespace

void ExecuteArguments::AddTo(ArgumentParser& parser) {
  parser.AddFlag("--execute", &execute,
                 "after the pipeline, compile each module with --backend and run it "
                 "(modules run one at a time; the summary goes to stdout)");
  parser.AddFlag("--check", &check,
                 "implies --execute; also evaluate the unoptimized module with the reference "
                 "evaluator on the same arguments and fail when the results differ");
  parser.AddOption("--backend", "NAME", &backend, "the executing backend (default: cpu)");
  parser.AddOption("--inputs", "A.npy,B.npy", &inputs,
                   "the entry parameters' values, one .npy file per parameter; for a module "
                   "running on several devices, one directory DIR holding DIR/device<d>/"
                   "input_<i>.npy (default: random values from --seed)");
  parser.AddOption("--seed", "N", &seed,
                   "seed of the random arguments and of elided constants' values (default: 0)");
  parser.AddOption("--results-dir", "DIR", &results_dir,
                   "write the results as .npy: result.npy, or result.0.npy, result.1.npy, ... "
                   "for a tuple (DIR/<input name>/ with several inputs)");
  parser.AddOption("--opt-level", "N", &opt_level, "backend optimization level 0-3 (default: 2)");
  parser.AddOption("--rtol", "X", &rtol,
                   "--check: relative tolerance for every float type (default: per type)");
  parser.AddOption("--atol", "X", &atol,
                   "--check: absolute tolerance for every float type (default: per type)");
  parser.AddOption(
      "--repeat", "N", &repeat,
      "run the compiled module N times (default: 1): the first run is the cold one whose "
      "result is written and checked, each warm run must give the same bits, the summary "
      "adds the warm runs' median time");
  parser.AddOption("--threads", "N", &threads,
                   "threads one kernel's independent iterations may run on, the calling one "
                   "included (default: the machine's hardware threads)");
  parser.AddFlag("--kernels-in-order", &kernels_in_order,
                 "run every kernel in schedule order, one at a time (default: kernels the "
                 "buffer plan shows independent may run at the same time)");
  parser.AddOption(
      "--max-loop-trips", "N|none", &max_loop_trips,
      fmt::format("stop with an error naming the loop when one execution of a while loop "
                  "runs its body more than N times, in the executable and the reference "
                  "evaluator alike (default: {}; none: no budget)",
                  kDefaultMaxLoopTrips));
  parser.AddOption(
      "--replicas", "N", &replicas,
      "run N replicas of each of the module's partitions together, one device each "
      "(default: 1; device d = replica x partitions + partition), collectives spanning "
      "them; device d's arguments come from seed + d or --inputs DIR/device<d>/"
      "input_<i>.npy, its results go to RESULTS/device<d>/");
}

std::string ExecuteArguments::IgnoredOption() const {
  if (enabled()) return "";
  const std::pair<const char*, const std::string*> options[] = {
      {"--inputs", &inputs},
      {"--seed", &seed},
      {"--results-dir", &results_dir},
      {"--opt-level", &opt_level},
      {"--rtol", &rtol},
      {"--atol", &atol},
      {"--replicas", &replicas},
      {"--repeat", &repeat},
      {"--threads", &threads},
      {"--max-loop-trips", &max_loop_trips}};
  for (const auto& [name, value] : options) {
    if (!value->empty()) return name;
  }
  if (kernels_in_order) return "--kernels-in-order";
  if (backend != "cpu") return "--backend";
  return "";
}

absl::StatusOr<ExecuteSettings> ResolveExecuteArguments(const ExecuteArguments& arguments,
                                                        const PluginRegistries& registries) {
  ExecuteSettings settings;
  settings.check = arguments.check;
  const RegisteredBackend* backend = registries.backends.Find(arguments.backend);
  if (backend == nullptr) {
    return absl::InvalidArgumentError(fmt::format("--backend {}: no such backend; {}",
                                                  arguments.backend,
                                                  DescribeExecutingBackends(registries.backends)));
  }
  if (!backend->registration.backend->CanExecute()) {
    return absl::InvalidArgumentError(fmt::format(
        "--backend {}: backend '{}' (plugin {}) describes a target but cannot execute modules; {}",
        arguments.backend, arguments.backend, backend->plugin,
        DescribeExecutingBackends(registries.backends)));
  }
  settings.backend = backend->registration.backend;
  if (!arguments.inputs.empty()) {
    settings.input_files = SplitCommaList(arguments.inputs);
    for (const std::string& file : settings.input_files) {
      if (file.empty()) {
        return absl::InvalidArgumentError(
            fmt::format("--inputs '{}': empty file name in the list", arguments.inputs));
      }
    }
  }
  if (!arguments.seed.empty()) {
    absl::StatusOr<uint64_t> seed = ParseUnsigned("--seed", arguments.seed);
    if (!seed.ok()) return seed.status();
    settings.seed = *seed;
  }
  if (!arguments.opt_level.empty()) {
    absl::StatusOr<uint64_t> level = ParseUnsigned("--opt-level", arguments.opt_level);
    if (!level.ok()) return level.status();
    if (*level > 3) {
      return absl::InvalidArgumentError(
          fmt::format("--opt-level must be 0, 1, 2 or 3, got {}", *level));
    }
    settings.compile.opt_level = static_cast<int>(*level);
  }
  if (!arguments.rtol.empty() || !arguments.atol.empty()) {
    // Overriding one bound keeps the other at f32's default; ULPs are off so
    // that the stated tolerance is the whole rule.
    FloatTolerance tolerance = DefaultFloatTolerance(PrimitiveType::F32);
    tolerance.max_ulps = 0;
    if (!arguments.rtol.empty()) {
      absl::StatusOr<double> rtol = ParseNonNegativeDouble("--rtol", arguments.rtol);
      if (!rtol.ok()) return rtol.status();
      tolerance.relative = *rtol;
    }
    if (!arguments.atol.empty()) {
      absl::StatusOr<double> atol = ParseNonNegativeDouble("--atol", arguments.atol);
      if (!atol.ok()) return atol.status();
      tolerance.absolute = *atol;
    }
    settings.comparison.float_tolerance = tolerance;
  }
  if (!arguments.replicas.empty()) {
    absl::StatusOr<uint64_t> replicas = ParseUnsigned("--replicas", arguments.replicas);
    if (!replicas.ok()) return replicas.status();
    if (*replicas < 1 || *replicas > 1024) {
      return absl::InvalidArgumentError(fmt::format("--replicas must be in [1, 1024], got {}", *replicas));
    }
    settings.compile.num_replicas = static_cast<int64_t>(*replicas);
  }
  if (!arguments.repeat.empty()) {
    absl::StatusOr<uint64_t> repeat = ParseUnsigned("--repeat", arguments.repeat);
    if (!repeat.ok()) return repeat.status();
    if (*repeat < 1 || *repeat > 100000) {
      return absl::InvalidArgumentError(fmt::format("--repeat must be in [1, 100000], got {}", *repeat));
    }
    settings.repeat = static_cast<int64_t>(*repeat);
  }
  if (!arguments.threads.empty()) {
    absl::StatusOr<uint64_t> threads = ParseUnsigned("--threads", arguments.threads);
    if (!threads.ok()) return threads.status();
    if (*threads < 1 || *threads > 1024) {
      return absl::InvalidArgumentError(
          fmt::format("--threads must be in [1, 1024], got {}", *threads));
    }
    settings.compile.threads = static_cast<int64_t>(*threads);
  }
  settings.compile.concurrent_kernels = !arguments.kernels_in_order;
  if (arguments.max_loop_trips == "none") {
    settings.max_loop_trips = -1;
  } else if (!arguments.max_loop_trips.empty()) {
    absl::StatusOr<uint64_t> trips = ParseUnsigned("--max-loop-trips", arguments.max_loop_trips);
    if (!trips.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--max-loop-trips needs a non-negative integer or none, got '{}'",
                      arguments.max_loop_trips));
    }
    if (*trips > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(fmt::format("--max-loop-trips must be at most {}, got {}",
                                                    std::numeric_limits<int64_t>::max(), *trips));
    }
    settings.max_loop_trips = static_cast<int64_t>(*trips);
  }
  settings.results_dir = arguments.results_dir;
  return settings;
}

}  // namespace hmo::cli
