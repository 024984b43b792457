// Kernel body of scatter (op_emitters.h).

#include "absl/status/status.h"
#include "codegen/op_emitters.h"

namespace hmo::cpu {

absl::Status EmitScatter(KernelEmitContext& context) {
  return absl::UnimplementedError("scatter: not yet implemented (instruction " +
                                  context.instruction().name() + ")");
}

}  // namespace hmo::cpu
