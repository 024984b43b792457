#include "stream_timeline.h"

#include <algorithm>
#include <map>
#include <utility>

#include "fmt/format.h"

namespace hmo::cli {
namespace {

using Interval = std::pair<double, double>;

// The union of a stream's spans as disjoint sorted intervals.
std::vector<Interval> Busy(const std::vector<ExecutionProfile::StreamSpan>& timeline, const std::string& stream) {
  std::vector<Interval> spans;
  for (const ExecutionProfile::StreamSpan& span : timeline) {
    if (span.stream == stream && span.end_seconds > span.start_seconds) {
      spans.emplace_back(span.start_seconds, span.end_seconds);
    }
  }
  std::sort(spans.begin(), spans.end());
  std::vector<Interval> merged;
  for (const Interval& span : spans) {
    if (!merged.empty() && span.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, span.second);
    } else {
      merged.push_back(span);
    }
  }
  return merged;
}

double Total(const std::vector<Interval>& intervals) {
  double total = 0;
  for (const Interval& interval : intervals) total += interval.second - interval.first;
  return total;
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::vector<std::string> StreamsInOrder(const std::vector<ExecutionProfile::StreamSpan>& timeline) {
  std::vector<std::string> streams;
  for (const ExecutionProfile::StreamSpan& span : timeline) {
    if (std::find(streams.begin(), streams.end(), span.stream) == streams.end()) streams.push_back(span.stream);
  }
  return streams;
}

}  // namespace

double OverlapSeconds(const std::vector<ExecutionProfile::StreamSpan>& timeline, const std::string& a,
                      const std::string& b) {
  const std::vector<Interval> x = Busy(timeline, a), y = Busy(timeline, b);
  double overlap = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    overlap += std::max(0.0, std::min(x[i].second, y[j].second) - std::max(x[i].first, y[j].first));
    if (x[i].second < y[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return overlap;
}

std::string DescribeTimeline(const std::vector<ExecutionProfile::StreamSpan>& timeline) {
  if (timeline.empty()) return "";
  std::vector<std::string> parts;
  const std::vector<std::string> streams = StreamsInOrder(timeline);
  for (const std::string& stream : streams) {
    const int64_t ops = std::count_if(timeline.begin(), timeline.end(),
                                      [&](const ExecutionProfile::StreamSpan& s) { return s.stream == stream; });
    parts.push_back(fmt::format("{} {} op{} {:.3f} ms busy", stream, ops, ops == 1 ? "" : "s",
                                Total(Busy(timeline, stream)) * 1e3));
  }
  std::string text = fmt::format("  streams: {}", fmt::join(parts, ", "));
  if (std::find(streams.begin(), streams.end(), "copy") != streams.end() &&
      std::find(streams.begin(), streams.end(), "compute") != streams.end()) {
    text += fmt::format("; copy overlapped compute {:.3f} ms", OverlapSeconds(timeline, "copy", "compute") * 1e3);
  }
  return text + "\n";
}

std::string TimelineTraceJson(const std::vector<ExecutionProfile::StreamSpan>& timeline) {
  const std::vector<std::string> streams = StreamsInOrder(timeline);
  std::string json = "{\"traceEvents\": [\n";
  bool first = true;
  for (size_t t = 0; t < streams.size(); ++t) {
    json += fmt::format("{}  {{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": {}, "
                        "\"args\": {{\"name\": {}}}}}",
                        first ? "" : ",\n", t + 1, JsonString(streams[t]));
    first = false;
  }
  for (const ExecutionProfile::StreamSpan& span : timeline) {
    const size_t tid = std::find(streams.begin(), streams.end(), span.stream) - streams.begin() + 1;
    json += fmt::format(",\n  {{\"ph\": \"X\", \"name\": {}, \"pid\": 1, \"tid\": {}, \"ts\": {:.3f}, \"dur\": {:.3f}}}",
                        JsonString(span.label), tid, span.start_seconds * 1e6,
                        std::max(0.0, span.end_seconds - span.start_seconds) * 1e6);
  }
  return json + "\n]}\n";
}

}  // namespace hmo::cli
