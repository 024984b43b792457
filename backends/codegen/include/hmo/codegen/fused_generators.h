#ifndef HMO_CODEGEN_FUSED_GENERATORS_H_
#define HMO_CODEGEN_FUSED_GENERATORS_H_

// The element generators of a fused computation's instructions, composed:
// a fused parameter reads the fusion operand's array, every other
// instruction is the elemental IR emitter's generator over its operands'
// generators. A fused instruction used several times (the computation is a
// DAG) is computed once per element and basic block. Shared by the CPU
// kernels and the GPU (NVPTX) kernels, which differ only in their loops.

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hmo/codegen/element_generator.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/ir_array.h"
#include "hmo/ir/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hmo::codegen {

class FusedGenerators {
 public:
  // `parameters[i]` is the array fused parameter i reads.
  FusedGenerators(llvm::IRBuilderBase& b, llvm::Module& module, std::vector<IrArray> parameters);

  // The generator of `instruction` (of the fused computation).
  absl::StatusOr<ElementGenerator> Get(const HloInstruction& instruction);

  // Makes `generator` the generator of `instruction` (before any Get that
  // reaches it): an output fusion's dot reads the library's product tile.
  void Set(const HloInstruction& instruction, ElementGenerator generator) {
    generators_[&instruction] = std::move(generator);
  }

  // Reads `array` at the index (a scalar array ignores it).
  static ElementGenerator ArrayReader(llvm::IRBuilderBase& b, IrArray array);

 private:
  ElementGenerator Cached(ElementGenerator raw);

  llvm::IRBuilderBase& b_;
  ElementalIrEmitter emitter_;
  std::vector<IrArray> parameters_;
  absl::flat_hash_map<const HloInstruction*, ElementGenerator> generators_;
};

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_FUSED_GENERATORS_H_
