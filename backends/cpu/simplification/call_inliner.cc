#include "cpu/simplification/call_inliner.h"

#include "hmo/transforms/call_inlining.h"

namespace hmo::cpu {

absl::StatusOr<bool> CallInliner::Run(HloModule& module, PassContext& /*context*/) {
  return InlineCalls(module);
}

}  // namespace hmo::cpu
