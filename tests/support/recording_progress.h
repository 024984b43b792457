#ifndef HMO_TESTS_SUPPORT_RECORDING_PROGRESS_H_
#define HMO_TESTS_SUPPORT_RECORDING_PROGRESS_H_

// A ProgressSink that keeps what it is told, for tests of work that reports
// progress (fit, the tight packing search, scheduler strategies).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hmo/base/progress_sink.h"

namespace hmo::test_support {

class RecordingProgress : public ProgressSink {
 public:
  struct Update {
    std::string task;
    int64_t done = 0;
    int64_t total = 0;
    std::string detail;
  };

  void Update(std::string_view task, int64_t done, int64_t total,
              std::string_view detail) override {
    updates.push_back({std::string(task), done, total, std::string(detail)});
    events.push_back(Line(updates.back()));
  }
  void Done() override {
    ++done_calls;
    events.push_back("done");
  }

  // "task done/total detail".
  static std::string Line(const struct Update& update) {
    return update.task + " " + std::to_string(update.done) + "/" + std::to_string(update.total) +
           " " + update.detail;
  }
  // Line() of each update, in order.
  std::vector<std::string> Lines() const {
    std::vector<std::string> lines;
    for (const struct Update& update : updates) lines.push_back(Line(update));
    return lines;
  }

  std::vector<struct Update> updates;
  // Line() of each update and "done" for each Done(), in the order they came.
  std::vector<std::string> events;
  int done_calls = 0;
};

}  // namespace hmo::test_support

#endif  // HMO_TESTS_SUPPORT_RECORDING_PROGRESS_H_
