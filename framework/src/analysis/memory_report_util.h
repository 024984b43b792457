#ifndef HMO_SRC_ANALYSIS_MEMORY_REPORT_UTIL_H_
#define HMO_SRC_ANALYSIS_MEMORY_REPORT_UTIL_H_

// Small text helpers shared by the memory report renderers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hmo/analysis/memory_report.h"

namespace hmo::memory_report_internal {

// "512 B", "1.50 KiB", "3.00 MiB", "1.25 GiB".
std::string HumanReadableBytes(int64_t bytes);

// Escapes &, <, >, " and ' for HTML text and attributes.
std::string HtmlEscape(std::string_view text);

// "device" / "host" / "S(1)" style name of a memory space.
std::string MemorySpaceName(int64_t memory_space);

// What the fusions made at `source` fused: the distinct fused sources of the
// report's device buffers with that source, in the buffers' order; empty
// when they fused only ops of `source` itself (nothing to add to its name).
std::vector<std::string> FusedSourcesMadeAt(const MemoryReport& report, std::string_view source);

}  // namespace hmo::memory_report_internal

#endif  // HMO_SRC_ANALYSIS_MEMORY_REPORT_UTIL_H_
