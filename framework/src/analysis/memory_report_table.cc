// FormatMemoryReportTable: the human-readable summary printed by `hmo stats`.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/ir/instruction_source.h"
#include "memory_report_util.h"

namespace hmo {

using memory_report_internal::FusedSourcesMadeAt;
using memory_report_internal::HumanReadableBytes;
using memory_report_internal::MemorySpaceName;

namespace {

void AppendRow(std::string* out, std::string_view label, int64_t bytes) {
  absl::StrAppendFormat(out, "  %-22s %14d  %s\n", std::string(label), bytes,
                        HumanReadableBytes(bytes));
}

}  // namespace

std::string FormatMemoryReportTable(const MemoryReport& report) {
  std::string out;
  absl::StrAppend(&out, "Module ", report.module_name, "  (schedule: ", report.schedule_source,
                  ", ", report.schedule_length, " steps; pointer size ",
                  report.options.pointer_size, ", alignment ", report.options.alignment,
                  ", heap ", std::string(TempHeapAlgorithmName(report.options.heap_algorithm)), ")\n\n");
  const CompiledMemoryStats& s = report.stats;
  if (report.replica_count * report.partition_count > 1) {
    absl::StrAppend(&out, "Device memory (bytes, per device of ",
                    report.replica_count * report.partition_count, ": ", report.replica_count,
                    " replica", report.replica_count == 1 ? "" : "s", " x ", report.partition_count,
                    " partition", report.partition_count == 1 ? "" : "s", "):\n");
  } else {
    absl::StrAppend(&out, "Device memory (bytes):\n");
  }
  AppendRow(&out, "arguments", s.argument_size_in_bytes);
  AppendRow(&out, "outputs", s.output_size_in_bytes);
  AppendRow(&out, "aliased (arg = out)", s.alias_size_in_bytes);
  AppendRow(&out, "temp", s.temp_size_in_bytes);
  AppendRow(&out, "generated code", s.generated_code_size_in_bytes);
  AppendRow(&out, "peak estimate", s.PeakEstimateBytes());
  absl::StrAppend(&out, "Host memory (S(5), bytes):\n");
  AppendRow(&out, "arguments", s.host_argument_size_in_bytes);
  AppendRow(&out, "outputs", s.host_output_size_in_bytes);
  AppendRow(&out, "aliased (arg = out)", s.host_alias_size_in_bytes);
  AppendRow(&out, "temp", s.host_temp_size_in_bytes);
  AppendRow(&out, "generated code", s.host_generated_code_size_in_bytes);
  AppendRow(&out, "peak estimate", s.HostPeakEstimateBytes());
  absl::StrAppend(&out, "Peaks (bytes):\n");
  AppendRow(&out, "peak memory (XLA)", s.peak_memory_in_bytes);
  AppendRow(&out, "minimum for module", report.minimum_memory_for_module);
  if (!report.target.name.empty()) {
    const MemoryReportTarget& t = report.target;
    if (!t.plan_error.empty()) {
      absl::StrAppend(&out, "Target ", t.name, ": cannot plan the module: ", t.plan_error, "\n");
    } else {
      absl::StrAppend(&out, "Target ", t.name, " (what its executable allocates, bytes):\n");
      AppendRow(&out, "device arenas", t.arena_device_bytes);
      AppendRow(&out, "host arena", t.arena_host_bytes);
      AppendRow(&out, "added to the module", t.added_bytes());
      for (const std::string& line : t.preparation) {
        absl::StrAppend(&out, "  preparation: ", line, "\n");
      }
    }
  }

  if (!report.temp_heaps.empty()) {
    absl::StrAppend(&out, "\nTemp heaps:\n");
    absl::StrAppendFormat(&out, "  %-8s %14s %14s %14s %8s  %s\n", "space", "size", "lower bound",
                          "XLA best fit", "values", "algorithm");
    for (const TempHeapSummary& heap : report.temp_heaps) {
      absl::StrAppendFormat(&out, "  %-8s %14d %14d %14d %8d  %s\n", MemorySpaceName(heap.color),
                            heap.heap_size, heap.lower_bound, heap.xla_heap_size,
                            heap.value_count, heap.algorithm);
    }
  }

  if (!report.peak_by_source.empty()) {
    // The user's lines, not HLO names: where to look to lower the peak.
    constexpr size_t kShownSources = 10;
    absl::StrAppend(&out, "\nLive at the peak, by where the program made them, largest first:\n");
    const size_t shown = std::min(kShownSources, report.peak_by_source.size());
    for (size_t i = 0; i < shown; ++i) {
      const SourceBytes& entry = report.peak_by_source[i];
      // A fusion's line alone hides the lines of the ops it fused.
      const std::string fused = FusedSourcesText(FusedSourcesMadeAt(report, entry.source));
      absl::StrAppendFormat(&out, "  %14d  %-10s %6d %-6s  %s%s\n", entry.bytes,
                            HumanReadableBytes(entry.bytes), entry.values,
                            entry.values == 1 ? "value" : "values", entry.Label(),
                            fused.empty() ? "" : absl::StrCat("; ", fused));
    }
    if (shown < report.peak_by_source.size()) {
      absl::StrAppend(&out, "  ... and ", report.peak_by_source.size() - shown, " more sources\n");
    }
  }

  absl::StrAppend(&out, "\nAllocations:\n");
  absl::StrAppendFormat(&out, "  %5s %14s %-8s %-12s %7s  %s\n", "index", "size", "space", "kind",
                        "values", "notes");
  for (const MemoryReportAllocation& a : report.allocations) {
    std::string notes;
    if (a.is_entry_parameter) {
      absl::StrAppend(&notes, "parameter ", a.parameter_number, " ", a.parameter_index);
      if (a.parameter_aliased_with_output) absl::StrAppend(&notes, ", aliased with output");
    }
    if (a.maybe_live_out && a.kind != AllocationKind::kOutput) {
      absl::StrAppend(&notes, notes.empty() ? "" : ", ", "maybe live out");
    }
    absl::StrAppendFormat(&out, "  %5d %14d %-8s %-12s %7d  %s\n", a.index, a.size,
                          MemorySpaceName(a.memory_space), AllocationKindName(a.kind),
                          a.value_count, notes);
  }
  return out;
}

}  // namespace hmo
