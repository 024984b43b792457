// Shape checks at called-computation boundaries: while, conditional, call,
// fusion (parameters vs operands, roots vs results) and the
// output_to_operand_aliasing attribute.

#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_computation.h"
#include "instruction_shape_checks.h"
#include "str_util.h"

namespace hmo::verifier_internal {
namespace {

std::string Str(const Shape& s, bool with_layout) { return s.ToString(with_layout); }

const Shape* RootShape(const HloComputation& c) {
  return c.root_instruction() ? &c.root_instruction()->shape() : nullptr;
}

}  // namespace

ShapeCheckResult CheckWhileShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const HloComputation& body = *instr.while_body();
  const HloComputation& cond = *instr.while_condition();
  const Shape& shape = instr.shape();
  if (auto v = ctx.Expect(shape, instr.operand(0)->shape(), "while", true, "while shape",
                          "its init operand shape")) {
    return v;
  }
  if (body.num_parameters() != 1) {
    return Violation("while", StrCat("while body ", body.name(), " must take 1 parameter, takes ",
                                     body.num_parameters()));
  }
  if (auto v = ctx.Expect(body.parameter_instruction(0)->shape(), shape, "while", true,
                          StrCat("while body ", body.name(), " parameter shape"),
                          "the while shape")) {
    return v;
  }
  if (auto v = ctx.Expect(*RootShape(body), shape, "while", true,
                          StrCat("while body ", body.name(), " root shape"),
                          "the while shape")) {
    return v;
  }
  if (cond.num_parameters() != 1) {
    return Violation("while", StrCat("while condition ", cond.name(),
                                     " must take 1 parameter, takes ", cond.num_parameters()));
  }
  if (auto v = ctx.Expect(cond.parameter_instruction(0)->shape(), shape, "while", true,
                          StrCat("while condition ", cond.name(), " parameter shape"),
                          "the while shape")) {
    return v;
  }
  const Shape& cond_root = *RootShape(cond);
  if (!cond_root.IsArray() || cond_root.rank() != 0 ||
      cond_root.element_type() != PrimitiveType::PRED) {
    return Violation("while", StrCat("while condition ", cond.name(), " must return pred[], ",
                                     "returns ", Str(cond_root, false)));
  }
  return std::nullopt;
}

ShapeCheckResult CheckConditionalShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const Shape& index = instr.operand(0)->shape();
  const bool scalar = index.IsArray() && index.rank() == 0;
  const bool is_pred = scalar && index.element_type() == PrimitiveType::PRED;
  const bool is_s32 = scalar && index.element_type() == PrimitiveType::S32;
  if (!is_pred && !is_s32) {
    return Violation("conditional", StrCat("conditional branch index must be pred[] or s32[], got ",
                                           Str(index, false)));
  }
  if (is_pred && instr.branch_count() != 2) {
    return Violation("conditional", StrCat("conditional with a pred branch index needs 2 ",
                                           "branches, has ", instr.branch_count()));
  }
  for (int64_t b = 0; b < instr.branch_count(); ++b) {
    const HloComputation& branch = *instr.branch_computation(b);
    if (branch.num_parameters() != 1) {
      return Violation("conditional", StrCat("conditional branch ", b, " (", branch.name(),
                                             ") must take 1 parameter, takes ",
                                             branch.num_parameters()));
    }
    if (auto v = ctx.Expect(branch.parameter_instruction(0)->shape(),
                            instr.operand(b + 1)->shape(), "conditional", true,
                            StrCat("conditional branch ", b, " (", branch.name(),
                                   ") parameter shape"),
                            StrCat("its operand ", b + 1, " shape"))) {
      return v;
    }
    if (auto v = ctx.Expect(*RootShape(branch), instr.shape(), "conditional", true,
                            StrCat("conditional branch ", b, " (", branch.name(),
                                   ") root shape"),
                            "the conditional shape")) {
      return v;
    }
  }
  return std::nullopt;
}

ShapeCheckResult CheckCallShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const HloComputation& callee = *instr.to_apply();
  if (callee.num_parameters() != instr.operand_count()) {
    return Violation("call", StrCat("callee ", callee.name(), " takes ",
                                    callee.num_parameters(), " parameters but the call has ",
                                    instr.operand_count(), " operands"));
  }
  for (int64_t k = 0; k < instr.operand_count(); ++k) {
    if (auto v = ctx.Expect(callee.parameter_instruction(k)->shape(), instr.operand(k)->shape(),
                            "call", true,
                            StrCat("callee ", callee.name(), " parameter ", k, " shape"),
                            "the operand shape")) {
      return v;
    }
  }
  return ctx.Expect(*RootShape(callee), instr.shape(), "call", true,
                    StrCat("callee ", callee.name(), " root shape"), "the call shape");
}

// The first array leaf whose dimension order differs between `root` and
// `fusion` (both laid out), described; nullopt when none does.
std::optional<std::string> LeafLayoutsDiffer(const Shape& root, const Shape& fusion) {
  if (root.IsTuple() && fusion.IsTuple()) {
    if (root.tuple_shapes_size() != fusion.tuple_shapes_size()) return std::nullopt;
    for (int i = 0; i < root.tuple_shapes_size(); ++i) {
      if (auto differs = LeafLayoutsDiffer(root.tuple_shapes(i), fusion.tuple_shapes(i))) {
        return differs;
      }
    }
    return std::nullopt;
  }
  if (!root.IsArray() || !fusion.IsArray() || !root.has_layout() || !fusion.has_layout() ||
      root.layout().minor_to_major() == fusion.layout().minor_to_major()) {
    return std::nullopt;
  }
  return StrCat(root.ToString(true), " but the fusion is ", fusion.ToString(true));
}

ShapeCheckResult CheckFusionShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const HloComputation& fused = *instr.fused_instructions_computation();
  if (fused.num_parameters() != instr.operand_count()) {
    return Violation("fusion", StrCat("fused computation ", fused.name(), " takes ",
                                      fused.num_parameters(),
                                      " parameters but the fusion has ",
                                      instr.operand_count(), " operands"));
  }
  for (int64_t k = 0; k < instr.operand_count(); ++k) {
    if (auto v = ctx.Expect(fused.parameter_instruction(k)->shape(), instr.operand(k)->shape(),
                            "fusion", true,
                            StrCat("fused parameter ", k, " shape"), "the operand shape")) {
      return v;
    }
  }
  if (auto v = ctx.Expect(*RootShape(fused), instr.shape(), "fusion", true,
                          StrCat("fused root (", fused.root_instruction()->name(), ") shape"),
                          "the fusion shape")) {
    return v;
  }
  // The kernels write the fused root's layout into the fusion's buffer (an
  // in-place update reads it there too): the two must lay elements out
  // alike, whether or not layouts are otherwise checked.
  if (const std::optional<std::string> differs =
          LeafLayoutsDiffer(*RootShape(fused), instr.shape())) {
    return Violation("fusion-layout", StrCat("fused root (", fused.root_instruction()->name(),
                                             ") lays out ", *differs,
                                             "; the backends write the root's layout into the "
                                             "fusion's buffer"));
  }
  return CheckOutputOperandAliasing(instr);
}

ShapeCheckResult CheckOutputOperandAliasing(const HloInstruction& instr) {
  std::set<ShapeIndex> outputs;
  for (const OutputOperandAlias& a : instr.output_to_operand_aliasing()) {
    std::string entry = StrCat(ShapeIndexToString(a.output_index), ": (", a.operand_number,
                               ", ", ShapeIndexToString(a.operand_index), ")");
    if (!ShapeUtil::IndexIsValid(instr.shape(), a.output_index)) {
      return Violation("output-operand-aliasing",
                       StrCat("output_to_operand_aliasing entry ", entry,
                              ": output index is not valid for ",
                              instr.shape().ToString(false)));
    }
    if (!outputs.insert(a.output_index).second) {
      return Violation("output-operand-aliasing",
                       StrCat("output_to_operand_aliasing entry ", entry,
                              ": output index is aliased more than once"));
    }
    if (a.operand_number < 0 || a.operand_number >= instr.operand_count()) {
      return Violation("output-operand-aliasing",
                       StrCat("output_to_operand_aliasing entry ", entry,
                              ": operand number out of range (", instr.operand_count(),
                              " operands)"));
    }
    const Shape& operand = instr.operand(a.operand_number)->shape();
    if (!ShapeUtil::IndexIsValid(operand, a.operand_index)) {
      return Violation("output-operand-aliasing",
                       StrCat("output_to_operand_aliasing entry ", entry,
                              ": operand index is not valid for ", operand.ToString(false)));
    }
    const Shape& out_sub = ShapeUtil::GetSubshape(instr.shape(), a.output_index);
    const Shape& in_sub = ShapeUtil::GetSubshape(operand, a.operand_index);
    if (!ShapesEqual(out_sub, in_sub)) {
      return Violation("output-operand-aliasing",
                       StrCat("output_to_operand_aliasing entry ", entry, ": output ",
                              out_sub.ToString(false), " and operand ",
                              in_sub.ToString(false), " have different shapes"));
    }
  }
  return std::nullopt;
}

}  // namespace hmo::verifier_internal
