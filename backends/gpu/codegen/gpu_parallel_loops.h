#ifndef HMO_BACKENDS_GPU_CODEGEN_GPU_PARALLEL_LOOPS_H_
#define HMO_BACKENDS_GPU_CODEGEN_GPU_PARALLEL_LOOPS_H_

// How GPU kernels spread work over a 1-D grid of any size, with only the
// special registers %tid.x, %ctaid.x, %ntid.x and %nctaid.x: no shared
// memory, no barriers, so a kernel is correct for every launch (and when its
// threads run one after another, as in a host emulation).

#include <cstdint>
#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "hmo/codegen/kernel_emit_context.h"
#include "llvm/IR/IRBuilder.h"

namespace hmo::gpu {

// for (i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
//      i += blockDim.x * gridDim.x) body(i), i an i64. The builder is left
// after the loop; its blocks are named <name>.header/.body/.exit.
absl::Status EmitGridStrideLoop(llvm::IRBuilder<>& b, int64_t count,
                                const std::function<absl::Status(llvm::Value*)>& body,
                                std::string_view name = "grid");

// The op emitters' parallel loop on a GPU (codegen::ParallelLoopEmitter):
// EmitLoop is a grid-stride loop over the shape's elements, the linear
// position delinearized by the shape's layout; EmitOnce runs its body in
// global thread 0 only. Remembers how many parallel iterations the kernel
// has (iteration_count: the largest loop's element count, at least 1 once
// EmitOnce was used) so the launch can give each its own thread.
class GridStrideLoopEmitter final : public codegen::ParallelLoopEmitter {
 public:
  absl::Status EmitLoop(llvm::IRBuilder<>& b, std::string_view name, const Shape& shape,
                        const Body& body) override;
  absl::Status EmitOnce(llvm::IRBuilder<>& b, const std::function<absl::Status()>& body) override;
  bool IterationsRunConcurrently() const override { return true; }

  int64_t iteration_count() const { return iteration_count_; }

 private:
  int64_t iteration_count_ = 0;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_CODEGEN_GPU_PARALLEL_LOOPS_H_
