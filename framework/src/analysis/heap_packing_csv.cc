#include "hmo/analysis/heap_packing_csv.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/input_file.h"

namespace hmo {
namespace {

std::vector<std::string_view> SplitCsvLine(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t begin = 0;
  while (true) {
    const size_t comma = line.find(',', begin);
    std::string_view field = line.substr(begin, comma == std::string_view::npos ? line.npos
                                                                                  : comma - begin);
    while (!field.empty() && (field.back() == ' ' || field.back() == '\r')) field.remove_suffix(1);
    while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
    fields.push_back(field);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return fields;
}

bool ParseInt(std::string_view text, int64_t& value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

// Every packing is at most the sum of the sizes (plus alignment padding), so
// bounding the sum keeps offsets and heights representable in int64 for any
// algorithm and alignment a caller can ask for.
constexpr int64_t kMaxTotalSize = std::numeric_limits<int64_t>::max() / 4;

}  // namespace

absl::StatusOr<std::vector<HeapCsvBuffer>> ParseHeapCsv(std::string_view text,
                                                        std::string_view file_name) {
  const std::string file(file_name);
  std::vector<HeapCsvBuffer> buffers;
  int column_id = -1, column_lower = -1, column_upper = -1, column_size = -1;
  size_t line_number = 0;
  size_t position = 0;
  int64_t total_size = 0;
  while (position <= text.size()) {
    const size_t newline = text.find('\n', position);
    std::string_view line = text.substr(
        position, newline == std::string_view::npos ? text.npos : newline - position);
    position = newline == std::string_view::npos ? text.size() + 1 : newline + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::vector<std::string_view> fields = SplitCsvLine(line);
    // FILE:LINE:COL, the column of `field` (1-based) or of the line's start.
    auto error_at = [&](std::string_view field, const std::string& message) {
      const size_t column = field.data() >= line.data() && field.data() <= line.data() + line.size()
                                ? static_cast<size_t>(field.data() - line.data()) + 1
                                : 1;
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_number, ":", column, ": error: ", message));
    };
    auto error = [&](const std::string& message) { return error_at(line, message); };
    if (column_size < 0) {
      for (int i = 0; i < static_cast<int>(fields.size()); ++i) {
        if (fields[i] == "id") column_id = i;
        if (fields[i] == "lower" || fields[i] == "start") column_lower = i;
        if (fields[i] == "upper" || fields[i] == "end") column_upper = i;
        if (fields[i] == "size") column_size = i;
      }
      if (column_lower < 0 || column_upper < 0 || column_size < 0) {
        return error("header must name the columns lower, upper and size");
      }
      continue;
    }
    const int needed = std::max({column_id, column_lower, column_upper, column_size});
    if (static_cast<int>(fields.size()) <= needed) {
      return error(absl::StrCat("expected at least ", needed + 1, " fields"));
    }
    HeapCsvBuffer buffer;
    buffer.id = column_id >= 0 ? std::string(fields[column_id])
                               : absl::StrCat(buffers.size());
    if (!ParseInt(fields[column_lower], buffer.lower)) {
      return error_at(fields[column_lower], "lower must be an integer (int64)");
    }
    if (!ParseInt(fields[column_upper], buffer.upper)) {
      return error_at(fields[column_upper], "upper must be an integer (int64)");
    }
    if (!ParseInt(fields[column_size], buffer.size)) {
      return error_at(fields[column_size], "size must be an integer (int64)");
    }
    if (buffer.upper <= buffer.lower) {
      return error_at(fields[column_upper], "upper must be greater than lower");
    }
    if (buffer.size < 0) return error_at(fields[column_size], "size must not be negative");
    if (buffer.size > kMaxTotalSize - total_size) {
      return error_at(fields[column_size],
                      absl::StrCat("the sizes up to this buffer sum to more than ", kMaxTotalSize,
                                   " bytes, which no packing could address"));
    }
    total_size += buffer.size;
    buffers.push_back(std::move(buffer));
  }
  if (column_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat(file, ":1: error: missing header line"));
  }
  return buffers;
}

absl::StatusOr<std::vector<HeapCsvBuffer>> ReadHeapCsvFile(const std::string& path) {
  absl::StatusOr<std::string> contents = ReadInputFile(path);
  if (!contents.ok()) {
    if (absl::IsNotFound(contents.status())) {
      return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
    }
    return contents.status();
  }
  return ParseHeapCsv(*contents, path);
}

HeapEventLog<int32_t> HeapEventsFromCsvBuffers(const std::vector<HeapCsvBuffer>& buffers) {
  // (time, 0 = free / 1 = alloc, index)
  std::vector<std::tuple<int64_t, int, int32_t>> events;
  events.reserve(buffers.size() * 2);
  for (int32_t i = 0; i < static_cast<int32_t>(buffers.size()); ++i) {
    events.emplace_back(buffers[i].lower, 1, i);
    events.emplace_back(buffers[i].upper, 0, i);
  }
  std::sort(events.begin(), events.end());
  HeapEventLog<int32_t> log;
  for (const auto& [time, is_alloc, index] : events) {
    if (is_alloc) {
      log.Alloc(index, buffers[index].size);
    } else {
      log.Free(index, buffers[index].size);
    }
  }
  return log;
}

}  // namespace hmo
