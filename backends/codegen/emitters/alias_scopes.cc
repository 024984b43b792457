#include "hmo/codegen/alias_scopes.h"

#include "llvm/IR/MDBuilder.h"

namespace hmo::codegen {
namespace {

bool Overlap(const BufferAssignment::Slice& a, const BufferAssignment::Slice& b) {
  return a.index == b.index && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

}  // namespace

bool AnyOverlap(const std::set<BufferAssignment::Slice>& a,
                const std::set<BufferAssignment::Slice>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (Overlap(x, y)) return true;
    }
  }
  return false;
}

bool OutputsOverlapOperands(const BufferAssignment& assignment, const HloInstruction& instruction) {
  std::set<BufferAssignment::Slice> written;
  const Shape& shape = instruction.shape();
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size()); ++i) {
      if (!shape.tuple_shapes()[i].IsArray()) return true;
      const std::set<BufferAssignment::Slice> leaf = assignment.GetAllSlices(&instruction, {i});
      if (leaf.empty()) return true;
      written.insert(leaf.begin(), leaf.end());
    }
  } else {
    written = assignment.GetAllSlices(&instruction, {});
  }
  if (written.empty()) return true;
  for (const HloInstruction* operand : instruction.operands()) {
    if (!operand->shape().IsArray()) return true;
    if (AnyOverlap(written, ReadSlices(assignment, *operand, {}))) return true;
  }
  return false;
}

std::set<BufferAssignment::Slice> ReadSlices(const BufferAssignment& assignment,
                                             const HloInstruction& instruction,
                                             const ShapeIndex& index) {
  if (instruction.opcode() == HloOpcode::kConstant) return {};
  return assignment.GetAllSlices(&instruction, index);
}

bool AnnotateDisjointAccesses(llvm::LLVMContext& context, std::vector<IrArray*> outputs,
                              const std::vector<std::set<BufferAssignment::Slice>>& output_slices,
                              std::vector<IrArray*> inputs,
                              const std::vector<std::set<BufferAssignment::Slice>>& input_slices) {
  for (const auto& slices : output_slices) {
    if (slices.empty()) return false;
  }
  llvm::MDBuilder builder(context);
  llvm::MDNode* domain = builder.createAnonymousAliasScopeDomain("hmo.kernel");
  std::vector<llvm::Metadata*> scopes;
  for (size_t i = 0; i < outputs.size(); ++i) {
    scopes.push_back(builder.createAnonymousAliasScope(domain, "hmo.output"));
  }
  // The scopes of the outputs that share no byte with `slices`.
  const auto disjoint_outputs = [&](const std::set<BufferAssignment::Slice>& slices,
                                    size_t self) -> llvm::MDNode* {
    std::vector<llvm::Metadata*> disjoint;
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (j != self && !AnyOverlap(slices, output_slices[j])) disjoint.push_back(scopes[j]);
    }
    return disjoint.empty() ? nullptr : llvm::MDNode::get(context, disjoint);
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i]->set_alias_metadata(llvm::MDNode::get(context, {scopes[i]}),
                                   disjoint_outputs(output_slices[i], i));
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    // An input without slices (a constant's global) overlaps no output.
    inputs[k]->set_alias_metadata(nullptr, disjoint_outputs(input_slices[k], outputs.size()));
  }
  return true;
}

}  // namespace hmo::codegen
