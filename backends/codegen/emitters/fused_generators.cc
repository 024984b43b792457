#include "hmo/codegen/fused_generators.h"

#include <memory>
#include <utility>

#include "hmo/base/status_macros.h"

namespace hmo::codegen {

FusedGenerators::FusedGenerators(llvm::IRBuilderBase& b, llvm::Module& module,
                                 std::vector<IrArray> parameters)
    : b_(b), emitter_(b, module), parameters_(std::move(parameters)) {}

absl::StatusOr<ElementGenerator> FusedGenerators::Get(const HloInstruction& instruction) {
  if (auto it = generators_.find(&instruction); it != generators_.end()) return it->second;
  ElementGenerator generator;
  if (instruction.opcode() == HloOpcode::kParameter) {
    generator = ArrayReader(b_, parameters_.at(instruction.parameter_number()));
  } else {
    std::vector<ElementGenerator> operands;
    for (const HloInstruction* operand : instruction.operands()) {
      HMO_ASSIGN_OR_RETURN(ElementGenerator g, Get(*operand));
      operands.push_back(std::move(g));
    }
    HMO_ASSIGN_OR_RETURN(ElementGenerator raw,
                         emitter_.MakeGenerator(instruction, std::move(operands)));
    generator = Cached(std::move(raw));
  }
  generators_[&instruction] = generator;
  return generator;
}

ElementGenerator FusedGenerators::ArrayReader(llvm::IRBuilderBase& b, IrArray array) {
  const bool scalar = array.shape().rank() == 0;
  return [&b, array, scalar](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
    return array.EmitReadElement(scalar ? IrArray::Index{} : index, b);
  };
}

// An element computed at the same index in the current block is reused.
ElementGenerator FusedGenerators::Cached(ElementGenerator raw) {
  struct Entry {
    IrArray::Index index;
    llvm::BasicBlock* block;
    llvm::Value* value;
  };
  auto cache = std::make_shared<std::vector<Entry>>();
  llvm::IRBuilderBase& b = b_;
  return [&b, raw = std::move(raw),
          cache](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
    for (const Entry& e : *cache) {
      if (e.block == b.GetInsertBlock() && e.index == index) return e.value;
    }
    HMO_ASSIGN_OR_RETURN(llvm::Value * value, raw(index));
    cache->push_back(Entry{index, b.GetInsertBlock(), value});
    return value;
  };
}

}  // namespace hmo::codegen
