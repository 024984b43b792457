#ifndef HMO_BASE_PROGRESS_SINK_H_
#define HMO_BASE_PROGRESS_SINK_H_

// Progress of long work (a fit's search, a packing search), for a person
// watching. Work that can run longer than a second or two reports its steps
// here when it is given a sink; the sink decides what to show (the hmo tool
// draws one line on a terminal and nothing otherwise), so the work never
// writes to the terminal itself. Reports come from the thread doing the
// work; a sink is called from one thread at a time.

#include <cstdint>
#include <string_view>

namespace hmo {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // `task` has done `done` of `total` steps (total 0: not known; done 0:
  // none yet), with
  // `detail` (e.g. the best figure so far). May be called often: the sink
  // rate-limits.
  virtual void Update(std::string_view task, int64_t done, int64_t total,
                      std::string_view detail) = 0;
  // The task of the last Update ended: what it showed goes away.
  virtual void Done() = 0;
};

}  // namespace hmo

#endif  // HMO_BASE_PROGRESS_SINK_H_
