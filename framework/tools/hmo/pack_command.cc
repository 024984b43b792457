// hmo pack FILE.csv [--algorithm NAME] [--alignment N] [-o OUT]: packs a
// buffer-lifetime instance in MiniMalloc's CSV format with a heap algorithm,
// validates the plan and writes the CSV with an `offset` column; the height,
// the lower bound and the time go to stderr.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "argument_parser.h"
#include "atomic_file.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/analysis/buffer_packing_csv.h"
#include "logging_options.h"
#include "spdlog/spdlog.h"
#include "subcommand.h"

namespace hmo::cli {
namespace {

int RunPack(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string algorithm = PackingAlgorithmNames().front();
  std::string alignment_text = "1";
  std::string output;
  LoggingOptions logging;
  ArgumentParser parser(
      "hmo pack FILE.csv [--algorithm NAME] [--alignment N] [-o OUT]",
      "Packs the buffers of FILE.csv (columns id,lower,upper,size; a buffer is live in\n"
      "[lower, upper)) with a heap algorithm, checks that no two buffers live at once\n"
      "overlap, and writes the CSV with an offset column to stdout or OUT. Prints the\n"
      "height, the lower bound (most bytes live at once) and the time to stderr.\n"
      "Algorithms: " +
          absl::StrJoin(PackingAlgorithmNames(), ", ") + ".");
  parser.SetPositionals("FILE.csv", &files, 1, "the instance");
  parser.AddOption("--algorithm", "NAME", &algorithm, "heap algorithm (default best)");
  parser.AddOption("--alignment", "N", &alignment_text, "offset alignment (default 1)");
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
  auto instance = ReadHeapCsvFile(files.front());
  if (!instance.ok()) {
    fmt::print(stderr, "{}\n", std::string(instance.status().message()));
    return kExitFailure;
  }
  auto result = PackBuffers(*instance, algorithm, alignment);
  if (!result.ok()) {
    spdlog::error("{}", std::string(result.status().message()));
    return absl::IsInvalidArgument(result.status()) &&
                   std::string(result.status().message()).rfind("unknown", 0) == 0
               ? kExitUsage
               : kExitFailure;
  }
  const double over =
      result->lower_bound > 0
          ? 100.0 * static_cast<double>(result->height - result->lower_bound) / result->lower_bound
          : 0.0;
  fmt::print(stderr, "{}: {} buffers, algorithm {}: height {}, lower bound {} (+{:.2f}%), {:.3f} s\n",
             files.front(), instance->size(), result->algorithm, result->height,
             result->lower_bound, over, result->seconds);
  const std::string csv = WriteMiniMallocCsv(*instance, result->offsets);
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

const SubcommandRegistration kPack{
    {"pack", "pack a MiniMalloc CSV buffer-lifetime instance with a heap algorithm", &RunPack}};

}  // namespace
}  // namespace hmo::cli
