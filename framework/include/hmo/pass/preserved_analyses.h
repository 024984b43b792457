#ifndef HMO_PASS_PRESERVED_ANALYSES_H_
#define HMO_PASS_PRESERVED_ANALYSES_H_

// Which cached analyses stay valid after a pass changed the module.

#include <typeindex>

#include "absl/container/flat_hash_set.h"

namespace hmo {

class PreservedAnalyses {
 public:
  // Marks analysis type `A` as still valid.
  template <typename A>
  void Preserve() {
    types_.insert(std::type_index(typeid(A)));
  }
  // Marks every analysis as still valid (the pass changed nothing an analysis
  // looks at, e.g. only metadata).
  void PreserveAll() { all_ = true; }

  // Returns whether the analysis of type `type` stays valid.
  bool IsPreserved(std::type_index type) const { return all_ || types_.contains(type); }

 private:
  bool all_ = false;
  absl::flat_hash_set<std::type_index> types_;
};

}  // namespace hmo

#endif  // HMO_PASS_PRESERVED_ANALYSES_H_
