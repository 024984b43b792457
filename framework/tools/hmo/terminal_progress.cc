#include "terminal_progress.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "fmt/format.h"

namespace hmo::cli {
namespace {

// Carriage return, the line, then "erase to the end of the line": the one
// place the tool draws with escape codes.
constexpr std::string_view kEraseToEnd = "\033[K";
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

std::unique_ptr<TerminalProgress> TerminalProgress::ForStderr(bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return nullptr;
  return std::unique_ptr<TerminalProgress>(new TerminalProgress());
}

void TerminalProgress::Update(std::string_view task, int64_t done, int64_t total,
                              std::string_view detail) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  // "done/total", "step done" when the total is not known, nothing before
  // the first step.
  const std::string steps = total > 0  ? fmt::format("{}/{}", done, total)
                            : done > 0 ? fmt::format("step {}", done)
                                       : std::string();
  fmt::print(stderr, "\r{}: {}{}{}{}", task, steps, steps.empty() || detail.empty() ? "" : ", ",
             detail, kEraseToEnd);
  std::fflush(stderr);
}

void TerminalProgress::Done() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!drawn_) return;
  drawn_ = false;
  fmt::print(stderr, "\r{}", kEraseToEnd);
  std::fflush(stderr);
}

}  // namespace hmo::cli
