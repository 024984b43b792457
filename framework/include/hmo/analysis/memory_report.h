#ifndef HMO_ANALYSIS_MEMORY_REPORT_H_
#define HMO_ANALYSIS_MEMORY_REPORT_H_

// MemoryReport: everything `hmo stats` and the `memory-report` pass print about a
// module's memory, gathered once from a BufferAssignment, then rendered as a
// text table, as JSON (schema: docs/memory-stats-json.md) or as a
// self-contained HTML page with a memory timeline.
//
// A module without a schedule is measured under a post-order schedule of each
// non-fusion computation (MakeInstructionPostOrder); the report says so.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include <utility>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/compiled_memory_stats.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct MemoryReportOptions {
  // Bytes of a tuple element pointer (tuple buffers are pointer tables).
  int64_t pointer_size = 8;
  // Alignment of buffer offsets in every memory space.
  int64_t alignment = 1;
  // How temp buffers are packed (buffer_assignment.h).
  TempHeapAlgorithm heap_algorithm = TempHeapAlgorithm::kBest;
  bool allocate_buffers_for_constants = false;
  // The tight packer's budget under kBest (its node budget decides the result).
  TightPackingOptions tight_packing;
};

// The largest buffer alignment and tuple pointer size accepted: offsets
// and sizes rounded up to more would overflow 64-bit arithmetic.
inline constexpr int64_t kMaxBufferAlignment = int64_t{1} << 30;
inline constexpr int64_t kMaxPointerSize = 1024;

// OK, or InvalidArgument naming the option out of range: pointer_size in
// [1, kMaxPointerSize], alignment in [1, kMaxBufferAlignment] (0 is taken as
// 1). Every buffer assignment under these options checks them first.
absl::Status ValidateMemoryReportOptions(const MemoryReportOptions& options);

// "xla" / "search" / "best" <-> TempHeapAlgorithm: one table, which option
// declarations list and the parser and printer read.
const std::vector<std::pair<std::string, TempHeapAlgorithm>>& TempHeapAlgorithmNames();
absl::StatusOr<TempHeapAlgorithm> ParseTempHeapAlgorithm(std::string_view name);
std::string_view TempHeapAlgorithmName(TempHeapAlgorithm algorithm);

// What an allocation holds, in the order the report decides it: an entry
// parameter (even when also an output), an output, a constant, a
// thread-local buffer, or temporaries.
enum class AllocationKind { kParameter, kOutput, kConstant, kThreadLocal, kTemp };
// "parameter", "output", "constant", "thread-local", "temp": the names the
// table, the JSON and the messages print.
std::string_view AllocationKindName(AllocationKind kind);

// One allocation.
struct MemoryReportAllocation {
  int64_t index = 0;
  int64_t size = 0;
  int64_t memory_space = 0;
  AllocationKind kind = AllocationKind::kTemp;
  bool is_host = false;
  bool maybe_live_out = false;
  bool is_entry_parameter = false;
  bool parameter_aliased_with_output = false;
  int64_t parameter_number = -1;
  std::string parameter_index;  // "{}" / "{1,0}"; empty unless a parameter
  int64_t value_count = 0;
};

// One value placed in an allocation and live in the flattened schedule: a
// rectangle of the memory timeline.
struct MemoryReportBuffer {
  int64_t value_id = 0;
  std::string instruction;
  std::string computation;
  std::string index;  // "{}" / "{1}"
  std::string shape;  // with layout
  int64_t size = 0;
  int64_t allocation = 0;
  int64_t offset = 0;  // inside the allocation
  int64_t memory_space = 0;
  int64_t start = 0;  // schedule times, inclusive
  int64_t end = 0;
  // Where the user's program made the instruction (hmo/ir/instruction_source.h):
  // "file:line (function)", empty without metadata; and its call stack,
  // innermost first. A fusion without metadata of its own is named by what
  // it fused (SourceInstruction).
  std::string source;
  std::vector<std::string> call_stack;
  // A fusion's value: the distinct sources of the ops it fused, in the
  // fused computation's order (FusedSources); empty otherwise.
  std::vector<std::string> fused_sources;
};

// Device bytes live at the peak that one source line made
// (BytesBySource, memory_limit.h).
struct SourceBytes {
  std::string source;  // "file:line (function)"; empty when the metadata names none
  // Without a source: the program's arguments (the caller's values, which
  // carry no metadata) rather than values the module made.
  bool arguments = false;
  int64_t bytes = 0;
  int64_t values = 0;
  // The source, or "(the program's arguments)" / "(no source in the metadata)".
  std::string Label() const;
};

// What a target's executable allocates for the module (filled by
// BuildTargetMemoryReport, target_memory_model.h): its device arena bytes
// against XLA's figure of the module as written (argument + output - alias +
// temp), and the instructions its preparation added or expanded, by name.
// The one device figure of a target: the limit check, `fit`, `hmo stats`,
// `memory-report` and the executed arenas all print arena_device_bytes.
struct MemoryReportTarget {
  std::string name;                 // "cpu"
  int64_t module_device_bytes = 0;  // the module as written
  int64_t arena_device_bytes = 0;   // what the executable allocates
  int64_t arena_host_bytes = 0;
  // "2 copies (copy.3, copy.4)", "1 fusion expanded (fusion.2)", ...
  std::vector<std::string> preparation;
  // Why the target cannot plan the module (e.g. memory spaces it does not
  // have); the arena figures are then the module's own.
  std::string plan_error;

  int64_t added_bytes() const { return arena_device_bytes - module_device_bytes; }
  // "device arenas 4544 B on cpu: the module's 4416 B + 128 B (the
  // executable's arena layout; the backend's preparation: 1 copy (copy.3))".
  std::string ToString() const;
};

struct MemoryReport {
  std::string module_name;
  // The module's devices (replica_count x num_partitions of its config):
  // every figure is one device's, as XLA's memory_analysis() of an SPMD
  // program is.
  int64_t replica_count = 1;
  int64_t partition_count = 1;
  // "module" (the module's own schedule) or "post-order".
  std::string schedule_source;
  int64_t schedule_length = 0;
  MemoryReportOptions options;
  CompiledMemoryStats stats;
  BufferAssignment::Stats assignment_stats;
  std::vector<TempHeapSummary> temp_heaps;
  // HeapSimulator::MinimumMemoryForModule over every value (constants
  // excluded): the peak of bytes live at once in the whole module.
  int64_t minimum_memory_for_module = 0;
  std::vector<MemoryReportAllocation> allocations;
  // Sorted by (memory space, allocation, offset, start, value id).
  std::vector<MemoryReportBuffer> buffers;
  // Set by BuildTargetMemoryReport (name empty otherwise).
  MemoryReportTarget target;
  // Set by BuildTargetMemoryReport: the device values live at the peak of
  // temporaries (as the memory-limit check finds it) by source line, largest
  // first.
  std::vector<SourceBytes> peak_by_source;
};

// Assigns buffers of `module` under `schedule` as `options` say (values
// sized at options.pointer_size, every memory space aligned to
// options.alignment): the assignment every report and target plan measures.
absl::StatusOr<std::unique_ptr<BufferAssignment>> AssignBuffersAsReported(
    const HloModule& module, const HloSchedule& schedule, const MemoryReportOptions& options);

// Assigns buffers and gathers the report. Errors: analysis errors (e.g. an
// unsupported module).
absl::StatusOr<MemoryReport> BuildMemoryReport(const HloModule& module,
                                               const MemoryReportOptions& options = {});
// The report of an assignment already made under `options` (its module's
// schedule: schedule_source "module").
absl::StatusOr<MemoryReport> BuildMemoryReportFromAssignment(const BufferAssignment& assignment,
                                                             const MemoryReportOptions& options);

enum class MemoryReportFormat { kTable, kJson, kHtml };
// "table" / "json" / "html" <-> MemoryReportFormat (one table, as above).
const std::vector<std::pair<std::string, MemoryReportFormat>>& MemoryReportFormatNames();
absl::StatusOr<MemoryReportFormat> ParseMemoryReportFormat(std::string_view name);

// Human-readable summary: the stats per side, temp heaps, allocations.
std::string FormatMemoryReportTable(const MemoryReport& report);
// The stable JSON document of docs/memory-stats-json.md (ends with "\n").
std::string FormatMemoryReportJson(const MemoryReport& report);
// A self-contained HTML page: the stats and one SVG memory timeline per
// memory space, one <rect> per buffer (x = schedule time, y = address, color
// = memory space, <title> = instruction, shape, size), a line at the lower
// bound. Needs no network access.
std::string FormatMemoryReportHtml(const MemoryReport& report);
std::string FormatMemoryReport(const MemoryReport& report, MemoryReportFormat format);

}  // namespace hmo

#endif  // HMO_ANALYSIS_MEMORY_REPORT_H_
