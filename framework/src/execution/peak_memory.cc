#include "hmo/execution/peak_memory.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace hmo {
namespace {

// The value of a "Key:   1234 kB" line, in bytes; nullopt when absent.
std::optional<int64_t> KilobyteField(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') {
      continue;
    }
    const std::string value(line.substr(key.size() + 1));
    char* rest = nullptr;
    const long long kilobytes = std::strtoll(value.c_str(), &rest, 10);
    if (rest == value.c_str()) return std::nullopt;
    return static_cast<int64_t>(kilobytes) * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ResidentSetSize> ParseProcStatus(std::string_view text) {
  const std::optional<int64_t> rss = KilobyteField(text, "VmRSS");
  const std::optional<int64_t> hwm = KilobyteField(text, "VmHWM");
  if (!rss.has_value() || !hwm.has_value()) return std::nullopt;
  return ResidentSetSize{*rss, *hwm};
}

std::optional<ResidentSetSize> ReadResidentSetSize() {
  std::ifstream in("/proc/self/status");
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return ParseProcStatus(text.str());
}

bool ResetPeakResidentSetSize() {
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

void PeakResidentSetMeter::Start() {
  reset_ = ResetPeakResidentSetSize();
  start_ = ReadResidentSetSize();
}

int64_t PeakResidentSetMeter::Stop() const {
  const std::optional<ResidentSetSize> now = ReadResidentSetSize();
  if (!start_.has_value() || !now.has_value()) return -1;
  // Without a reset, a peak not above the old mark is invisible.
  if (!reset_ && now->peak_bytes <= start_->peak_bytes) return -1;
  return std::max<int64_t>(0, now->peak_bytes - start_->current_bytes);
}

}  // namespace hmo
