#ifndef HMO_PIPELINE_PASS_TIMING_H_
#define HMO_PIPELINE_PASS_TIMING_H_

// `--time-passes`: wall time per pass, summed over every run of the pass in
// every module, printed as a table.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "hmo/pipeline/pass_instrumentation.h"

namespace hmo {

// The totals; shared by all module runs (thread-safe).
class PassTimingTable {
 public:
  // Adds one run of `pass` that took `elapsed`.
  void Record(std::string_view pass, std::chrono::nanoseconds elapsed);

  // Returns the table: one row per pass (runs, total ms, share of the total),
  // slowest first, and a total row. Empty when nothing was recorded.
  std::string Format() const;

 private:
  struct Row {
    int64_t runs = 0;
    std::chrono::nanoseconds total{0};
  };
  mutable std::mutex mutex_;
  std::map<std::string, Row, std::less<>> rows_;
};

// Times the passes of one module run into a shared table.
class PassTimingInstrumentation : public PassInstrumentation {
 public:
  explicit PassTimingInstrumentation(PassTimingTable& table) : table_(table) {}

  absl::Status BeforePass(const PassRunInfo& run, const HloModule& module) override;
  absl::Status AfterPass(const PassRunInfo& run, const HloModule& module, bool changed) override;

 private:
  PassTimingTable& table_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hmo

#endif  // HMO_PIPELINE_PASS_TIMING_H_
