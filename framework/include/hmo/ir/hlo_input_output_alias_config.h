#ifndef HMO_IR_HLO_INPUT_OUTPUT_ALIAS_CONFIG_H_
#define HMO_IR_HLO_INPUT_OUTPUT_ALIAS_CONFIG_H_

// Module-level buffer sharing between entry parameters and the entry result:
// `input_output_alias={ {0}: (0, {}, may-alias), ... }` and
// `buffer_donor={ (0, {}), ... }`.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "hmo/ir/shape.h"

namespace hmo {

class HloInputOutputAliasConfig {
 public:
  // may-alias: the runtime may reuse the donated parameter buffer for the
  // output; must-alias: it has to (an error if the parameter is not donated).
  enum AliasKind { kMayAlias, kMustAlias };

  struct Alias {
    int64_t parameter_number = 0;
    ShapeIndex parameter_index;
    AliasKind kind = kMayAlias;
    bool must_alias() const { return kind == kMustAlias; }
    // "(0, {1}, may-alias)".
    std::string ToString() const;
    bool operator==(const Alias&) const = default;
  };

  HloInputOutputAliasConfig() = default;

  // Declares that the output at `output_index` aliases parameter
  // `param_number` at `param_index`. Errors: the output index already has an
  // alias, or the (parameter, index) is already aliased to another output.
  absl::Status SetUpAlias(const ShapeIndex& output_index, int64_t param_number,
                          const ShapeIndex& param_index, AliasKind kind = kMayAlias);
  // Removes the alias of `output_index` (no-op if none).
  void RemoveAlias(const ShapeIndex& output_index);

  bool ParameterHasAlias(int64_t param_number, const ShapeIndex& param_index) const;
  bool ParameterMustAlias(int64_t param_number, const ShapeIndex& param_index) const;
  bool OutputHasAlias(const ShapeIndex& output_index) const;
  // The output index aliased with the parameter, or nullopt.
  std::optional<ShapeIndex> GetAliasedOutput(int64_t param_number,
                                             const ShapeIndex& param_index) const;
  // The parameter aliased with the output, or nullopt.
  std::optional<Alias> GetAliasedParameter(const ShapeIndex& output_index) const;

  // Visits aliases in output-index order.
  void ForEachAlias(
      const std::function<void(const ShapeIndex& output_index, const Alias&)>& fn) const;

  bool empty() const { return aliases_.empty(); }
  int64_t size() const { return static_cast<int64_t>(aliases_.size()); }
  const std::map<ShapeIndex, Alias>& aliases() const { return aliases_; }

  // Checks indices against the entry's parameter and result shapes and that
  // aliased sub-shapes are arrays of equal byte size.
  absl::Status Verify(const std::vector<Shape>& parameter_shapes, const Shape& result_shape) const;

  // "{ {0}: (0, {}, may-alias), {1}: (2, {}, must-alias) }"; "{}" when empty.
  std::string ToString() const;

  bool operator==(const HloInputOutputAliasConfig&) const = default;

 private:
  std::map<ShapeIndex, Alias> aliases_;
};

// Parameters (or parameter sub-buffers) the caller donates without a fixed
// output.
class HloBufferDonorConfig {
 public:
  struct BufferDonor {
    int64_t param_number = 0;
    ShapeIndex param_index;
    auto operator<=>(const BufferDonor&) const = default;
  };

  // Error if already a donor.
  absl::Status AddBufferDonor(int64_t param_number, const ShapeIndex& param_index);
  void RemoveBufferDonor(int64_t param_number, const ShapeIndex& param_index);
  bool ParameterIsBufferDonor(int64_t param_number, const ShapeIndex& param_index) const;
  const std::set<BufferDonor>& buffer_donors() const { return donors_; }
  bool empty() const { return donors_.empty(); }

  // "{ (0, {}), (1, {0}) }"; "{}" when empty.
  std::string ToString() const;

  bool operator==(const HloBufferDonorConfig&) const = default;

 private:
  std::set<BufferDonor> donors_;
};

}  // namespace hmo

#endif  // HMO_IR_HLO_INPUT_OUTPUT_ALIAS_CONFIG_H_
