// Kernel body of convolution (op_emitters.h).

#include "absl/status/status.h"
#include "codegen/op_emitters.h"

namespace hmo::cpu {

absl::Status EmitConvolution(KernelEmitContext& context) {
  return absl::UnimplementedError("convolution: not yet implemented (instruction " +
                                  context.instruction().name() + ")");
}

}  // namespace hmo::cpu
