#ifndef HMO_PLUGINS_PLACEMENT_CONVERT_MEMORY_PLACEMENT_TO_INTERNAL_ANNOTATIONS_H_
#define HMO_PLUGINS_PLACEMENT_CONVERT_MEMORY_PLACEMENT_TO_INTERNAL_ANNOTATIONS_H_

// convert-memory-placement-to-internal-annotations: rewrites the frontend's
// placement annotations into XLA's internal ones, as XLA's
// ConvertMemoryPlacementToInternalAnnotations does.
//
// In every non-fusion computation, each
//   custom-call(x), custom_call_target="annotate_device_placement",
//                   frontend_attributes={_xla_buffer_placement="<target>"}
// becomes `custom-call(x), custom_call_target="<internal>"` with x's shape,
// where <target> -> <internal> is
//   pinned_host, unpinned_host -> MoveToHost
//   device                     -> MoveToDevice
//   pinned_device              -> PinToDevice
//   vmem                       -> PinToDeviceSram.
// The new instruction takes the old one's sharding; the old one's users use
// the new one and the old one is removed. Annotations without the attribute,
// or with any other value, are left alone. A scheduled module stays
// scheduled (each new custom-call takes the place of the old one's).

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

class ConvertMemoryPlacementToInternalAnnotations : public HloPass {
 public:
  static constexpr std::string_view kName = "convert-memory-placement-to-internal-annotations";
  static constexpr std::string_view kDescription =
      "Rewrite annotate_device_placement custom-calls into MoveToHost / MoveToDevice / "
      "PinToDevice / PinToDeviceSram";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit ConvertMemoryPlacementToInternalAnnotations(const PassOptions& /*options*/) {}

  std::string_view name() const override { return kName; }

  // Returns whether an annotation was rewritten. Errors (Internal): an
  // annotation that would be rewritten does not have exactly one operand; the
  // message names the instruction and its operand count.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_PLACEMENT_CONVERT_MEMORY_PLACEMENT_TO_INTERNAL_ANNOTATIONS_H_
