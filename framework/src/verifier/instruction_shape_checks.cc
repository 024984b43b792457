#include "instruction_shape_checks.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "hmo/ir/custom_call_targets.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/instruction_shape_inference.h"
#include "hmo/ir/hlo_opcode_class.h"
#include "str_util.h"

namespace hmo::verifier_internal {
namespace {

std::string Str(const Shape& s) { return s.ToString(/*print_layout=*/false); }

std::vector<const Shape*> OperandShapes(const HloInstruction& instr, int64_t begin, int64_t end) {
  std::vector<const Shape*> out;
  for (int64_t k = begin; k < end; ++k) out.push_back(&instr.operand(k)->shape());
  return out;
}

std::vector<const Shape*> AllOperandShapes(const HloInstruction& instr) {
  return OperandShapes(instr, 0, instr.operand_count());
}

ShapeCheckResult FromInference(const absl::StatusOr<Shape>& inferred, const HloInstruction& instr,
                               std::string_view rule, const ShapeCheckContext& ctx) {
  if (!inferred.ok()) return Violation(rule, std::string(inferred.status().message()));
  return ctx.ExpectInferred(instr, *inferred, rule);
}

// Elementwise ops compute in one element type: the evaluator and both
// backends read every operand as the result's type (XLA's frontends insert
// converts), so mixed operand types are refused even where
// allow_mixed_precision lets other shapes differ in precision. `strict` is
// the op's shape inferred with exact element types.
ShapeCheckResult CheckElementwiseTypes(const HloInstruction& instr,
                                       const absl::StatusOr<Shape>& strict) {
  if (!strict.ok()) return Violation("elementwise-types", std::string(strict.status().message()));
  if (strict->IsArray() && instr.shape().IsArray() &&
      strict->element_type() != instr.shape().element_type()) {
    std::string operands;
    for (const HloInstruction* operand : instr.operands()) {
      StrAppend(&operands, operands.empty() ? "" : ", ", Str(operand->shape()));
    }
    return Violation(
        "elementwise-types",
        StrCat(HloOpcodeString(instr.opcode()), " of ", operands, " computes ",
               PrimitiveTypeName(strict->element_type()), ", not ",
               PrimitiveTypeName(instr.shape().element_type()), " (convert the operands first)"));
  }
  return std::nullopt;
}

ShapeCheckResult FromStatus(const absl::Status& status, std::string_view rule) {
  if (status.ok()) return std::nullopt;
  return Violation(rule, std::string(status.message()));
}

bool IsScalarOf(const Shape& s, PrimitiveType t) {
  return s.IsArray() && s.rank() == 0 && s.element_type() == t;
}

// all-gather / reduce-scatter: per operand, the result (or its tuple
// element) equals the operand except in `dimension`, where all-gather
// multiplies and reduce-scatter divides the size.
ShapeCheckResult CheckGatherScatterCollective(const HloInstruction& instr,
                                              const ShapeCheckContext& ctx, bool gather) {
  std::string_view name = HloOpcodeString(instr.opcode());
  if (instr.dimensions().size() != 1) {
    return Violation("collective", StrCat(name, " needs exactly one dimension in ",
                                          "dimensions={...}"));
  }
  int64_t dim = instr.dimensions(0);
  int64_t n = instr.operand_count();
  if (n > 1 && (!instr.shape().IsTuple() || instr.shape().tuple_shapes_size() != n)) {
    return Violation("collective", StrCat(name, " with ", n, " operands must produce a tuple of ",
                                          n, " arrays, got ", Str(instr.shape())));
  }
  for (int64_t k = 0; k < n; ++k) {
    const Shape& in = instr.operand(k)->shape();
    const Shape& out = n == 1 ? instr.shape() : instr.shape().tuple_shapes(static_cast<int>(k));
    if (!in.IsArray() || !out.IsArray() || in.rank() != out.rank() || dim < 0 ||
        dim >= in.rank()) {
      return Violation("collective", StrCat(name, " operand ", Str(in), " and result ",
                                            Str(out), " must be arrays of one rank with ",
                                            "dimension ", dim, " in range"));
    }
    if (!ElementTypesMatch(in.element_type(), out.element_type(),
                           ctx.options().allow_mixed_precision)) {
      return Violation("collective", StrCat(name, " changes the element type: ", Str(in),
                                            " -> ", Str(out)));
    }
    for (int64_t d = 0; d < in.rank(); ++d) {
      int64_t a = in.dimensions(d), b = out.dimensions(d);
      bool ok;
      if (d != dim) {
        ok = a == b;
      } else if (gather) {
        ok = a == 0 ? b == 0 : b % a == 0;
      } else {
        ok = b == 0 ? a == 0 : a % b == 0;
      }
      if (!ok) {
        return Violation("collective",
                         StrCat(name, " result ", Str(out), " is not ",
                                gather ? "a gather" : "a scatter", " of operand ", Str(in),
                                " along dimension ", dim));
      }
    }
  }
  return std::nullopt;
}

ShapeCheckResult CheckAllReduce(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  std::vector<const Shape*> operands = AllOperandShapes(instr);
  if (auto v = FromInference(ShapeInference::InferAllReduceShape(operands), instr, "all-reduce",
                             ctx)) {
    return v;
  }
  const HloComputation* reducer = instr.to_apply();
  if (reducer == nullptr || !operands[0]->IsArray()) return std::nullopt;
  return FromStatus(ShapeInference::VerifyReducer(ProgramShape::Of(*reducer),
                                                  {operands[0]->element_type()}, {},
                                                  ctx.inference()),
                    "all-reduce");
}

ShapeCheckResult CheckConstant(const HloInstruction& instr) {
  if (!instr.has_literal()) return Violation("constant", "constant has no literal");
  if (!ShapesEqual(instr.literal().shape(), instr.shape())) {
    return Violation("constant", StrCat("shape ", Str(instr.shape()),
                                        " does not match the literal's shape ",
                                        Str(instr.literal().shape())));
  }
  return std::nullopt;
}

ShapeCheckResult CheckTokenOps(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const Shape& shape = instr.shape();
  switch (instr.opcode()) {
    case HloOpcode::kAfterAll:
      for (int64_t k = 0; k < instr.operand_count(); ++k) {
        if (!instr.operand(k)->shape().IsToken()) {
          return Violation("token", StrCat("after-all operand ", k, " must be a token, got ",
                                           Str(instr.operand(k)->shape())));
        }
      }
      if (!shape.IsToken()) return Violation("token", "after-all must produce a token");
      return std::nullopt;
    case HloOpcode::kAddDependency:
      if (!instr.operand(1)->shape().IsToken()) {
        return Violation("token", StrCat("add-dependency operand 1 must be a token, got ",
                                         Str(instr.operand(1)->shape())));
      }
      return ctx.Expect(shape, instr.operand(0)->shape(), "token", true, "shape",
                        "operand 0 shape");
    case HloOpcode::kInfeed:
      if (!instr.operand(0)->shape().IsToken()) {
        return Violation("token", "infeed operand must be a token");
      }
      if (!shape.IsTuple() || shape.tuple_shapes_size() != 2 || !shape.tuple_shapes(1).IsToken()) {
        return Violation("token", StrCat("infeed must produce (data, token[]), got ", Str(shape)));
      }
      return std::nullopt;
    case HloOpcode::kOutfeed:
      if (!instr.operand(1)->shape().IsToken()) {
        return Violation("token", "outfeed operand 1 must be a token");
      }
      if (!shape.IsToken()) return Violation("token", "outfeed must produce a token");
      return std::nullopt;
    // XLA's shapes: send (data, u32[] context, token[]) and send-done token[];
    // recv (data, u32[], token[]) and recv-done (data, token[]). Analyses
    // index these tuples, so other shapes are refused.
    case HloOpcode::kSend:
      if (!instr.operand(1)->shape().IsToken()) {
        return Violation("send-recv", "send operand 1 must be a token");
      }
      return ctx.Expect(shape,
                        ShapeUtil::MakeTupleShape({instr.operand(0)->shape(), ShapeUtil::MakeShape(PrimitiveType::U32, {}),
                                               Shape::MakeToken()}),
                        "send-recv", false, "shape", "the send shape");
    case HloOpcode::kRecv:
      if (!instr.operand(0)->shape().IsToken()) {
        return Violation("send-recv", "recv operand must be a token");
      }
      if (!shape.IsTuple() || shape.tuple_shapes_size() != 3) {
        return Violation("send-recv", StrCat("recv must produce (data, u32[], token[]), got ", Str(shape)));
      }
      return ctx.Expect(shape,
                        ShapeUtil::MakeTupleShape({shape.tuple_shapes(0), ShapeUtil::MakeShape(PrimitiveType::U32, {}),
                                               Shape::MakeToken()}),
                        "send-recv", false, "shape", "the recv shape");
    case HloOpcode::kSendDone:
      if (instr.operand(0)->opcode() != HloOpcode::kSend) {
        return Violation("send-recv", "send-done operand must be a send");
      }
      if (!shape.IsToken()) return Violation("send-recv", StrCat("send-done must produce token[], got ", Str(shape)));
      return std::nullopt;
    case HloOpcode::kRecvDone: {
      const HloInstruction& recv = *instr.operand(0);
      if (recv.opcode() != HloOpcode::kRecv || !recv.shape().IsTuple() || recv.shape().tuple_shapes_size() < 1) {
        return Violation("send-recv", "recv-done operand must be a recv");
      }
      return ctx.Expect(shape, ShapeUtil::MakeTupleShape({recv.shape().tuple_shapes(0), Shape::MakeToken()}),
                        "send-recv", false, "shape", "the recv-done shape");
    }
    default:
      return std::nullopt;
  }
}

ShapeCheckResult CheckAsyncOps(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const Shape& shape = instr.shape();
  std::string_view name = HloOpcodeString(instr.opcode());
  switch (instr.opcode()) {
    case HloOpcode::kCopyStart: {
      if (!shape.IsTuple() || shape.tuple_shapes_size() < 2) {
        return Violation("async", StrCat("copy-start must produce (destination, source, ",
                                         "context), got ", Str(shape)));
      }
      for (int k = 0; k < 2; ++k) {
        if (auto v = ctx.Expect(shape.tuple_shapes(k), instr.operand(0)->shape(), "async", false,
                                StrCat("copy-start element ", k), "the operand shape")) {
          return v;
        }
      }
      return std::nullopt;
    }
    case HloOpcode::kCopyDone: {
      const Shape& in = instr.operand(0)->shape();
      if (!in.IsTuple() || in.tuple_shapes_size() < 1) {
        return Violation("async", StrCat("copy-done operand must be a copy-start tuple, got ",
                                         Str(in)));
      }
      return ctx.Expect(shape, in.tuple_shapes(0), "async", true, "shape",
                        "the copy-start destination shape");
    }
    case HloOpcode::kAsyncStart:
      if (!shape.IsTuple() || shape.tuple_shapes_size() < 2) {
        return Violation("async", StrCat(name, " must produce a tuple of at least ",
                                         "(operands, outputs), got ", Str(shape)));
      }
      return std::nullopt;
    case HloOpcode::kAsyncUpdate:
      return ctx.Expect(shape, instr.operand(0)->shape(), "async", true, "shape",
                        "the operand shape");
    case HloOpcode::kAsyncDone: {
      const Shape& in = instr.operand(0)->shape();
      if (!in.IsTuple() || in.tuple_shapes_size() < 2) {
        return Violation("async", StrCat("async-done operand must be an async tuple, got ",
                                         Str(in)));
      }
      return ctx.Expect(shape, in.tuple_shapes(1), "async", true, "shape",
                        "the async operation's output shape");
    }
    case HloOpcode::kAllReduceDone:
      return ctx.Expect(shape, instr.operand(0)->shape(), "async", true, "shape",
                        "the all-reduce-start shape");
    default:
      return std::nullopt;
  }
}

// convert, stochastic-convert, bitcast-convert and bitcast: element types
// change, dimensions (or bytes) do not.
ShapeCheckResult CheckConversionShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const Shape& shape = instr.shape();
  auto operand_shape = [&](int64_t k) -> const Shape& { return instr.operand(k)->shape(); };
  switch (instr.opcode()) {
    case HloOpcode::kConvert:
      return FromInference(
          ShapeInference::InferConvertShape(operand_shape(0), shape.element_type()), instr,
          "convert", ctx);
    case HloOpcode::kStochasticConvert: {
      const Shape& in = operand_shape(0);
      if (!in.IsArray() || !IsFloatingPoint(in.element_type())) {
        return Violation("convert", StrCat("stochastic-convert operand must be a ",
                                           "floating-point array, got ", Str(in)));
      }
      if (!shape.IsArray() || shape.dimensions() != in.dimensions() ||
          !operand_shape(1).IsArray() ||
          operand_shape(1).dimensions() != in.dimensions()) {
        return Violation("convert", StrCat("stochastic-convert operands and result must ",
                                           "have equal dimensions"));
      }
      return std::nullopt;
    }
    case HloOpcode::kBitcastConvert:
      return FromInference(
          ShapeInference::InferBitcastConvertShape(operand_shape(0), shape.element_type()),
          instr, "bitcast-convert", ctx);
    case HloOpcode::kBitcast: {
      // A bitcast reinterprets one array's bytes: analyses and backends give
      // it its operand's buffer, so it must be an array of the same size
      // (always, not only when layouts are checked).
      const Shape& in = operand_shape(0);
      if (!in.IsArray() || !shape.IsArray()) {
        return Violation("bitcast", StrCat("bitcast operand and result must be arrays, got ",
                                           Str(in), " -> ", Str(shape)));
      }
      if (in.is_static() && shape.is_static() &&
          ShapeUtil::ByteSizeOf(in) != ShapeUtil::ByteSizeOf(shape)) {
        return Violation("bitcast", StrCat("bitcast changes the byte size: ",
                                           in.ToString(true), " has ", ShapeUtil::ByteSizeOf(in),
                                           " bytes, ", shape.ToString(true), " has ",
                                           ShapeUtil::ByteSizeOf(shape)));
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

// Ops that move or rearrange values without computing on them: copies,
// broadcast, reshape, transpose, reverse, slices, concatenate, pad, iota,
// constants, tuples.
ShapeCheckResult CheckDataMovementShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const HloOpcode op = instr.opcode();
  const Shape& shape = instr.shape();
  const ShapeInferenceOptions opts = ctx.inference();
  InstructionShapeInputs inputs;
  inputs.options = opts;
  auto operand_shape = [&](int64_t k) -> const Shape& { return instr.operand(k)->shape(); };
  switch (instr.opcode()) {
    case HloOpcode::kCopy:
      return ctx.Expect(shape, operand_shape(0), "copy", false, "shape",
                        "the operand shape");
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
      return ctx.Expect(shape, operand_shape(0), HloOpcodeString(op), true, "shape",
                        "the operand shape");
    case HloOpcode::kBroadcast:
      if (!shape.IsArray()) return Violation("broadcast", "broadcast must produce an array");
      return FromInference(ShapeInference::InferBroadcastShape(
                               operand_shape(0), shape.dimensions(), instr.dimensions()),
                           instr, "broadcast", ctx);
    case HloOpcode::kReshape:
      if (!shape.IsArray()) return Violation("reshape", "reshape must produce an array");
      return FromInference(ShapeInference::InferReshapeShape(operand_shape(0), shape.dimensions()),
                           instr, "reshape", ctx);
    case HloOpcode::kTranspose:
      return FromInference(InferInstructionShape(instr, inputs), instr, "transpose", ctx);
    case HloOpcode::kReverse:
      return FromInference(InferInstructionShape(instr, inputs), instr, "reverse", ctx);
    case HloOpcode::kSlice:
      return FromInference(
          ShapeInference::InferSliceShape(operand_shape(0), instr.slice_starts(),
                                          instr.slice_limits(), instr.slice_strides()),
          instr, "slice", ctx);
    case HloOpcode::kDynamicSlice:
      return FromInference(ShapeInference::InferDynamicSliceShape(
                               operand_shape(0), OperandShapes(instr, 1, instr.operand_count()),
                               instr.dynamic_slice_sizes()),
                           instr, "dynamic-slice", ctx);
    case HloOpcode::kDynamicUpdateSlice:
      return FromInference(
          ShapeInference::InferDynamicUpdateSliceShape(operand_shape(0), operand_shape(1),
                                                       OperandShapes(instr, 2,
                                                                     instr.operand_count()),
                                                       opts),
          instr, "dynamic-update-slice", ctx);
    case HloOpcode::kConcatenate:
      if (instr.dimensions().size() != 1) {
        return Violation("concatenate",
                         "concatenate needs exactly one dimension in dimensions={...}");
      }
      return FromInference(InferInstructionShape(instr, inputs), instr, "concatenate", ctx);
    case HloOpcode::kPad:
      return FromInference(InferInstructionShape(instr, inputs), instr, "pad", ctx);
    case HloOpcode::kIota:
      return FromInference(ShapeInference::InferIotaShape(shape, instr.iota_dimension()), instr,
                           "iota", ctx);
    case HloOpcode::kConstant:
      return CheckConstant(instr);
    case HloOpcode::kGetTupleElement: {
      absl::StatusOr<Shape> element = InferInstructionShape(instr, inputs);
      if (!element.ok()) return Violation("get-tuple-element",
                                          std::string(element.status().message()));
      return ctx.Expect(shape, *element, "get-tuple-element", true, "shape",
                        StrCat("tuple element ", instr.tuple_index(), " shape"));
    }
    case HloOpcode::kTuple: {
      absl::StatusOr<Shape> tuple = InferInstructionShape(instr, inputs);
      if (!tuple.ok()) return Violation("tuple", std::string(tuple.status().message()));
      return ctx.Expect(shape, *tuple, "tuple", true, "shape", "the tuple of its operand shapes");
    }
    default:
      return std::nullopt;
  }
}

// Ops that compute on whole arrays: select, clamp, dot, convolution,
// reductions, gather, scatter, map, sort.
ShapeCheckResult CheckComputationShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const HloOpcode op = instr.opcode();
  const Shape& shape = instr.shape();
  InstructionShapeInputs inputs;
  inputs.options = ctx.inference();
  // dot and convolution: the written result type is the preferred one.
  if (shape.IsArray()) inputs.result_element_type = shape.element_type();
  switch (instr.opcode()) {
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
      return FromInference(InferInstructionShape(instr, inputs), instr,
                           op == HloOpcode::kSelect ? "select" : "clamp", ctx);
    case HloOpcode::kDot:
      if (!shape.IsArray()) return Violation("dot", "dot must produce an array");
      return FromInference(InferInstructionShape(instr, inputs), instr, "dot", ctx);
    case HloOpcode::kConvolution:
      if (!shape.IsArray()) return Violation("convolution", "convolution must produce an array");
      if (!instr.has_convolution_dimension_numbers()) {
        return Violation("convolution", "convolution has no dim_labels");
      }
      return FromInference(InferInstructionShape(instr, inputs), instr, "convolution", ctx);
    case HloOpcode::kReduce:
      return FromInference(InferInstructionShape(instr, inputs), instr, "reduce", ctx);
    case HloOpcode::kReduceWindow:
      // No window= is XLA's empty window: only scalars fit it.
      return FromInference(InferInstructionShape(instr, inputs), instr, "reduce-window", ctx);
    case HloOpcode::kSelectAndScatter:
      return FromInference(InferInstructionShape(instr, inputs), instr, "select-and-scatter", ctx);
    case HloOpcode::kGather:
      return FromInference(InferInstructionShape(instr, inputs), instr, "gather", ctx);
    case HloOpcode::kScatter:
      return FromInference(InferInstructionShape(instr, inputs), instr, "scatter", ctx);
    case HloOpcode::kMap:
      return FromInference(InferInstructionShape(instr, inputs), instr, "map", ctx);
    case HloOpcode::kSort:
      if (instr.dimensions().size() != 1) {
        return Violation("sort", "sort needs exactly one dimension in dimensions={...}");
      }
      return FromInference(InferInstructionShape(instr, inputs), instr, "sort", ctx);
    default:
      return std::nullopt;
  }
}

// Ops that call computations: while, conditional, call, fusion, custom-call.
ShapeCheckResult CheckControlFlowShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  switch (instr.opcode()) {
    case HloOpcode::kWhile:
      return CheckWhileShape(instr, ctx);
    case HloOpcode::kConditional:
      return CheckConditionalShape(instr, ctx);
    case HloOpcode::kCall:
      return CheckCallShape(instr, ctx);
    case HloOpcode::kFusion:
      return CheckFusionShape(instr, ctx);
    case HloOpcode::kCustomCall:
      if (IsValuePassingCustomCallTarget(instr.custom_call_target())) {
        // The framework reads these as the operand's value moved or
        // annotated: one operand, the result its shape.
        if (instr.operand_count() != 1) {
          return Violation("custom-call", StrCat("custom-call ", instr.custom_call_target(),
                                                 " passes one value on; it has ",
                                                 instr.operand_count(), " operands"));
        }
        if (auto v = ctx.Expect(instr.shape(), instr.operand(0)->shape(), "custom-call", false,
                                StrCat(instr.custom_call_target(), " result shape"),
                                "its operand's shape")) {
          return v;
        }
      }
      return CheckOutputOperandAliasing(instr);
    default:
      return std::nullopt;
  }
}

// Collectives, async pairs and token-carrying ops.
ShapeCheckResult CheckCommunicationShape(const HloInstruction& instr,
                                         const ShapeCheckContext& ctx) {
  const ShapeInferenceOptions opts = ctx.inference();
  auto operand_shape = [&](int64_t k) -> const Shape& { return instr.operand(k)->shape(); };
  switch (instr.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return CheckAllReduce(instr, ctx);
    case HloOpcode::kAllGather:
      return CheckGatherScatterCollective(instr, ctx, /*gather=*/true);
    case HloOpcode::kReduceScatter: {
      if (auto v = CheckGatherScatterCollective(instr, ctx, /*gather=*/false)) return v;
      const Shape& in = operand_shape(0);
      if (!in.IsArray()) return std::nullopt;
      return FromStatus(ShapeInference::VerifyReducer(ProgramShape::Of(*instr.to_apply()),
                                                      {in.element_type()}, {}, opts),
                        "collective");
    }
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      return FromInference(ShapeInference::InferAllReduceShape(AllOperandShapes(instr)), instr,
                           "collective", ctx);
    case HloOpcode::kCollectivePermute:
      if (instr.operand_count() != 1) return std::nullopt;
      return ctx.ExpectInferred(instr, operand_shape(0), "collective");
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAllReduceDone:
      return CheckAsyncOps(instr, ctx);
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      return CheckTokenOps(instr, ctx);
    default:
      return std::nullopt;
  }
}

// rng, partition-id, replica-id and the dynamic dimension sizes.
ShapeCheckResult CheckMiscShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const HloOpcode op = instr.opcode();
  const Shape& shape = instr.shape();
  auto operand_shape = [&](int64_t k) -> const Shape& { return instr.operand(k)->shape(); };
  switch (instr.opcode()) {
    case HloOpcode::kRng: {
      if (!shape.IsArray()) return Violation("rng", "rng must produce an array");
      for (int64_t k = 0; k < 2; ++k) {
        const Shape& p = operand_shape(k);
        if (!p.IsArray() || p.rank() != 0 ||
            !ElementTypesMatch(p.element_type(), shape.element_type(),
                               ctx.options().allow_mixed_precision)) {
          return Violation("rng", StrCat("rng parameter ", k, " must be a ",
                                         PrimitiveTypeName(shape.element_type()),
                                         " scalar, got ", Str(p)));
        }
      }
      return std::nullopt;
    }
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      if (!IsScalarOf(shape, PrimitiveType::U32)) {
        return Violation("misc", StrCat(HloOpcodeString(op), " must produce u32[], got ",
                                        Str(shape)));
      }
      return std::nullopt;
    case HloOpcode::kGetDimensionSize: {
      const Shape& in = operand_shape(0);
      if (instr.dimensions().size() != 1 || !in.IsArray() || instr.dimensions(0) < 0 ||
          instr.dimensions(0) >= in.rank()) {
        return Violation("misc", StrCat("get-dimension-size needs one dimension in range for ",
                                        Str(in)));
      }
      if (!IsScalarOf(shape, PrimitiveType::S32)) {
        return Violation("misc", StrCat("get-dimension-size must produce s32[], got ",
                                        Str(shape)));
      }
      return std::nullopt;
    }
    case HloOpcode::kSetDimensionSize: {
      const Shape& size = operand_shape(1);
      if (!size.IsArray() || size.rank() != 0 || !IsInteger(size.element_type())) {
        return Violation("misc", StrCat("set-dimension-size size operand must be an integer ",
                                        "scalar, got ", Str(size)));
      }
      return ctx.ExpectInferred(instr, operand_shape(0), "misc");
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

ShapeCheckResult ShapeCheckContext::Expect(const Shape& actual, const Shape& expected,
                                           std::string_view rule, bool forwarding,
                                           std::string_view what,
                                           std::string_view expected_what) const {
  if (ShapesEqual(actual, expected, equality(forwarding))) return std::nullopt;
  bool layout_only = ShapesEqual(actual, expected, equality(/*forwarding=*/false));
  bool show_layout = forwarding && options_.layout_sensitive;
  return Violation(layout_only ? "layout" : rule,
                   StrCat(what, " ", actual.ToString(show_layout), " does not match ",
                          expected_what, " ", expected.ToString(show_layout)));
}

ShapeCheckResult CheckInstructionShape(const HloInstruction& instr, const ShapeCheckContext& ctx) {
  const HloOpcode op = instr.opcode();
  auto operand_shape = [&](int64_t k) -> const Shape& { return instr.operand(k)->shape(); };

  const HloOpcodeClass op_class = HloOpcodeClassOf(op);
  if (op_class == HloOpcodeClass::kElementwiseUnary) {
    if (auto v = FromInference(ShapeInference::InferUnaryOpShape(op, operand_shape(0)), instr,
                               "elementwise-shapes", ctx)) {
      return v;
    }
    return CheckElementwiseTypes(instr, ShapeInference::InferUnaryOpShape(op, operand_shape(0)));
  }
  if (op_class == HloOpcodeClass::kElementwiseBinary) {
    if (auto v = FromInference(ShapeInference::InferBinaryOpShape(
                                   op, operand_shape(0), operand_shape(1), ctx.inference()),
                               instr, op == HloOpcode::kCompare ? "compare" : "elementwise-shapes",
                               ctx)) {
      return v;
    }
    ShapeInferenceOptions strict = ctx.inference();
    strict.allow_mixed_precision = false;
    return CheckElementwiseTypes(
        instr, ShapeInference::InferBinaryOpShape(op, operand_shape(0), operand_shape(1), strict));
  }
  // Every other opcode belongs to at most one group; one that none checks
  // (parameter, rng-bit-generator, topk, cholesky, fft, batch-norm-*, ...)
  // has its operand counts checked only.
  using GroupCheck = ShapeCheckResult (*)(const HloInstruction&, const ShapeCheckContext&);
  for (GroupCheck check : {CheckConversionShape, CheckDataMovementShape, CheckComputationShape,
                           CheckControlFlowShape, CheckCommunicationShape, CheckMiscShape}) {
    if (ShapeCheckResult violation = check(instr, ctx)) return violation;
  }
  return std::nullopt;
}

}  // namespace hmo::verifier_internal
