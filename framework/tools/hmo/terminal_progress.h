#ifndef HMO_TOOLS_HMO_TERMINAL_PROGRESS_H_
#define HMO_TOOLS_HMO_TERMINAL_PROGRESS_H_

// The hmo tool's ProgressSink: one line on stderr, redrawn in place at most
// ten times a second and cleared when the work ends. Only for a terminal:
// ForStderr gives none when stderr is not one or the user asked for quiet.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>

#include "hmo/base/progress_sink.h"

namespace hmo::cli {

class TerminalProgress : public ProgressSink {
 public:
  // A sink drawing on stderr when it is a terminal and `quiet` is false;
  // null otherwise.
  static std::unique_ptr<TerminalProgress> ForStderr(bool quiet);

  void Update(std::string_view task, int64_t done, int64_t total, std::string_view detail) override;
  void Done() override;

 private:
  TerminalProgress() = default;

  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_ = false;
};

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_TERMINAL_PROGRESS_H_
