#ifndef HMO_PLUGINS_ALIASING_COPY_ELIMINATION_H_
#define HMO_PLUGINS_ALIASING_COPY_ELIMINATION_H_

// copy-elimination: removes `copy` instructions whose source and result can
// share one buffer without changing what the program computes (in the spirit
// of the copy removal in XLA's CopyInsertion).
//
// A copy is an extra buffer and a memcpy. Removing it makes the copy's users
// read the source's buffer instead, which is only sound when nothing can
// overwrite that shared buffer while one of them still needs the old data,
// and when the program's interface does not need two buffers. Using the alias
// analysis (HloBuffers: values that must share storage), a copy in a
// non-fusion computation, array-shaped, without control edges, whose result
// shape equals its operand's including the whole layout (memory space, tiling,
// split configs), is removed when either:
//   A. the source's buffer holds only the source's value and the copy's
//      buffer only the copy's value: no in-place update (dynamic-update-slice,
//      output_to_operand_aliasing, ...), while-loop carry, conditional result
//      or input/output alias involves either, so the source's contents end up
//      read-only once the copy has read them. When the copy is live out of
//      the entry, the source must not be an entry parameter or a constant
//      (an output may not live in them unless aliased) nor itself live out
//      (outputs keep distinct buffers).
//   B. the source is (an element of) an entry parameter that
//      input_output_alias assigns to exactly the outputs the copy feeds, and
//      the copy only feeds those outputs: the output buffer is the
//      parameter's buffer already, so the copy writes the data onto itself.
//   C. (option order-readers-first, on by default) the copy is the operand of
//      an in-place update U (dynamic-update-slice, scatter, a fusion rooted in
//      one) and its source S is a temporary nothing updates in place: neither
//      buffer holds a parameter, a constant, a loop or call value, and S does
//      not live out. When every other reader of S and of the copy can run
//      before U (none depends on U), they get control edges to U and U
//      updates S's buffer in place. XLA keeps such copies because its copy
//      removal only trusts orders the data dependencies already force; an
//      in-place chain broken by copies (a scan's carried buffer, a ring of
//      dynamic-update-slices) becomes one buffer again. A scheduled
//      computation keeps its sequence where the new edges allow.
// Copies that change the layout or the memory space (host offload transfers,
// layout conversions), copies carried by while loops or placed into aliased
// outputs, and copies into in-place updates whose source is read after the
// update are kept.
//
// Copies are considered in post order, the analysis being recomputed after
// each removal. The pass logs how many copies and bytes it removed.

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

class CopyElimination : public HloPass {
 public:
  static constexpr std::string_view kName = "copy-elimination";
  static constexpr std::string_view kDescription =
      "Remove copies whose source and result can share a buffer";

  // The options, bound to their schema (PassOptionBinding).
  struct Options {
    bool order_readers_first = true;
  };
  static const PassOptionBinding<Options>& Binding() {
    static const PassOptionBinding<Options> binding = PassOptionBinding<Options>().Option(
        "order-readers-first", &Options::order_readers_first, true,
        "also remove copies into in-place updates by ordering the other readers of the source "
        "first (case C)");
    return binding;
  }
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  static absl::StatusOr<std::unique_ptr<CopyElimination>> Create(const PassOptions& options) {
    absl::StatusOr<Options> read = Binding().Read(options);
    if (!read.ok()) return read.status();
    return std::make_unique<CopyElimination>(*read);
  }

  explicit CopyElimination(const Options& options) : options_(options) {}
  CopyElimination() = default;

  std::string_view name() const override { return kName; }

  // Returns whether a copy was removed. Errors: the alias analysis fails.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

 private:
  Options options_;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_ALIASING_COPY_ELIMINATION_H_
