#ifndef HMO_PLUGIN_SCHEDULER_STRATEGY_REGISTRY_H_
#define HMO_PLUGIN_SCHEDULER_STRATEGY_REGISTRY_H_

// The scheduler strategies a process knows, by name. Strategies arrive through
// the C ABI (scheduler_strategy_abi.h), from plugins or from the framework.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "hmo/pass/named_registry.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/plugin/scheduler_strategy_abi.h"

namespace hmo {

// A strategy as the host keeps it: its own copies of the name and
// description, and the plugin's struct (copied; fields the plugin's ABI minor
// version lacks are zero).
struct SchedulerStrategyRegistration {
  std::string name;
  std::string description;
  HmoSchedulerStrategy strategy = {};
  // The strategy's declared options (ABI 1.3), or none when it declares
  // none (it then takes whatever a pipeline forwards, unchecked).
  std::optional<PassOptionSchema> options;
};

using RegisteredSchedulerStrategy = Registered<SchedulerStrategyRegistration>;

class SchedulerStrategyRegistry {
 public:
  // Copies and adds `strategy`, provided by `plugin`. Returns InvalidArgument
  // for a struct smaller than ABI 1.0's, a null name or schedule function, a
  // name that is not kebab-case, or a malformed option declaration (as a C
  // pass's, pass_abi.h); AlreadyExists naming both plugins when the name is
  // taken.
  absl::Status Register(const HmoSchedulerStrategy& strategy, std::string_view plugin);

  // Returns the strategy called `name`, or null.
  const RegisteredSchedulerStrategy* Find(std::string_view name) const {
    return strategies_.Find(name);
  }
  // Returns every strategy, sorted by name.
  std::vector<const RegisteredSchedulerStrategy*> List() const { return strategies_.List(); }
  // Returns every strategy name, sorted.
  std::vector<std::string> Names() const { return strategies_.Names(); }

  // Removes what `plugin` registered (PluginHost, when the plugin fails to load).
  void RemoveProvidedBy(std::string_view plugin) { strategies_.RemoveProvidedBy(plugin); }

 private:
  NamedRegistry<SchedulerStrategyRegistration> strategies_{"scheduler strategy"};
};

}  // namespace hmo

#endif  // HMO_PLUGIN_SCHEDULER_STRATEGY_REGISTRY_H_
