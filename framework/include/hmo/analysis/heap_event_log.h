#ifndef HMO_ANALYSIS_HEAP_EVENT_LOG_H_
#define HMO_ANALYSIS_HEAP_EVENT_LOG_H_

// HeapEventLog: a recorded heap event stream that can be replayed into any
// heap algorithm (to run a fallback, or several packers on the same input).

#include <cstdint>
#include <vector>

#include "hmo/analysis/heap_algorithm.h"

namespace hmo {

template <typename BufferType>
class HeapEventLog {
 public:
  enum class Kind { kAlloc, kFree, kShareWith };
  struct Event {
    Kind kind;
    BufferType buffer;
    BufferType share_with;  // meaningful for kShareWith only
    int64_t size;
  };

  void Alloc(const BufferType& buffer, int64_t size) {
    events_.push_back({Kind::kAlloc, buffer, buffer, size});
  }
  void Free(const BufferType& buffer, int64_t size) {
    events_.push_back({Kind::kFree, buffer, buffer, size});
  }
  void ShareWith(const BufferType& buffer, const BufferType& share_with, int64_t size) {
    events_.push_back({Kind::kShareWith, buffer, share_with, size});
  }

  // Sends every event, in order, to `algorithm` (Finish is not called).
  void Replay(HeapAlgorithm<BufferType>& algorithm) const {
    for (const Event& event : events_) {
      switch (event.kind) {
        case Kind::kAlloc:
          algorithm.Alloc(event.buffer, event.size);
          break;
        case Kind::kFree:
          algorithm.Free(event.buffer, event.size);
          break;
        case Kind::kShareWith:
          algorithm.ShareWith(event.buffer, event.share_with, event.size);
          break;
      }
    }
  }

  const std::vector<Event>& events() const { return events_; }

 private:
  std::vector<Event> events_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_EVENT_LOG_H_
