#ifndef HMO_PASS_ANALYSIS_MANAGER_H_
#define HMO_PASS_ANALYSIS_MANAGER_H_

// Analyses of one module, computed on demand and cached until a pass changes
// the module.
//
// An analysis is any class `A`. The manager computes it with the registration
// for `A` in the AnalysisRegistry when a plugin provided one, and otherwise
// with `A`'s own
//   static absl::StatusOr<std::unique_ptr<A>> Compute(const HloModule&, AnalysisManager&);
// An analysis that asks the manager for another analysis while it is being
// computed depends on it: dropping the other drops it too.

#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hmo/pass/analysis_registry.h"
#include "hmo/pass/preserved_analyses.h"

namespace hmo {

class HloModule;

class AnalysisManager {
 public:
  // `registry` may be null (then only analyses with their own Compute work).
  // Both must outlive the manager.
  explicit AnalysisManager(const HloModule& module, const AnalysisRegistry* registry = nullptr)
      : module_(module), registry_(registry) {}

  AnalysisManager(const AnalysisManager&) = delete;
  AnalysisManager& operator=(const AnalysisManager&) = delete;

  // Returns analysis `A` of the module, computing it when it is not cached.
  // Returns NotFound when nothing can compute `A`, FailedPrecondition for an
  // analysis that (indirectly) depends on itself, or the computation's error.
  // The pointer stays valid until the analysis is invalidated.
  template <typename A>
  absl::StatusOr<const A*> Get() {
    AnalysisComputeFn own = nullptr;
    if constexpr (requires(const HloModule& m, AnalysisManager& am) { A::Compute(m, am); }) {
      own = &ComputeErased<A, &A::Compute>;
    }
    absl::StatusOr<const void*> analysis = GetErased(typeid(A), own);
    if (!analysis.ok()) return analysis.status();
    return static_cast<const A*>(*analysis);
  }

  // Returns whether analysis `A` is cached.
  template <typename A>
  bool IsCached() const {
    return cache_.contains(std::type_index(typeid(A)));
  }

  // Drops every cached analysis that `preserved` does not keep, and every
  // analysis that depends on a dropped one.
  void Invalidate(const PreservedAnalyses& preserved);

  // Returns how many analyses have been computed (not served from the cache)
  // since construction; for tests and statistics.
  int compute_count() const { return compute_count_; }

 private:
  struct Entry {
    std::shared_ptr<const void> value;
    std::vector<std::type_index> dependents;
  };

  absl::StatusOr<const void*> GetErased(std::type_index type, AnalysisComputeFn own);

  const HloModule& module_;
  const AnalysisRegistry* registry_;
  absl::flat_hash_map<std::type_index, Entry> cache_;
  std::vector<std::type_index> computing_;
  int compute_count_ = 0;
};

}  // namespace hmo

#endif  // HMO_PASS_ANALYSIS_MANAGER_H_
