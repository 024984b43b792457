// Fuzz target: the analyses on verified modules. Whatever the verifier
// accepts, buffer assignment and the memory report (dataflow, aliasing,
// liveness, heap simulation, both temp packers) must take without crashing;
// they may return an error for what they do not support.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hmo/analysis/memory_report.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Large inputs only slow the search down; the parser fuzzer covers size.
  if (size > 32 * 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto modules = hmo::ParseHloModules(text, "fuzz.hlo");
  if (!modules.ok()) return 0;
  for (const auto& module : *modules) {
    if (!hmo::CollectVerifierErrors(*module, {}).empty()) continue;
    for (hmo::TempHeapAlgorithm heap : {hmo::TempHeapAlgorithm::kXla, hmo::TempHeapAlgorithm::kBest}) {
      hmo::MemoryReportOptions options;
      options.heap_algorithm = heap;
      options.alignment = 64;
      // The tight packer's search nodes, not its code paths, grow with the
      // budget; the default (250,000) spends seconds a run under ASan.
      options.tight_packing.node_budget = 2'000;
      options.tight_packing.repair_attempts = 20;
      auto report = hmo::BuildMemoryReport(*module, options);
      if (report.ok()) (void)hmo::FormatMemoryReportJson(*report);
    }
  }
  return 0;
}
