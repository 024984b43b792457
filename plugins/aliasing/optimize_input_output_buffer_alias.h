#ifndef HMO_PLUGINS_ALIASING_OPTIMIZE_INPUT_OUTPUT_BUFFER_ALIAS_H_
#define HMO_PLUGINS_ALIASING_OPTIMIZE_INPUT_OUTPUT_BUFFER_ALIAS_H_

// optimize-input-output-buffer-alias: lets entry outputs reuse the buffers of
// entry parameters of the same size, as XLA's OptimizeInputOutputBufferAlias
// does, by adding may-alias entries to the module's `input_output_alias`.
//
// Shapes come from entry_computation_layout. Nothing happens when the result
// shape is dynamic. Donors are the parameters' array sub-shapes (pre-order)
// that are static, not already aliased and, with registered-buffer-donor-only,
// listed in `buffer_donor`; donees are the result's array sub-shapes not
// already aliased. Within each memory space (the layout's S(n)), donors and
// donees are stably sorted by byte size, largest first, and matched with two
// pointers: the larger side advances, equal sizes pair up. Each pair becomes
// `{output index}: (parameter, {parameter index}, may-alias)` and the donor
// leaves `buffer_donor`. The resulting alias config is then verified.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_input_output_alias_config.h"
#include "hmo/ir/shape.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

class OptimizeInputOutputBufferAlias : public HloPass {
 public:
  static constexpr std::string_view kName = "optimize-input-output-buffer-alias";
  static constexpr std::string_view kDescription =
      "Alias entry outputs with same-size entry parameters in the same memory space";

  struct Options {
    bool registered_buffer_donor_only = false;
  };
  static const PassOptionBinding<Options>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  static absl::StatusOr<std::unique_ptr<OptimizeInputOutputBufferAlias>> Create(
      const PassOptions& options);

  explicit OptimizeInputOutputBufferAlias(bool registered_buffer_donor_only)
      : registered_buffer_donor_only_(registered_buffer_donor_only) {}

  std::string_view name() const override { return kName; }

  // Returns whether an alias was added. Errors: the alias config (old or
  // new) does not verify against the entry layout.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

  // The matching itself, on explicit shapes: adds aliases to `alias_config`
  // and removes the matched donors from `buffer_donor_config`. Returns
  // whether an alias was added. With `parameter_shapes` and `root_shape`
  // (the entry's instructions, which may place a leaf in another memory
  // space than the entry layout says, e.g. before host offloading), only
  // leaves both place alike take part.
  absl::StatusOr<bool> Build(const std::vector<Shape>& input_shapes, const Shape& output_shape,
                             HloInputOutputAliasConfig& alias_config,
                             HloBufferDonorConfig& buffer_donor_config,
                             const std::vector<Shape>* parameter_shapes = nullptr,
                             const Shape* root_shape = nullptr) const;

 private:
  bool registered_buffer_donor_only_ = false;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_ALIASING_OPTIMIZE_INPUT_OUTPUT_BUFFER_ALIAS_H_
