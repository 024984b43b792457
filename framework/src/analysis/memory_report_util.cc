#include "memory_report_util.h"

#include <cstdio>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/ir/shape.h"

namespace hmo::memory_report_internal {

std::string HumanReadableBytes(int64_t bytes) {
  const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const bool negative = bytes < 0;
  double value = negative ? -static_cast<double>(bytes) : static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[64];
  if (unit == 0) {
    std::snprintf(buffer, sizeof(buffer), "%s%lld B", negative ? "-" : "",
                  static_cast<long long>(negative ? -bytes : bytes));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%s%.2f %s", negative ? "-" : "", value, units[unit]);
  }
  return buffer;
}

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string MemorySpaceName(int64_t memory_space) {
  if (memory_space == Layout::kDefaultMemorySpace) return "device";
  if (memory_space == Layout::kHostMemorySpace) return "host";
  return absl::StrCat("S(", memory_space, ")");
}

std::vector<std::string> FusedSourcesMadeAt(const MemoryReport& report, std::string_view source) {
  std::vector<std::string> sources;
  if (source.empty()) return sources;
  absl::flat_hash_set<std::string_view> seen;
  bool other = false;
  for (const MemoryReportBuffer& buffer : report.buffers) {
    if (buffer.memory_space == Layout::kHostMemorySpace || buffer.source != source) continue;
    for (const std::string& fused : buffer.fused_sources) {
      if (!seen.insert(fused).second) continue;
      sources.push_back(fused);
      other |= fused != source;
    }
  }
  if (!other) sources.clear();
  return sources;
}

}  // namespace hmo::memory_report_internal
