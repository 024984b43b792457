#ifndef HMO_REWRITES_COPY_INSERTION_H_
#define HMO_REWRITES_COPY_INSERTION_H_

// copy-insertion: adds the copies that make every HloBuffer of alias
// analysis interference-free, so a buffer assignment of the module can be
// executed (XLA's CopyInsertion, before buffer assignment). Alias analysis
// makes a while loop's init, body parameter, body root and result one buffer
// per leaf, a conditional's branch roots and result one buffer per leaf; a
// module dumped before XLA's own copy insertion (e.g. straight from JAX)
// breaks that in three ways this pass repairs:
//
//   while init   a leaf that is a constant, a parameter, or a value used at
//                several leaves or elsewhere after the loop would be
//                overwritten by the loop: every array leaf of the init is
//                copied (once per loop entry).
//   while body   a root leaf that is not the parameter's own leaf passed
//                through is written to the leaf's buffer while other leaves
//                may still read the old values. A value computed in the body
//                that reads its own leaf only element by element at the
//                same index, or as the base of a dynamic-update-slice, and
//                that no other reader of the leaf depends on, is computed in
//                place, ordered (control dependencies) after those readers
//                (in a scheduled body only when they already come first);
//                another computed value is copied into place once, ordered
//                after every reader of the leaf it overwrites; loop-state
//                data moving to another leaf (a swap) goes through a
//                temporary copy first. When the readers of a leaf cannot be
//                listed (nested tuples, the state flowing on through calls,
//                bitcasts, ...), every changed leaf goes through a temporary
//                and every copy into place waits for every temporary.
//   conditional  every array leaf of each branch root is copied, so no
//                branch returns a buffer of its parameter or a constant.
//   entry root   constant leaves are copied (constants are read-only data).
//
// A scheduled module keeps its schedule, updated with the new instructions
// (HloSchedule::Update), and then loses the copies its order makes
// unnecessary (copy_elision.h: a loop init whose buffer is dead after the
// loop starts is updated in place, as XLA's RemoveUnnecessaryCopies does).

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

class CopyInsertion : public HloPass {
 public:
  static constexpr std::string_view kName = "copy-insertion";
  static constexpr std::string_view kDescription =
      "Add the copies that make while/conditional buffers interference-free (before buffer "
      "assignment)";
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  CopyInsertion() = default;
  explicit CopyInsertion(const PassOptions&) {}

  std::string_view name() const override { return kName; }
  // Returns whether a copy was added.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

  // The same, without a pass context (for backends' compilers).
  static absl::StatusOr<bool> AddCopies(HloModule& module);
};

}  // namespace hmo

#endif  // HMO_REWRITES_COPY_INSERTION_H_
