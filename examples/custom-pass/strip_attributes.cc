// strip-attributes: removes the named verbatim attributes (default: metadata)
// from every instruction, e.g. to diff two dumps of one program without the
// source locations XLA records. An out-of-tree C++ pass plugin: the pass, its
// typed option schema and the plugin's entry point, nothing else.

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_registrars.h"

namespace {

class StripAttributes : public hmo::HloPass {
 public:
  static constexpr std::string_view kName = "strip-attributes";
  static constexpr std::string_view kDescription =
      "Remove the named verbatim attributes (metadata by default) from every instruction";

  // The options, bound to members (the type of "names" is the member's).
  struct Options {
    std::vector<std::string> names;
  };
  static const hmo::PassOptionBinding<Options>& Binding() {
    static const hmo::PassOptionBinding<Options> binding = hmo::PassOptionBinding<Options>().Option(
        "names", &Options::names, {"metadata"},
        "the attributes to remove, e.g. [metadata,sharding]");
    return binding;
  }
  static hmo::PassOptionSchema OptionSchema() { return Binding().schema(); }

  static absl::StatusOr<std::unique_ptr<StripAttributes>> Create(
      const hmo::PassOptions& pass_options) {
    absl::StatusOr<Options> options = Binding().Read(pass_options);
    if (!options.ok()) return options.status();
    return std::make_unique<StripAttributes>(std::move(options->names));
  }
  explicit StripAttributes(std::vector<std::string> names) : names_(std::move(names)) {}

  std::string_view name() const override { return kName; }

  absl::StatusOr<bool> Run(hmo::HloModule& module, hmo::PassContext&) override {
    bool changed = false;
    for (hmo::HloComputation* computation : module.computations()) {
      for (hmo::HloInstruction* instruction : computation->instructions()) {
        for (const std::string& attribute : names_) {
          changed |= instruction->RemoveRawAttribute(attribute);
        }
      }
    }
    return changed;
  }

 private:
  std::vector<std::string> names_;
};

absl::Status RegisterPasses(hmo::PassRegistrar& passes) {
  return passes.Register<StripAttributes>();
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("custom-pass", "1.0.0");
    info.register_passes = hmo::RegistrationCallback<&RegisterPasses>;
    return info;
  }();
  return &info;
}
