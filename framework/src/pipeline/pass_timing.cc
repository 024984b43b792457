#include "hmo/pipeline/pass_timing.h"

#include <algorithm>
#include <vector>

#include "fmt/format.h"

namespace hmo {

void PassTimingTable::Record(std::string_view pass, std::chrono::nanoseconds elapsed) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = rows_.find(pass);
  if (it == rows_.end()) it = rows_.emplace(std::string(pass), Row{}).first;
  ++it->second.runs;
  it->second.total += elapsed;
}

std::string PassTimingTable::Format() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (rows_.empty()) return "";
  std::vector<std::pair<std::string, Row>> rows(rows_.begin(), rows_.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  std::chrono::nanoseconds total{0};
  int64_t runs = 0;
  size_t width = std::string_view("total").size();
  for (const auto& [name, row] : rows) {
    total += row.total;
    runs += row.runs;
    width = std::max(width, name.size());
  }
  auto ms = [](std::chrono::nanoseconds d) { return std::chrono::duration<double, std::milli>(d).count(); };
  auto percent = [&](std::chrono::nanoseconds d) {
    return total.count() == 0 ? 0.0 : 100.0 * static_cast<double>(d.count()) / total.count();
  };
  std::string out = fmt::format("{:<{}}  {:>6}  {:>12}  {:>6}\n", "pass", width, "runs",
                                "total (ms)", "share");
  for (const auto& [name, row] : rows) {
    fmt::format_to(std::back_inserter(out), "{:<{}}  {:>6}  {:>12.3f}  {:>5.1f}%\n", name, width,
                   row.runs, ms(row.total), percent(row.total));
  }
  fmt::format_to(std::back_inserter(out), "{:<{}}  {:>6}  {:>12.3f}  {:>5.1f}%\n", "total", width,
                 runs, ms(total), 100.0);
  return out;
}

absl::Status PassTimingInstrumentation::BeforePass(const PassRunInfo& /*run*/,
                                                   const HloModule& /*module*/) {
  start_ = std::chrono::steady_clock::now();
  return absl::OkStatus();
}

absl::Status PassTimingInstrumentation::AfterPass(const PassRunInfo& run,
                                                  const HloModule& /*module*/, bool /*changed*/) {
  table_.Record(run.pass_name, std::chrono::steady_clock::now() - start_);
  return absl::OkStatus();
}

}  // namespace hmo
