// strip-attributes: removes the named verbatim attributes (default: metadata)
// from every instruction, e.g. to diff two dumps of one program without the
// source locations XLA records. An out-of-tree C++ pass plugin: the pass, its
// typed option schema and the plugin's entry point, nothing else.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/hlo_pass.h"
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

  static hmo::PassOptionSchema OptionSchema() {
    return hmo::PassOptionSchema().StringList("names", {"metadata"},
                                              "the attributes to remove, e.g. [metadata,sharding]");
  }

  explicit StripAttributes(const hmo::PassOptions& options)
      : names_(options.GetStringList("names")) {}

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
