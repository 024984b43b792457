// BuildMemoryReport: runs buffer assignment and gathers the figures every
// report format prints.

#include "hmo/analysis/memory_report.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/analysis/byte_size.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/instruction_source.h"

namespace hmo {

namespace {

// Looks `name` up in `names`, or says which names there are.
template <typename E>
absl::StatusOr<E> FindByName(const std::vector<std::pair<std::string, E>>& names,
                             std::string_view name, std::string_view what) {
  std::vector<std::string> known;
  for (const auto& [known_name, value] : names) {
    if (known_name == name) return value;
    known.push_back(known_name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown ", std::string(what), " '",
                                                 std::string(name), "' (expected ",
                                                 absl::StrJoin(known, ", "), ")"));
}

template <typename E>
std::string_view NameOf(const std::vector<std::pair<std::string, E>>& names, E value) {
  for (const auto& [name, known] : names) {
    if (known == value) return name;
  }
  return "?";
}

}  // namespace

const std::vector<std::pair<std::string, TempHeapAlgorithm>>& TempHeapAlgorithmNames() {
  static const auto* names = new std::vector<std::pair<std::string, TempHeapAlgorithm>>{
      {"xla", TempHeapAlgorithm::kXla},
      {"search", TempHeapAlgorithm::kPackingSearch},
      {"best", TempHeapAlgorithm::kBest}};
  return *names;
}

absl::StatusOr<TempHeapAlgorithm> ParseTempHeapAlgorithm(std::string_view name) {
  return FindByName(TempHeapAlgorithmNames(), name, "heap algorithm");
}

std::string_view TempHeapAlgorithmName(TempHeapAlgorithm algorithm) {
  return NameOf(TempHeapAlgorithmNames(), algorithm);
}

const std::vector<std::pair<std::string, MemoryReportFormat>>& MemoryReportFormatNames() {
  static const auto* names = new std::vector<std::pair<std::string, MemoryReportFormat>>{
      {"table", MemoryReportFormat::kTable},
      {"json", MemoryReportFormat::kJson},
      {"html", MemoryReportFormat::kHtml}};
  return *names;
}

absl::StatusOr<MemoryReportFormat> ParseMemoryReportFormat(std::string_view name) {
  return FindByName(MemoryReportFormatNames(), name, "format");
}

std::string_view AllocationKindName(AllocationKind kind) {
  static const auto* names = new std::vector<std::pair<std::string, AllocationKind>>{
      {"parameter", AllocationKind::kParameter},
      {"output", AllocationKind::kOutput},
      {"constant", AllocationKind::kConstant},
      {"thread-local", AllocationKind::kThreadLocal},
      {"temp", AllocationKind::kTemp}};
  return NameOf(*names, kind);
}

std::string FormatMemoryReport(const MemoryReport& report, MemoryReportFormat format) {
  switch (format) {
    case MemoryReportFormat::kJson:
      return FormatMemoryReportJson(report);
    case MemoryReportFormat::kHtml:
      return FormatMemoryReportHtml(report);
    case MemoryReportFormat::kTable:
      break;
  }
  return FormatMemoryReportTable(report);
}

namespace {

AllocationKind KindOf(const BufferAllocation& allocation) {
  if (allocation.is_entry_computation_parameter()) return AllocationKind::kParameter;
  if (allocation.maybe_live_out()) return AllocationKind::kOutput;
  if (allocation.is_constant()) return AllocationKind::kConstant;
  if (allocation.is_thread_local()) return AllocationKind::kThreadLocal;
  return AllocationKind::kTemp;
}

// The module's schedule, completed with post-order sequences for non-fusion
// computations it lacks; `source` says where it came from.
HloSchedule ScheduleForReport(const HloModule& module, std::string* source) {
  bool complete = false;
  HloSchedule schedule = CompletedSchedule(module, &complete);
  *source = complete ? "module" : (module.has_schedule() ? "module+post-order" : "post-order");
  return schedule;
}

}  // namespace

absl::Status ValidateMemoryReportOptions(const MemoryReportOptions& options) {
  if (options.pointer_size < 1 || options.pointer_size > kMaxPointerSize) {
    return absl::InvalidArgumentError(absl::StrCat("pointer size ", options.pointer_size,
                                                   " is out of range: 1 to ", kMaxPointerSize,
                                                   " bytes"));
  }
  if (options.alignment < 0 || options.alignment > kMaxBufferAlignment) {
    return absl::InvalidArgumentError(absl::StrCat(
        "alignment ", options.alignment, " is out of range: 1 to ", kMaxBufferAlignment, " bytes"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<BufferAssignment>> AssignBuffersAsReported(
    const HloModule& module, const HloSchedule& schedule, const MemoryReportOptions& options) {
  HMO_RETURN_IF_ERROR(ValidateMemoryReportOptions(options));
  BufferAssigner::Options assigner_options;
  assigner_options.heap_algorithm = options.heap_algorithm;
  assigner_options.allocate_buffers_for_constants = options.allocate_buffers_for_constants;
  assigner_options.tight_packing = options.tight_packing;
  const int64_t alignment = std::max<int64_t>(1, options.alignment);
  return BufferAssigner::Run(
      &module, schedule, ByteSizeOfValue(options.pointer_size),
      [alignment](int64_t) { return alignment; }, assigner_options);
}

absl::StatusOr<MemoryReport> BuildMemoryReport(const HloModule& module,
                                               const MemoryReportOptions& options) {
  std::string schedule_source;
  const HloSchedule schedule = ScheduleForReport(module, &schedule_source);

  HMO_ASSIGN_OR_RETURN(std::unique_ptr<BufferAssignment> assignment,
                       AssignBuffersAsReported(module, schedule, options));
  HMO_ASSIGN_OR_RETURN(MemoryReport report, BuildMemoryReportFromAssignment(*assignment, options));
  report.schedule_source = std::move(schedule_source);
  return report;
}

absl::StatusOr<MemoryReport> BuildMemoryReportFromAssignment(const BufferAssignment& assignment,
                                                             const MemoryReportOptions& options) {
  MemoryReport report;
  report.module_name = assignment.module().name();
  report.replica_count = std::max<int64_t>(1, assignment.module().replica_count());
  report.partition_count = std::max<int64_t>(1, assignment.module().num_partitions());
  report.schedule_source = "module";
  report.options = options;
  HMO_ASSIGN_OR_RETURN(report.stats, ComputeCompiledMemoryStats(assignment));
  report.assignment_stats = assignment.GetStats();
  report.temp_heaps = assignment.temp_heaps();
  report.schedule_length = assignment.hlo_live_range().schedule_end_time();
  HMO_ASSIGN_OR_RETURN(
      report.minimum_memory_for_module,
      HeapSimulator::MinimumMemoryForModule(assignment.schedule(), assignment.alias_analysis(),
                                            ByteSizeOfValue(options.pointer_size)));

  for (const BufferAllocation& allocation : assignment.Allocations()) {
    MemoryReportAllocation entry;
    entry.index = allocation.index();
    entry.size = allocation.size();
    entry.memory_space = allocation.color();
    entry.kind = KindOf(allocation);
    HMO_ASSIGN_OR_RETURN(entry.is_host, IsHostAllocation(allocation));
    entry.maybe_live_out = allocation.maybe_live_out();
    entry.is_entry_parameter = allocation.is_entry_computation_parameter();
    entry.parameter_aliased_with_output = allocation.is_parameter_aliased_with_output();
    if (entry.is_entry_parameter) {
      entry.parameter_number = allocation.parameter_number();
      entry.parameter_index = ShapeIndexToString(allocation.param_shape_index());
    }
    entry.value_count = static_cast<int64_t>(allocation.assigned_buffers().size());
    report.allocations.push_back(std::move(entry));

    if (allocation.is_thread_local()) continue;  // not on the module timeline
    const auto& live_ranges = assignment.hlo_live_range().buffer_live_ranges();
    for (const auto& [value, offset_size] : allocation.SortedAssignedBuffers()) {
      auto range = live_ranges.find(value);
      if (range == live_ranges.end()) continue;
      MemoryReportBuffer buffer;
      buffer.value_id = value->id();
      buffer.instruction = value->instruction()->name();
      buffer.computation = value->instruction()->parent()->name();
      buffer.index = ShapeIndexToString(value->index());
      buffer.shape = value->shape().ToString();
      buffer.size = offset_size.size;
      buffer.allocation = allocation.index();
      buffer.offset = offset_size.offset;
      buffer.memory_space = allocation.color();
      buffer.start = range->second.start;
      buffer.end = range->second.end;
      buffer.call_stack = InstructionCallStack(*value->instruction());
      if (!buffer.call_stack.empty()) buffer.source = buffer.call_stack.front();
      buffer.fused_sources = FusedSources(*value->instruction());
      report.buffers.push_back(std::move(buffer));
    }
  }
  std::sort(report.buffers.begin(), report.buffers.end(),
            [](const MemoryReportBuffer& a, const MemoryReportBuffer& b) {
              return std::tie(a.memory_space, a.allocation, a.offset, a.start, a.value_id) <
                     std::tie(b.memory_space, b.allocation, b.offset, b.start, b.value_id);
            });
  return report;
}

std::string SourceBytes::Label() const {
  if (!source.empty()) return source;
  return arguments ? "(the program's arguments)" : "(no source in the metadata)";
}

std::string MemoryReportTarget::ToString() const {
  if (!plan_error.empty()) {
    return absl::StrCat("target ", name, " cannot plan the module (", plan_error,
                        "): its device figure is the module's ",
                        FormatByteSize(module_device_bytes));
  }
  std::string text = absl::StrCat(
      "device arenas ", FormatByteSize(arena_device_bytes), " on ", name, ": the module's ",
      FormatByteSize(module_device_bytes), " ", added_bytes() < 0 ? "- " : "+ ",
      FormatByteSize(std::abs(added_bytes())), " (the executable's arena layout");
  if (!preparation.empty()) {
    absl::StrAppend(&text, "; the backend's preparation: ", absl::StrJoin(preparation, ", "));
  }
  absl::StrAppend(&text, ")");
  if (arena_host_bytes > 0)
    absl::StrAppend(&text, "; host arena ", FormatByteSize(arena_host_bytes));
  return text;
}

}  // namespace hmo
