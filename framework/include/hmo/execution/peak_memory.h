#ifndef HMO_EXECUTION_PEAK_MEMORY_H_
#define HMO_EXECUTION_PEAK_MEMORY_H_

// The process's resident set, as Linux reports it in /proc/self/status:
// VmRSS (now) and VmHWM (the high-water mark since the process started or
// since the mark was last reset). Used to report how much memory running a
// module really took, next to the arena bytes buffer assignment planned.

#include <cstdint>
#include <optional>
#include <string_view>

namespace hmo {

struct ResidentSetSize {
  int64_t current_bytes = 0;  // VmRSS
  int64_t peak_bytes = 0;     // VmHWM
};

// Parses the text of a /proc/<pid>/status file; nullopt when VmRSS or VmHWM
// is missing (kernel threads, non-Linux emulations).
std::optional<ResidentSetSize> ParseProcStatus(std::string_view text);

// Reads /proc/self/status; nullopt where it cannot be read or parsed.
std::optional<ResidentSetSize> ReadResidentSetSize();

// Resets VmHWM to the current VmRSS by writing "5" to /proc/self/clear_refs.
// Returns false where that is not permitted or not supported (e.g. some
// containers, non-Linux systems); VmHWM then keeps its old value.
bool ResetPeakResidentSetSize();

// Measures how far the resident set rose above its level at Start() while
// the measured work ran: resets the high-water mark, then reads VmHWM at
// Stop(). Where the mark cannot be reset, growth is still known when the
// work pushed VmHWM above its old value; otherwise it is unknown.
class PeakResidentSetMeter {
 public:
  void Start();
  // Returns the growth in bytes (>= 0), or -1 when unknown.
  int64_t Stop() const;

 private:
  std::optional<ResidentSetSize> start_;
  bool reset_ = false;
};

}  // namespace hmo

#endif  // HMO_EXECUTION_PEAK_MEMORY_H_
