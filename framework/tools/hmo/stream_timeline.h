#ifndef HMO_TOOLS_HMO_STREAM_TIMELINE_H_
#define HMO_TOOLS_HMO_STREAM_TIMELINE_H_

// How `hmo run --execute` shows an accelerator's stream timeline
// (ExecutionProfile::timeline): a summary of how busy each stream was and
// how long copies overlapped compute, and a Chrome trace (chrome://tracing,
// Perfetto) with one track per stream.

#include <string>
#include <vector>

#include "hmo/plugin/executable.h"

namespace hmo::cli {

// Seconds during which both a span of stream `a` and a span of stream `b`
// were running (the measure of the intersection of their unions).
double OverlapSeconds(const std::vector<ExecutionProfile::StreamSpan>& timeline, const std::string& a,
                      const std::string& b);

// "  streams: compute 12 ops 1.2 ms busy, copy 2 ops 0.3 ms busy; copy
// overlapped compute 0.25 ms\n"; empty for an empty timeline.
std::string DescribeTimeline(const std::vector<ExecutionProfile::StreamSpan>& timeline);

// The Chrome trace event format (complete events, microseconds), one
// thread per stream in first-appearance order.
std::string TimelineTraceJson(const std::vector<ExecutionProfile::StreamSpan>& timeline);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_STREAM_TIMELINE_H_
