// FormatMemoryReportJson: the stable JSON form of a MemoryReport
// (docs/memory-stats-json.md, schema "hmo.memory-stats/1"). Keys are written
// in a fixed order so reports diff cleanly.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/ir/instruction_source.h"
#include "memory_report_util.h"

namespace hmo {
namespace {

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

// The first kNamedFusedSources of `sources` as a JSON array, and how many
// are left out (a fusion of a whole layer can fuse ops of many lines).
std::string BoundedStringArray(const std::vector<std::string>& sources) {
  std::vector<std::string> items;
  for (size_t i = 0; i < sources.size() && i < kNamedFusedSources; ++i) {
    items.push_back(JsonString(sources[i]));
  }
  return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
}

int64_t NotShown(const std::vector<std::string>& sources) {
  return static_cast<int64_t>(sources.size() - std::min(sources.size(), kNamedFusedSources));
}

// Writes `"key": value` members with commas and indentation.
class JsonObjectWriter {
 public:
  JsonObjectWriter(std::string* out, int indent) : out_(out), indent_(indent) { *out_ += "{"; }
  void Raw(std::string_view key, const std::string& value) {
    absl::StrAppend(out_, first_ ? "\n" : ",\n", std::string(indent_ + 2, ' '), JsonString(key),
                    ": ", value);
    first_ = false;
  }
  void Int(std::string_view key, int64_t value) { Raw(key, absl::StrCat(value)); }
  void Bool(std::string_view key, bool value) { Raw(key, value ? "true" : "false"); }
  void String(std::string_view key, std::string_view value) { Raw(key, JsonString(value)); }
  void Close() { absl::StrAppend(out_, first_ ? "" : "\n", first_ ? "" : std::string(indent_, ' '), "}"); }

 private:
  std::string* out_;
  int indent_;
  bool first_ = true;
};

// Compact one-line object for array elements.
class JsonInlineObject {
 public:
  void Int(std::string_view key, int64_t value) { Add(key, absl::StrCat(value)); }
  void Bool(std::string_view key, bool value) { Add(key, value ? "true" : "false"); }
  void String(std::string_view key, std::string_view value) { Add(key, JsonString(value)); }
  // A string, or null when empty (a field the input does not have).
  void StringOrNull(std::string_view key, std::string_view value) {
    Add(key, value.empty() ? std::string("null") : JsonString(value));
  }
  void Raw(std::string_view key, const std::string& value) { Add(key, value); }
  std::string Done() const { return absl::StrCat("{", body_, "}"); }

 private:
  void Add(std::string_view key, const std::string& value) {
    absl::StrAppend(&body_, body_.empty() ? "" : ", ", JsonString(key), ": ", value);
  }
  std::string body_;
};

std::string Array(const std::vector<std::string>& items, int indent) {
  if (items.empty()) return "[]";
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "\n" : ",\n", std::string(indent + 2, ' '), items[i]);
  }
  absl::StrAppend(&out, "\n", std::string(indent, ' '), "]");
  return out;
}

}  // namespace

std::string FormatMemoryReportJson(const MemoryReport& report) {
  std::string out;
  JsonObjectWriter root(&out, 0);
  root.String("schema", "hmo.memory-stats/1");
  root.String("module", report.module_name);
  if (report.replica_count * report.partition_count > 1) {
    // Every figure is per device.
    root.Int("replicas", report.replica_count);
    root.Int("partitions", report.partition_count);
  }
  root.String("schedule", report.schedule_source);
  root.Int("schedule_length", report.schedule_length);
  {
    std::string options;
    JsonObjectWriter w(&options, 2);
    w.Int("pointer_size", report.options.pointer_size);
    w.Int("alignment", report.options.alignment);
    w.String("heap_algorithm", TempHeapAlgorithmName(report.options.heap_algorithm));
    w.Bool("allocate_buffers_for_constants", report.options.allocate_buffers_for_constants);
    w.Close();
    root.Raw("options", options);
  }
  {
    const CompiledMemoryStats& s = report.stats;
    std::string stats;
    JsonObjectWriter w(&stats, 2);
    w.Int("generated_code_size_in_bytes", s.generated_code_size_in_bytes);
    w.Int("argument_size_in_bytes", s.argument_size_in_bytes);
    w.Int("output_size_in_bytes", s.output_size_in_bytes);
    w.Int("alias_size_in_bytes", s.alias_size_in_bytes);
    w.Int("temp_size_in_bytes", s.temp_size_in_bytes);
    w.Int("host_generated_code_size_in_bytes", s.host_generated_code_size_in_bytes);
    w.Int("host_argument_size_in_bytes", s.host_argument_size_in_bytes);
    w.Int("host_output_size_in_bytes", s.host_output_size_in_bytes);
    w.Int("host_alias_size_in_bytes", s.host_alias_size_in_bytes);
    w.Int("host_temp_size_in_bytes", s.host_temp_size_in_bytes);
    w.Int("peak_estimate_in_bytes", s.PeakEstimateBytes());
    w.Int("host_peak_estimate_in_bytes", s.HostPeakEstimateBytes());
    w.Int("peak_memory_in_bytes", s.peak_memory_in_bytes);
    w.Close();
    root.Raw("stats", stats);
  }
  {
    const BufferAssignment::Stats& s = report.assignment_stats;
    std::string stats;
    JsonObjectWriter w(&stats, 2);
    w.Int("parameter_allocation_count", s.parameter_allocation_count);
    w.Int("parameter_allocation_bytes", s.parameter_allocation_bytes);
    w.Int("constant_allocation_count", s.constant_allocation_count);
    w.Int("constant_allocation_bytes", s.constant_allocation_bytes);
    w.Int("maybe_live_out_allocation_count", s.maybe_live_out_allocation_count);
    w.Int("maybe_live_out_allocation_bytes", s.maybe_live_out_allocation_bytes);
    w.Int("preallocated_temp_allocation_count", s.preallocated_temp_allocation_count);
    w.Int("preallocated_temp_allocation_bytes", s.preallocated_temp_allocation_bytes);
    w.Int("preallocated_temp_fragmentation_bytes", s.preallocated_temp_fragmentation_bytes);
    w.Int("total_allocation_count", s.total_allocation_count);
    w.Int("total_allocation_bytes", s.total_allocation_bytes);
    w.Close();
    root.Raw("buffer_assignment", stats);
  }
  root.Int("minimum_memory_for_module", report.minimum_memory_for_module);
  if (!report.target.name.empty()) {
    // The target's executable: its device arenas are the figure the limit
    // check, `fit` and execution use.
    const MemoryReportTarget& t = report.target;
    std::string target;
    JsonObjectWriter w(&target, 2);
    w.String("name", t.name);
    w.Int("module_device_bytes", t.module_device_bytes);
    w.Int("device_arena_bytes", t.arena_device_bytes);
    w.Int("host_arena_bytes", t.arena_host_bytes);
    w.Int("added_bytes", t.added_bytes());
    std::vector<std::string> preparation;
    for (const std::string& line : t.preparation) preparation.push_back(JsonString(line));
    w.Raw("preparation", Array(preparation, 4));
    if (!t.plan_error.empty()) w.String("plan_error", t.plan_error);
    w.Close();
    root.Raw("target", target);
  }
  {
    std::vector<std::string> heaps;
    for (const TempHeapSummary& heap : report.temp_heaps) {
      JsonInlineObject o;
      o.Int("memory_space", heap.color);
      o.Int("size", heap.heap_size);
      o.Int("lower_bound", heap.lower_bound);
      o.Int("xla_size", heap.xla_heap_size);
      o.String("algorithm", heap.algorithm);
      o.Int("values", heap.value_count);
      heaps.push_back(o.Done());
    }
    root.Raw("temp_heaps", Array(heaps, 2));
  }
  {
    std::vector<std::string> allocations;
    for (const MemoryReportAllocation& a : report.allocations) {
      JsonInlineObject o;
      o.Int("index", a.index);
      o.Int("size", a.size);
      o.Int("memory_space", a.memory_space);
      o.String("kind", AllocationKindName(a.kind));
      o.Bool("host", a.is_host);
      o.Bool("maybe_live_out", a.maybe_live_out);
      o.Bool("entry_parameter", a.is_entry_parameter);
      o.Int("parameter_number", a.parameter_number);
      o.String("parameter_index", a.parameter_index);
      o.Bool("aliased_with_output", a.parameter_aliased_with_output);
      o.Int("values", a.value_count);
      allocations.push_back(o.Done());
    }
    root.Raw("allocations", Array(allocations, 2));
  }
  {
    std::vector<std::string> buffers;
    for (const MemoryReportBuffer& b : report.buffers) {
      JsonInlineObject o;
      o.Int("value_id", b.value_id);
      o.String("instruction", b.instruction);
      o.String("computation", b.computation);
      o.String("index", b.index);
      o.String("shape", b.shape);
      o.Int("size", b.size);
      o.Int("allocation", b.allocation);
      o.Int("offset", b.offset);
      o.Int("memory_space", b.memory_space);
      o.Int("start", b.start);
      o.Int("end", b.end);
      o.StringOrNull("source", b.source);
      std::vector<std::string> frames;
      for (const std::string& frame : b.call_stack) frames.push_back(JsonString(frame));
      o.Raw("call_stack", absl::StrCat("[", absl::StrJoin(frames, ", "), "]"));
      o.Raw("fused_sources", BoundedStringArray(b.fused_sources));
      o.Int("fused_sources_not_shown", NotShown(b.fused_sources));
      buffers.push_back(o.Done());
    }
    root.Raw("buffers", Array(buffers, 2));
  }
  {
    std::vector<std::string> sources;
    for (const SourceBytes& entry : report.peak_by_source) {
      JsonInlineObject o;
      o.StringOrNull("source", entry.source);
      o.String("label", entry.Label());
      o.Int("bytes", entry.bytes);
      o.Int("values", entry.values);
      const std::vector<std::string> fused =
          memory_report_internal::FusedSourcesMadeAt(report, entry.source);
      o.Raw("fused_sources", BoundedStringArray(fused));
      o.Int("fused_sources_not_shown", NotShown(fused));
      sources.push_back(o.Done());
    }
    root.Raw("peak_by_source", Array(sources, 2));
  }
  root.Close();
  out += "\n";
  return out;
}

}  // namespace hmo
