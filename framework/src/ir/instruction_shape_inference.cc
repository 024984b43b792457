#include "hmo/ir/instruction_shape_inference.h"

#include <optional>
#include <vector>

#include "absl/strings/numbers.h"
#include "str_cat.h"

namespace hmo {
namespace {

using ir_internal::StrCat;

// How an opcode's result shape is found.
enum class Rule {
  kUnary,  // ShapeInference::InferUnaryOpShape
  kSameAsOperand0,
  kBinary,
  kTernary,
  kTuple,
  kGetTupleElement,
  kBroadcast,
  kConcatenate,
  kReduce,
  kReduceWindow,
  kMap,
  kSort,
  kTranspose,
  kReverse,
  kPad,
  kDot,
  kConvolution,
  kGather,
  kScatter,
  kSelectAndScatter,
  kCallee,  // the root shape of the (first) called computation
  kToken,
  kU32Scalar,
  kS32Scalar,
  kTopK,
  kScan,
};

struct InferenceRule {
  HloOpcode opcode;
  Rule rule;
};

// One fact per opcode: the opcodes whose shape follows from their operands
// and attributes, and how (besides IsFloatingUnaryOpcode's, all kUnary).
constexpr InferenceRule kRules[] = {
    {HloOpcode::kAbs, Rule::kUnary},
    {HloOpcode::kCeil, Rule::kUnary},
    {HloOpcode::kClz, Rule::kUnary},
    {HloOpcode::kImag, Rule::kUnary},
    {HloOpcode::kIsFinite, Rule::kUnary},
    {HloOpcode::kFloor, Rule::kUnary},
    {HloOpcode::kNot, Rule::kUnary},
    {HloOpcode::kNegate, Rule::kUnary},
    {HloOpcode::kPopulationCount, Rule::kUnary},
    {HloOpcode::kReal, Rule::kUnary},
    {HloOpcode::kSign, Rule::kUnary},
    {HloOpcode::kRoundNearestAfz, Rule::kUnary},
    {HloOpcode::kRoundNearestEven, Rule::kUnary},
    {HloOpcode::kErf, Rule::kUnary},
    {HloOpcode::kCopy, Rule::kSameAsOperand0},
    {HloOpcode::kOptimizationBarrier, Rule::kSameAsOperand0},
    {HloOpcode::kDomain, Rule::kSameAsOperand0},
    {HloOpcode::kAddDependency, Rule::kSameAsOperand0},
    {HloOpcode::kAdd, Rule::kBinary},
    {HloOpcode::kSubtract, Rule::kBinary},
    {HloOpcode::kMultiply, Rule::kBinary},
    {HloOpcode::kDivide, Rule::kBinary},
    {HloOpcode::kAtan2, Rule::kBinary},
    {HloOpcode::kComplex, Rule::kBinary},
    {HloOpcode::kMaximum, Rule::kBinary},
    {HloOpcode::kMinimum, Rule::kBinary},
    {HloOpcode::kPower, Rule::kBinary},
    {HloOpcode::kRemainder, Rule::kBinary},
    {HloOpcode::kAnd, Rule::kBinary},
    {HloOpcode::kOr, Rule::kBinary},
    {HloOpcode::kXor, Rule::kBinary},
    {HloOpcode::kShiftLeft, Rule::kBinary},
    {HloOpcode::kShiftRightArithmetic, Rule::kBinary},
    {HloOpcode::kShiftRightLogical, Rule::kBinary},
    {HloOpcode::kCompare, Rule::kBinary},
    {HloOpcode::kSelect, Rule::kTernary},
    {HloOpcode::kClamp, Rule::kTernary},
    {HloOpcode::kTuple, Rule::kTuple},
    {HloOpcode::kGetTupleElement, Rule::kGetTupleElement},
    {HloOpcode::kBroadcast, Rule::kBroadcast},
    {HloOpcode::kConcatenate, Rule::kConcatenate},
    {HloOpcode::kReduce, Rule::kReduce},
    {HloOpcode::kReduceWindow, Rule::kReduceWindow},
    {HloOpcode::kMap, Rule::kMap},
    {HloOpcode::kSort, Rule::kSort},
    {HloOpcode::kTranspose, Rule::kTranspose},
    {HloOpcode::kReverse, Rule::kReverse},
    {HloOpcode::kPad, Rule::kPad},
    {HloOpcode::kDot, Rule::kDot},
    {HloOpcode::kConvolution, Rule::kConvolution},
    {HloOpcode::kGather, Rule::kGather},
    {HloOpcode::kScatter, Rule::kScatter},
    {HloOpcode::kSelectAndScatter, Rule::kSelectAndScatter},
    {HloOpcode::kWhile, Rule::kCallee},
    {HloOpcode::kCall, Rule::kCallee},
    {HloOpcode::kConditional, Rule::kCallee},
    {HloOpcode::kAfterAll, Rule::kToken},
    {HloOpcode::kReplicaId, Rule::kU32Scalar},
    {HloOpcode::kPartitionId, Rule::kU32Scalar},
    {HloOpcode::kGetDimensionSize, Rule::kS32Scalar},
    {HloOpcode::kTopK, Rule::kTopK},
    {HloOpcode::kScan, Rule::kScan},
};

std::vector<const Shape*> OperandShapes(const HloInstruction& instr, size_t begin, size_t end) {
  std::vector<const Shape*> shapes;
  for (size_t i = begin; i < end; ++i)
    shapes.push_back(&instr.operand(static_cast<int64_t>(i))->shape());
  return shapes;
}

absl::StatusOr<ProgramShape> CalleeShape(const CalleeLookup& callee, std::string_view attr,
                                         size_t i) {
  const HloComputation* c = callee(attr, i);
  if (c == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("cannot infer the shape: computation ", attr, " must be defined before its use"));
  }
  return ProgramShape::Of(*c);
}

absl::StatusOr<Shape> Infer(const HloInstruction& instr, Rule rule, const CalleeLookup& callee,
                            std::optional<PrimitiveType> result_type,
                            const ShapeInferenceOptions& opts) {
  const int64_t n = instr.operand_count();
  auto op = [&](int64_t i) -> const Shape& { return instr.operand(i)->shape(); };
  auto need = [&](int64_t count) -> absl::Status {
    if (n == count) return absl::OkStatus();
    return absl::InvalidArgumentError(
        StrCat(HloOpcodeString(instr.opcode()), " takes ", count, " operand(s), has ", n));
  };
  switch (rule) {
    case Rule::kUnary:
      if (absl::Status st = need(1); !st.ok()) return st;
      return ShapeInference::InferUnaryOpShape(instr.opcode(), op(0));
    case Rule::kSameAsOperand0:
      if (n < 1) return absl::InvalidArgumentError("needs an operand to take the shape of");
      return op(0);
    case Rule::kBinary:
      if (absl::Status st = need(2); !st.ok()) return st;
      return ShapeInference::InferBinaryOpShape(instr.opcode(), op(0), op(1), opts);
    case Rule::kTernary:
      if (absl::Status st = need(3); !st.ok()) return st;
      return ShapeInference::InferTernaryOpShape(instr.opcode(), op(0), op(1), op(2), opts);
    case Rule::kTuple:
      return ShapeInference::InferTupleShape(OperandShapes(instr, 0, n));
    case Rule::kGetTupleElement:
      if (absl::Status st = need(1); !st.ok()) return st;
      return ShapeInference::InferGetTupleElementShape(op(0), instr.tuple_index());
    case Rule::kBroadcast: {
      // Without a result shape, `dimensions` are new major sizes (XLA's
      // broadcast-by-sizes); a scalar with dimensions={} stays a scalar.
      if (absl::Status st = need(1); !st.ok()) return st;
      if (!op(0).IsArray()) return absl::InvalidArgumentError("broadcast of a non-array");
      std::vector<int64_t> dims = instr.dimensions();
      for (int64_t d = 0; d < op(0).rank(); ++d) dims.push_back(op(0).dimensions(d));
      return ShapeUtil::MakeShape(op(0).element_type(), dims);
    }
    case Rule::kConcatenate:
      if (instr.dimensions().size() != 1) {
        return absl::InvalidArgumentError("concatenate needs exactly one dimension");
      }
      return ShapeInference::InferConcatenateShape(OperandShapes(instr, 0, n),
                                                   instr.dimensions()[0], opts);
    case Rule::kReduce:
    case Rule::kReduceWindow: {
      if (n % 2 != 0 || n == 0) {
        return absl::InvalidArgumentError(
            StrCat(HloOpcodeString(instr.opcode()), " needs inputs and as many init values"));
      }
      absl::StatusOr<ProgramShape> reducer = CalleeShape(callee, "to_apply", 0);
      if (!reducer.ok()) return reducer.status();
      if (rule == Rule::kReduce) {
        return ShapeInference::InferReduceShape(OperandShapes(instr, 0, n / 2),
                                                OperandShapes(instr, n / 2, n), instr.dimensions(),
                                                *reducer, opts);
      }
      return ShapeInference::InferReduceWindowShape(
          OperandShapes(instr, 0, n / 2), OperandShapes(instr, n / 2, n),
          instr.has_window() ? instr.window() : Window(), *reducer, opts);
    }
    case Rule::kMap: {
      absl::StatusOr<ProgramShape> mapper = CalleeShape(callee, "to_apply", 0);
      if (!mapper.ok()) return mapper.status();
      return ShapeInference::InferMapShape(OperandShapes(instr, 0, n), *mapper, opts);
    }
    case Rule::kSort: {
      absl::StatusOr<ProgramShape> comparator = CalleeShape(callee, "to_apply", 0);
      if (!comparator.ok()) return comparator.status();
      if (instr.dimensions().size() != 1) {
        return absl::InvalidArgumentError("sort needs exactly one dimension in dimensions={...}");
      }
      return ShapeInference::InferSortShape(OperandShapes(instr, 0, n), instr.dimensions()[0],
                                            *comparator, opts);
    }
    case Rule::kTranspose:
      if (absl::Status st = need(1); !st.ok()) return st;
      return ShapeInference::InferTransposeShape(op(0), instr.dimensions());
    case Rule::kReverse:
      if (absl::Status st = need(1); !st.ok()) return st;
      return ShapeInference::InferReverseShape(op(0), instr.dimensions());
    case Rule::kPad:
      if (absl::Status st = need(2); !st.ok()) return st;
      return ShapeInference::InferPadShape(op(0), op(1), instr.padding_config(), opts);
    case Rule::kDot:
      if (absl::Status st = need(2); !st.ok()) return st;
      return ShapeInference::InferDotShape(op(0), op(1), instr.dot_dimension_numbers(),
                                           result_type.value_or(op(0).element_type()), opts);
    case Rule::kConvolution:
      if (absl::Status st = need(2); !st.ok()) return st;
      if (!instr.has_convolution_dimension_numbers()) {
        return absl::InvalidArgumentError("convolution needs dim_labels");
      }
      return ShapeInference::InferConvolutionShape(
          op(0), op(1), instr.has_window() ? instr.window() : Window(),
          instr.convolution_dimension_numbers(), instr.feature_group_count(),
          instr.batch_group_count(), result_type.value_or(op(0).element_type()), opts);
    case Rule::kGather:
      if (absl::Status st = need(2); !st.ok()) return st;
      return ShapeInference::InferGatherShape(op(0), op(1), instr.gather_dimension_numbers(),
                                              instr.gather_slice_sizes());
    case Rule::kScatter: {
      if (n < 3 || n % 2 == 0)
        return absl::InvalidArgumentError("scatter needs operands, indices and updates");
      absl::StatusOr<ProgramShape> reducer = CalleeShape(callee, "to_apply", 0);
      if (!reducer.ok()) return reducer.status();
      const int64_t k = (n - 1) / 2;
      return ShapeInference::InferScatterShape(OperandShapes(instr, 0, k), op(k),
                                               OperandShapes(instr, k + 1, n),
                                               instr.scatter_dimension_numbers(), *reducer, opts);
    }
    case Rule::kSelectAndScatter: {
      if (absl::Status st = need(3); !st.ok()) return st;
      absl::StatusOr<ProgramShape> select = CalleeShape(callee, "select", 0);
      if (!select.ok()) return select.status();
      absl::StatusOr<ProgramShape> scatter = CalleeShape(callee, "scatter", 0);
      if (!scatter.ok()) return scatter.status();
      return ShapeInference::InferSelectAndScatterShape(
          op(0), *select, instr.has_window() ? instr.window() : Window(), op(1), op(2), *scatter,
          opts);
    }
    case Rule::kCallee: {
      const char* attr = instr.opcode() == HloOpcode::kWhile  ? "body"
                         : instr.opcode() == HloOpcode::kCall ? "to_apply"
                                                              : "branch_computations";
      const HloComputation* c = callee(attr, 0);
      if (c == nullptr && instr.opcode() == HloOpcode::kConditional)
        c = callee("true_computation", 0);
      if (c == nullptr || c->root_instruction() == nullptr) {
        return absl::InvalidArgumentError(StrCat("cannot infer the shape: the called computation (",
                                                 attr, ") must be defined before its use"));
      }
      return c->root_instruction()->shape();
    }
    case Rule::kToken:
      return Shape(PrimitiveType::TOKEN, {});
    case Rule::kU32Scalar:
      return Shape(PrimitiveType::U32, {});
    case Rule::kS32Scalar:
      return Shape(PrimitiveType::S32, {});
    case Rule::kTopK: {
      if (absl::Status st = need(1); !st.ok()) return st;
      auto k = instr.GetRawAttribute("k");
      int64_t kv = 0;
      if (!k || !absl::SimpleAtoi(ir_internal::AbslView(*k), &kv) || !op(0).IsArray() ||
          op(0).rank() == 0) {
        return absl::InvalidArgumentError("topk needs k= and an array operand");
      }
      std::vector<int64_t> dims(op(0).dimensions().begin(), op(0).dimensions().end());
      dims.back() = kv;
      return ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(op(0).element_type(), dims),
                                        ShapeUtil::MakeShape(PrimitiveType::S32, dims)});
    }
    case Rule::kScan: {
      // Inputs then carries; outputs get the scanned dimension back.
      auto carries_text = instr.GetRawAttribute("num_carries");
      int64_t carries = 0;
      if (!carries_text || !absl::SimpleAtoi(ir_internal::AbslView(*carries_text), &carries) ||
          carries < 0 || carries > n) {
        return absl::InvalidArgumentError(
            "scan needs num_carries= between 0 and its operand count");
      }
      const int64_t inputs = n - carries;
      if (inputs == 0)
        return absl::InvalidArgumentError("cannot infer the shape of a scan with no inputs");
      if (instr.dimensions().size() != 1)
        return absl::InvalidArgumentError("scan expects exactly one dimension");
      const int64_t dim = instr.dimensions()[0];
      if (!op(0).IsArray() || dim < 0 || dim >= op(0).rank()) {
        return absl::InvalidArgumentError(
            StrCat("scan dimension ", dim, " is out of range for ", op(0).ToString(false)));
      }
      const int64_t size = op(0).dimensions(dim);
      absl::StatusOr<ProgramShape> body = CalleeShape(callee, "to_apply", 0);
      if (!body.ok()) return body.status();
      auto with_dim = [&](const Shape& s) {
        std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
        dims.insert(dims.begin() + std::min<int64_t>(dim, static_cast<int64_t>(dims.size())), size);
        return ShapeUtil::MakeShape(s.element_type(), dims);
      };
      const Shape& root = body->result;
      if (!root.IsTuple()) return carries > 0 ? root : with_dim(root);
      std::vector<Shape> elements;
      for (int64_t i = 0; i < root.tuple_shapes_size(); ++i) {
        const Shape& e = root.tuple_shapes(i);
        elements.push_back(i + carries < root.tuple_shapes_size() ? with_dim(e) : e);
      }
      return ShapeUtil::MakeTupleShape(std::move(elements));
    }
  }
  return absl::InternalError("unhandled inference rule");
}

// The instruction's own called computations, by the attribute that names
// them: `scatter` is select-and-scatter's second, `body` a while's body; the
// others (`to_apply`, `select`, `branch_computations`) in order.
const HloComputation* OwnCallee(const HloInstruction& instr, std::string_view attribute, size_t i) {
  if (instr.opcode() == HloOpcode::kWhile && attribute == "body") return instr.while_body();
  const size_t index = attribute == "scatter" ? i + 1 : i;
  const auto& called = instr.called_computations();
  return index < called.size() ? called[index] : nullptr;
}

}  // namespace

bool HasInstructionShapeRule(HloOpcode opcode) {
  if (IsFloatingUnaryOpcode(opcode)) return true;
  for (const InferenceRule& r : kRules) {
    if (r.opcode == opcode) return true;
  }
  return false;
}

absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instr,
                                            const InstructionShapeInputs& inputs) {
  std::optional<Rule> rule;
  if (IsFloatingUnaryOpcode(instr.opcode())) rule = Rule::kUnary;
  for (const InferenceRule& r : kRules) {
    if (r.opcode == instr.opcode()) rule = r.rule;
  }
  if (!rule.has_value()) {
    return absl::NotFoundError(StrCat("no shape rule for ", HloOpcodeString(instr.opcode())));
  }
  const CalleeLookup own = [&instr](std::string_view attribute, size_t i) {
    return OwnCallee(instr, attribute, i);
  };
  return Infer(instr, *rule, inputs.callee ? inputs.callee : own, inputs.result_element_type,
               inputs.options);
}

}  // namespace hmo
