#ifndef HMO_PASS_PASS_REGISTRY_H_
#define HMO_PASS_PASS_REGISTRY_H_

// The passes a process knows, by name, each with the plugin that provided it.

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/named_registry.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

// Creates one pass object from validated options.
using PassFactory = std::function<absl::StatusOr<std::unique_ptr<HloPass>>(const PassOptions&)>;

// Everything the framework needs to list, validate and create a pass.
struct PassRegistration {
  std::string name;         // kebab-case; equals the created pass's name()
  std::string description;  // one line, for `hmo passes`
  PassOptionSchema options;
  PassFactory create;
};

// Builds the registration of a pass class that declares
//   static constexpr std::string_view kName, kDescription;
//   static PassOptionSchema OptionSchema();
// and is constructible from `const PassOptions&`, or instead provides
//   static absl::StatusOr<std::unique_ptr<PassT>> Create(const PassOptions&)
// to reject option combinations the schema cannot express.
template <typename PassT>
PassRegistration MakePassRegistration() {
  PassRegistration registration;
  registration.name = std::string(PassT::kName);
  registration.description = std::string(PassT::kDescription);
  registration.options = PassT::OptionSchema();
  registration.create = [](const PassOptions& options) -> absl::StatusOr<std::unique_ptr<HloPass>> {
    if constexpr (requires { PassT::Create(options); }) {
      absl::StatusOr<std::unique_ptr<PassT>> pass = PassT::Create(options);
      if (!pass.ok()) return pass.status();
      return std::unique_ptr<HloPass>(*std::move(pass));
    } else {
      return std::unique_ptr<HloPass>(std::make_unique<PassT>(options));
    }
  };
  return registration;
}

using RegisteredPass = Registered<PassRegistration>;

class PassRegistry {
 public:
  // Adds `registration`, provided by `plugin` (a plugin name, or "hmo" for the
  // framework). Returns InvalidArgument for a name that is not kebab-case or is
  // reserved by the pipeline syntax ("fixed-point"), or for a missing factory;
  // AlreadyExists, naming both plugins, when the name is taken.
  absl::Status Register(PassRegistration registration, std::string_view plugin);

  // Returns the pass called `name`, or null.
  const RegisteredPass* Find(std::string_view name) const { return passes_.Find(name); }

  // Returns every pass, sorted by name.
  std::vector<const RegisteredPass*> List() const { return passes_.List(); }

  // Returns every pass name, sorted.
  std::vector<std::string> Names() const { return passes_.Names(); }

  // Removes what `plugin` registered (PluginHost, when the plugin fails to load).
  void RemoveProvidedBy(std::string_view plugin) { passes_.RemoveProvidedBy(plugin); }

 private:
  NamedRegistry<PassRegistration> passes_{"pass"};
};

}  // namespace hmo

#endif  // HMO_PASS_PASS_REGISTRY_H_
