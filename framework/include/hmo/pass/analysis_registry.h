#ifndef HMO_PASS_ANALYSIS_REGISTRY_H_
#define HMO_PASS_ANALYSIS_REGISTRY_H_

// Analyses provided by plugins. An analysis type (a class declared in a header
// every user includes) is normally computed by its own static Compute()
// (see analysis_manager.h); a registration instead lets a plugin supply the
// computation for a type, e.g. a backend's cost model behind a framework
// interface, and gives the analysis a name for `hmo plugins`.

#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/pass/named_registry.h"

namespace hmo {

class AnalysisManager;
class HloModule;

// Computes one analysis of `module`; may ask `analyses` for the analyses it
// depends on.
using AnalysisComputeFn = absl::StatusOr<std::shared_ptr<const void>> (*)(
    const HloModule& module, AnalysisManager& analyses);

struct AnalysisRegistration {
  std::string name;         // kebab-case
  std::string description;  // one line
  std::type_index type = typeid(void);  // the analysis type it computes
  AnalysisComputeFn compute = nullptr;
};

// The AnalysisComputeFn of `Compute`, a function
//   absl::StatusOr<std::unique_ptr<A>> Compute(const HloModule&, AnalysisManager&)
// that computes analysis type `A`.
template <typename A, auto Compute>
absl::StatusOr<std::shared_ptr<const void>> ComputeErased(const HloModule& module,
                                                          AnalysisManager& analyses) {
  absl::StatusOr<std::unique_ptr<A>> result = Compute(module, analyses);
  if (!result.ok()) return result.status();
  return std::shared_ptr<const void>(std::shared_ptr<A>(*std::move(result)));
}

// Builds the registration of `Compute` (see ComputeErased) under `name`.
template <typename A, auto Compute>
AnalysisRegistration MakeAnalysisRegistration(std::string name, std::string description) {
  AnalysisRegistration registration;
  registration.name = std::move(name);
  registration.description = std::move(description);
  registration.type = std::type_index(typeid(A));
  registration.compute = &ComputeErased<A, Compute>;
  return registration;
}

using RegisteredAnalysis = Registered<AnalysisRegistration>;

class AnalysisRegistry {
 public:
  // Adds `registration` from `plugin`. Returns InvalidArgument for a bad name
  // or a missing compute function, AlreadyExists naming both plugins when the
  // name or the analysis type is already provided.
  absl::Status Register(AnalysisRegistration registration, std::string_view plugin);

  // Returns the analysis called `name`, or null.
  const RegisteredAnalysis* Find(std::string_view name) const { return analyses_.Find(name); }
  // Returns the analysis that computes `type`, or null.
  const RegisteredAnalysis* FindByType(std::type_index type) const;
  // Returns every analysis, sorted by name.
  std::vector<const RegisteredAnalysis*> List() const { return analyses_.List(); }

  // Removes what `plugin` registered (PluginHost, when the plugin fails to load).
  void RemoveProvidedBy(std::string_view plugin);

 private:
  NamedRegistry<AnalysisRegistration> analyses_{"analysis"};
  absl::flat_hash_map<std::type_index, std::string> name_by_type_;
};

}  // namespace hmo

#endif  // HMO_PASS_ANALYSIS_REGISTRY_H_
