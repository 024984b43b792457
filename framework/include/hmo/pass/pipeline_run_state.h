#ifndef HMO_PASS_PIPELINE_RUN_STATE_H_
#define HMO_PASS_PIPELINE_RUN_STATE_H_

// State that the passes of one pipeline run on one module share (e.g. the
// memory reports a later report compares with). The pass manager creates one
// per PassManager::Run and drops it when the run ends, so nothing carries over
// between runs or modules, and runs of different modules on different threads
// share nothing.

#include <memory>
#include <typeindex>
#include <typeinfo>

#include "absl/container/flat_hash_map.h"

namespace hmo {

class PipelineRunState {
 public:
  PipelineRunState() = default;
  PipelineRunState(const PipelineRunState&) = delete;
  PipelineRunState& operator=(const PipelineRunState&) = delete;

  // The run's one `T` (default-constructed on first use). A pass names its
  // own type for its state; the object lives until the run ends.
  template <typename T>
  T& GetOrCreate() {
    std::shared_ptr<void>& slot = objects_[std::type_index(typeid(T))];
    if (slot == nullptr) slot = std::make_shared<T>();
    return *static_cast<T*>(slot.get());
  }

 private:
  absl::flat_hash_map<std::type_index, std::shared_ptr<void>> objects_;
};

}  // namespace hmo

#endif  // HMO_PASS_PIPELINE_RUN_STATE_H_
