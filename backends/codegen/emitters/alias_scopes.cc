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
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (output_slices[i].empty()) return false;
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (AnyOverlap(output_slices[i], output_slices[j])) return false;
    }
    for (const auto& slices : input_slices) {
      if (AnyOverlap(output_slices[i], slices)) return false;
    }
  }
  llvm::MDBuilder builder(context);
  llvm::MDNode* domain = builder.createAnonymousAliasScopeDomain("hmo.kernel");
  std::vector<llvm::Metadata*> scopes;
  for (size_t i = 0; i < outputs.size(); ++i) {
    scopes.push_back(builder.createAnonymousAliasScope(domain, "hmo.output"));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (j != i) others.push_back(scopes[j]);
    }
    outputs[i]->set_alias_metadata(llvm::MDNode::get(context, {scopes[i]}),
                                   others.empty() ? nullptr : llvm::MDNode::get(context, others));
  }
  llvm::MDNode* all_outputs = llvm::MDNode::get(context, scopes);
  for (IrArray* input : inputs) input->set_alias_metadata(nullptr, all_outputs);
  return true;
}

}  // namespace hmo::codegen
