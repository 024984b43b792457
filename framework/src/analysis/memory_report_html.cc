// FormatMemoryReportHtml: a self-contained page (inline CSS, inline SVG, a
// few lines of inline script, no external resources) with the memory stats
// and one timeline per memory space.
//
// Timeline geometry: the allocations of a memory space (thread-local ones
// excluded) are stacked in index order from address 0; a buffer's address is
// its allocation's base plus its offset. x = schedule time (a buffer covers
// [start, end + 1)), y = address, growing upwards. The dashed line marks the
// lower bound: the stacked size minus the fragmentation the temp packing left
// (sum over that space's temp heaps of size - lower bound).

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/ir/instruction_source.h"
#include "memory_report_util.h"

namespace hmo {

using memory_report_internal::HtmlEscape;
using memory_report_internal::HumanReadableBytes;
using memory_report_internal::MemorySpaceName;

namespace {

constexpr double kPlotWidth = 1000;
constexpr double kPlotHeight = 420;
constexpr double kLeftMargin = 90;
constexpr double kBottomMargin = 40;
constexpr double kTopMargin = 20;

std::string ColorOfMemorySpace(int64_t memory_space) {
  switch (memory_space) {
    case 0:
      return "#4e79a7";
    case 1:
      return "#f28e2b";
    case 5:
      return "#59a14f";
    default: {
      static const char* const kPalette[] = {"#e15759", "#76b7b2", "#edc948", "#b07aa1",
                                             "#ff9da7", "#9c755f"};
      return kPalette[static_cast<size_t>(memory_space) % 6];
    }
  }
}

// The bytes live at the peak by the line of the user's program that made
// them, largest first (what the table format lists as its ten largest).
std::string PeakBySourceTable(const MemoryReport& report) {
  if (report.peak_by_source.empty()) return "";
  std::string out =
      "<h2>Live at the peak, by where the program made them</h2>\n"
      "<table id=\"peak-by-source\">\n<tr><th>made at</th><th>bytes</th><th>values</th>"
      "<th>fuses ops from</th></tr>\n";
  for (const SourceBytes& entry : report.peak_by_source) {
    const std::vector<std::string> fused =
        memory_report_internal::FusedSourcesMadeAt(report, entry.source);
    std::string fused_text;
    for (const std::string& source : fused) {
      absl::StrAppend(&fused_text, fused_text.empty() ? "" : ", ", HtmlEscape(source));
    }
    absl::StrAppend(&out, "<tr><td>", HtmlEscape(entry.Label()), "</td><td title=\"", entry.bytes,
                    " bytes\">", HumanReadableBytes(entry.bytes), "</td><td>", entry.values,
                    "</td><td>", fused_text, "</td></tr>\n");
  }
  absl::StrAppend(&out, "</table>\n");
  return out;
}

std::string StatsTable(const MemoryReport& report) {
  const CompiledMemoryStats& s = report.stats;
  struct Row {
    const char* label;
    int64_t device;
    int64_t host;
  };
  const Row rows[] = {
      {"arguments", s.argument_size_in_bytes, s.host_argument_size_in_bytes},
      {"outputs", s.output_size_in_bytes, s.host_output_size_in_bytes},
      {"aliased (argument = output)", s.alias_size_in_bytes, s.host_alias_size_in_bytes},
      {"temp", s.temp_size_in_bytes, s.host_temp_size_in_bytes},
      {"generated code", s.generated_code_size_in_bytes, s.host_generated_code_size_in_bytes},
      {"peak estimate", s.PeakEstimateBytes(), s.HostPeakEstimateBytes()},
  };
  std::string out =
      "<table class=\"stats\"><tr><th></th><th>device</th><th>host (S(5))</th></tr>\n";
  for (const Row& row : rows) {
    absl::StrAppend(&out, "<tr><td>", row.label, "</td><td title=\"", row.device, " bytes\">",
                    HumanReadableBytes(row.device), "</td><td title=\"", row.host, " bytes\">",
                    HumanReadableBytes(row.host), "</td></tr>\n");
  }
  absl::StrAppend(&out, "</table>\n<p>Peak memory (XLA's estimate over the assignment): ",
                  HumanReadableBytes(s.peak_memory_in_bytes),
                  ". Minimum for the module (peak of bytes live at once): ",
                  HumanReadableBytes(report.minimum_memory_for_module), ".</p>\n");
  if (!report.target.name.empty()) {
    absl::StrAppend(&out, "<p id=\"target\">", HtmlEscape(report.target.ToString()), ".</p>\n");
  }
  if (!report.temp_heaps.empty()) {
    absl::StrAppend(&out,
                    "<table class=\"heaps\"><tr><th>memory space</th><th>temp heap</th>"
                    "<th>lower bound</th><th>XLA best fit</th><th>algorithm</th>"
                    "<th>values</th></tr>\n");
    for (const TempHeapSummary& heap : report.temp_heaps) {
      absl::StrAppend(&out, "<tr><td>", MemorySpaceName(heap.color), "</td><td>",
                      HumanReadableBytes(heap.heap_size), "</td><td>",
                      HumanReadableBytes(heap.lower_bound), "</td><td>",
                      HumanReadableBytes(heap.xla_heap_size), "</td><td>",
                      HtmlEscape(heap.algorithm), "</td><td>", heap.value_count, "</td></tr>\n");
    }
    absl::StrAppend(&out, "</table>\n");
  }
  return out;
}

std::string Timeline(const MemoryReport& report, int64_t memory_space) {
  // Allocation bases, stacked in index order.
  std::map<int64_t, int64_t> base_of_allocation;
  int64_t height = 0;
  for (const MemoryReportAllocation& a : report.allocations) {
    if (a.memory_space != memory_space || a.kind == AllocationKind::kThreadLocal) continue;
    base_of_allocation[a.index] = height;
    height += a.size;
  }
  int64_t fragmentation = 0;
  for (const TempHeapSummary& heap : report.temp_heaps) {
    if (heap.color == memory_space) fragmentation += heap.heap_size - heap.lower_bound;
  }
  const int64_t lower_bound = height - fragmentation;
  const double time_span = std::max<int64_t>(1, report.schedule_length);
  const double xs = kPlotWidth / time_span;
  const double ys = kPlotHeight / static_cast<double>(std::max<int64_t>(1, height));
  const std::string fill = ColorOfMemorySpace(memory_space);

  std::string out;
  int64_t count = 0;
  for (const MemoryReportBuffer& b : report.buffers) {
    if (b.memory_space == memory_space) ++count;
  }
  absl::StrAppend(&out, "<h2>Memory space ", memory_space, " (", MemorySpaceName(memory_space),
                  "): ", HumanReadableBytes(height), ", ", count, " buffers</h2>\n");
  absl::StrAppendFormat(&out,
                        "<svg class=\"timeline\" data-memory-space=\"%d\" width=\"%.0f\" "
                        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                        "xmlns=\"http://www.w3.org/2000/svg\">\n",
                        memory_space, kLeftMargin + kPlotWidth + 20,
                        kTopMargin + kPlotHeight + kBottomMargin, kLeftMargin + kPlotWidth + 20,
                        kTopMargin + kPlotHeight + kBottomMargin);
  absl::StrAppendFormat(&out, "<g transform=\"translate(%.0f,%.0f)\">\n", kLeftMargin, kTopMargin);
  // Axes.
  absl::StrAppendFormat(&out,
                        "<line class=\"axis\" x1=\"0\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
                        "<line class=\"axis\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"%.1f\"/>\n",
                        kPlotHeight, kPlotWidth, kPlotHeight, kPlotHeight);
  absl::StrAppendFormat(&out,
                        "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                        "schedule time (0 to %d)</text>\n",
                        kPlotWidth / 2, kPlotHeight + 28, report.schedule_length);
  absl::StrAppendFormat(&out,
                        "<text class=\"label\" x=\"-8\" y=\"0\" text-anchor=\"end\">%s</text>\n"
                        "<text class=\"label\" x=\"-8\" y=\"%.1f\" text-anchor=\"end\">0</text>\n",
                        HtmlEscape(HumanReadableBytes(height)), kPlotHeight);
  // Buffers.
  for (const MemoryReportBuffer& b : report.buffers) {
    if (b.memory_space != memory_space) continue;
    auto base = base_of_allocation.find(b.allocation);
    const int64_t address = (base == base_of_allocation.end() ? 0 : base->second) + b.offset;
    const double x = b.start * xs;
    const double w = std::max(0.5, (b.end - b.start + 1) * xs);
    const double h = std::max(0.5, b.size * ys);
    const double y = kPlotHeight - (address + b.size) * ys;
    const std::string title = absl::StrCat(
        b.instruction, b.index == "{}" ? "" : b.index, " (", b.computation, ")\n", b.shape, "\n",
        b.size, " bytes (", HumanReadableBytes(b.size), ")\nallocation ", b.allocation, ", offset ",
        b.offset, "\nlive [", b.start, ", ", b.end, "]", b.source.empty() ? "" : "\nmade at ",
        b.source, b.fused_sources.empty() ? "" : "\n", FusedSourcesText(b.fused_sources));
    absl::StrAppendFormat(&out,
                          "<rect class=\"buffer\" x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" "
                          "height=\"%.3f\" fill=\"%s\" data-value-id=\"%d\"><title>%s</title></rect>\n",
                          x, y, w, h, fill, b.value_id, HtmlEscape(title));
  }
  // Lower bound.
  const double lower_y = kPlotHeight - lower_bound * ys;
  absl::StrAppendFormat(&out,
                        "<line class=\"lower-bound\" x1=\"0\" y1=\"%.3f\" x2=\"%.1f\" y2=\"%.3f\">"
                        "<title>lower bound: %d bytes</title></line>\n"
                        "<text class=\"label\" x=\"%.1f\" y=\"%.3f\" text-anchor=\"end\">"
                        "lower bound %s</text>\n",
                        lower_y, kPlotWidth, lower_y, lower_bound, kPlotWidth - 4, lower_y - 4,
                        HtmlEscape(HumanReadableBytes(lower_bound)));
  absl::StrAppend(&out, "</g>\n</svg>\n");
  return out;
}

}  // namespace

std::string FormatMemoryReportHtml(const MemoryReport& report) {
  std::string out;
  absl::StrAppend(&out,
                  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<title>hmo memory report: ",
                  HtmlEscape(report.module_name),
                  "</title>\n<style>\n"
                  "body { font-family: sans-serif; margin: 1.5em; color: #222; }\n"
                  "table { border-collapse: collapse; margin: 0.5em 0 1em 0; }\n"
                  "td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }\n"
                  "td:first-child, th:first-child { text-align: left; }\n"
                  "svg.timeline { background: #fafafa; border: 1px solid #ddd; }\n"
                  "rect.buffer { stroke: #fff; stroke-width: 0.2; opacity: 0.85; }\n"
                  "rect.buffer:hover { opacity: 1; stroke: #000; stroke-width: 1; }\n"
                  ".axis { stroke: #555; stroke-width: 1; }\n"
                  ".lower-bound { stroke: #d62728; stroke-width: 1.5; stroke-dasharray: 6 4; }\n"
                  ".label { font-size: 11px; fill: #444; }\n"
                  "</style>\n</head>\n<body>\n");
  absl::StrAppend(&out, "<h1>Memory report: ", HtmlEscape(report.module_name), "</h1>\n",
                  "<p>Schedule: ", HtmlEscape(report.schedule_source), ", ",
                  report.schedule_length, " steps. Pointer size ", report.options.pointer_size,
                  ", alignment ", report.options.alignment, ", heap algorithm ",
                  std::string(TempHeapAlgorithmName(report.options.heap_algorithm)),
                  ". <span id=\"buffer-count\">", report.buffers.size(),
                  "</span> buffers; <span id=\"rect-count\">?</span> drawn.</p>\n");
  absl::StrAppend(&out, StatsTable(report), PeakBySourceTable(report));
  std::vector<int64_t> spaces;
  for (const MemoryReportAllocation& a : report.allocations) {
    if (a.kind != AllocationKind::kThreadLocal &&
        std::find(spaces.begin(), spaces.end(), a.memory_space) == spaces.end()) {
      spaces.push_back(a.memory_space);
    }
  }
  std::sort(spaces.begin(), spaces.end());
  for (int64_t space : spaces) absl::StrAppend(&out, Timeline(report, space));
  // Lets a headless browser (and a reader) check that every buffer was drawn.
  absl::StrAppend(&out,
                  "<script>\n"
                  "document.getElementById('rect-count').textContent =\n"
                  "    String(document.querySelectorAll('svg.timeline rect.buffer').length);\n"
                  "</script>\n</body>\n</html>\n");
  return out;
}

}  // namespace hmo
