#include "hmo/ir/shape_inference.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape_equality.h"
#include "str_cat.h"

namespace hmo {

using ir_internal::StrAppend;
using ir_internal::StrCat;
namespace {

std::string Str(const Shape& s) { return s.ToString(/*print_layout=*/false); }

std::string Dims(absl::Span<const int64_t> d) { return StrCat("{", absl::StrJoin(d, ","), "}"); }

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

bool IsDynamicDim(const Shape& s, int64_t i) {
  return s.is_dynamic_dimension(static_cast<int>(i)) || s.dimensions(i) == Shape::kUnboundedSize;
}

// Equal dimension lists, a dynamic dimension on either side matching any size.
bool SameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a.dimensions(i) != b.dimensions(i) && !IsDynamicDim(a, i) && !IsDynamicDim(b, i)) {
      return false;
    }
  }
  return true;
}

// An array shape with `type` and the dimensions (and dynamic flags) of `dims`.
Shape WithElementType(const Shape& dims, PrimitiveType type) {
  Shape out(type, {});
  for (int64_t i = 0; i < dims.rank(); ++i) {
    out.add_dimensions(dims.dimensions(i), dims.is_dynamic_dimension(static_cast<int>(i)));
  }
  return out;
}

absl::Status ExpectArray(const Shape& s, std::string_view what) {
  if (!s.IsArray()) return Invalid(StrCat(what, " must be an array, got ", Str(s)));
  return absl::OkStatus();
}

absl::Status ExpectScalar(const Shape& s, std::string_view what) {
  if (!s.IsArray() || s.rank() != 0) return Invalid(StrCat(what, " must be a scalar, got ",
                                                           Str(s)));
  return absl::OkStatus();
}

// Checks that `dims` are distinct and in [0, rank).
absl::Status ExpectDistinctInRange(absl::Span<const int64_t> dims, int64_t rank,
                                   std::string_view what) {
  std::set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return Invalid(StrCat(what, " ", Dims(dims), " has dimension ", d,
                            " out of range for rank ", rank));
    }
    if (!seen.insert(d).second) {
      return Invalid(StrCat(what, " ", Dims(dims), " repeats dimension ", d));
    }
  }
  return absl::OkStatus();
}

absl::Status ExpectSorted(absl::Span<const int64_t> dims, std::string_view what) {
  if (!std::is_sorted(dims.begin(), dims.end())) {
    return Invalid(StrCat(what, " ", Dims(dims), " must be sorted"));
  }
  return absl::OkStatus();
}

bool Contains(absl::Span<const int64_t> v, int64_t x) { return std::find(v.begin(), v.end(),
                                                                         x) != v.end(); }

// The wider of two floating-point types (by bit width; ties keep `a`).
PrimitiveType WiderType(PrimitiveType a, PrimitiveType b) {
  if (a == b || !IsFloatingPoint(a) || !IsFloatingPoint(b)) return a;
  return BitWidth(b) > BitWidth(a) ? b : a;
}

// Start indices of dynamic-slice / dynamic-update-slice.
absl::Status CheckStartIndices(const Shape& operand, absl::Span<const Shape* const> indices,
                               std::string_view op) {
  if (indices.size() == 1 && indices[0]->IsArray() && indices[0]->rank() == 1) {
    // Legacy form: one index vector with one entry per dimension.
    if (indices[0]->dimensions(0) != operand.rank()) {
      return Invalid(StrCat(op, " start index vector ", Str(*indices[0]),
                            " must have one entry per operand dimension (", operand.rank(),
                            ")"));
    }
    if (!IsInteger(indices[0]->element_type())) {
      return Invalid(StrCat(op, " start indices must be integers, got ", Str(*indices[0])));
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(indices.size()) != operand.rank()) {
    return Invalid(StrCat(op, " has ", indices.size(), " start indices for operand ",
                          Str(operand), " of rank ", operand.rank()));
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    const Shape& s = *indices[i];
    if (!s.IsArray() || s.rank() != 0 || !IsInteger(s.element_type())) {
      return Invalid(StrCat(op, " start index ", i, " must be an integer scalar, got ", Str(s)));
    }
    if (s.element_type() != indices[0]->element_type()) {
      return Invalid(StrCat(op, " start indices must share one element type, got ",
                            Str(*indices[0]), " and ", Str(s)));
    }
  }
  return absl::OkStatus();
}

// Shapes of N scalars of the given types: a scalar for N == 1, else a tuple.
Shape ScalarsOrTuple(absl::Span<const PrimitiveType> types, const Shape& dims) {
  if (types.size() == 1) return WithElementType(dims, types[0]);
  std::vector<Shape> elements;
  for (PrimitiveType t : types) elements.push_back(WithElementType(dims, t));
  return Shape::MakeTuple(std::move(elements));
}

// N operands of equal dimensions (arrays), used by reduce/sort/map/etc.
absl::Status ExpectSameDimensionArrays(absl::Span<const Shape* const> shapes, std::string_view op) {
  if (shapes.empty()) return Invalid(StrCat(op, " needs at least one input"));
  for (size_t i = 0; i < shapes.size(); ++i) {
    HMO_RETURN_IF_ERROR(ExpectArray(*shapes[i], StrCat(op, " input ", i)));
    if (!SameDims(*shapes[i], *shapes[0])) {
      return Invalid(StrCat(op, " inputs must have equal dimensions, got ", Str(*shapes[0]),
                            " and ", Str(*shapes[i])));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// ------------------------------------------------------------ ProgramShape

ProgramShape ProgramShape::Of(const HloComputation& computation) {
  ProgramShape p;
  for (const HloInstruction* param : computation.parameter_instructions()) {
    p.parameters.push_back(param ? param->shape() : Shape());
  }
  if (computation.root_instruction() != nullptr) p.result = computation.root_instruction()->shape();
  return p;
}

std::string ProgramShape::ToString() const {
  std::vector<std::string> params;
  for (const Shape& s : parameters) params.push_back(Str(s));
  return StrCat("(", absl::StrJoin(params, ", "), ") -> ", Str(result));
}

// ------------------------------------------------------------ elementwise

absl::StatusOr<Shape> ShapeInference::InferUnaryOpShape(HloOpcode opcode, const Shape& operand) {
  std::string_view name = HloOpcodeString(opcode);
  HMO_RETURN_IF_ERROR(ExpectArray(operand, StrCat(name, " operand")));
  PrimitiveType t = operand.element_type();
  auto type_error = [&](std::string_view expected) {
    return Invalid(StrCat(name, " expects ", expected, " operand, got ", Str(operand)));
  };
  if (IsFloatingUnaryOpcode(opcode)) {
    if (!IsFloatingPoint(t) && !IsComplex(t)) return type_error("a floating-point or complex");
    return WithElementType(operand, t);
  }
  switch (opcode) {
    case HloOpcode::kErf:
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kReducePrecision:
      if (!IsFloatingPoint(t)) return type_error("a floating-point");
      return WithElementType(operand, t);
    case HloOpcode::kIsFinite:
      if (!IsFloatingPoint(t)) return type_error("a floating-point");
      return WithElementType(operand, PrimitiveType::PRED);
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz:
      if (!IsInteger(t)) return type_error("an integral");
      return WithElementType(operand, t);
    case HloOpcode::kNot:
      if (!IsInteger(t) && t != PrimitiveType::PRED) return type_error("a pred or integral");
      return WithElementType(operand, t);
    case HloOpcode::kNegate:
    case HloOpcode::kSign:
      if (t == PrimitiveType::PRED) return type_error("a numeric");
      return WithElementType(operand, t);
    case HloOpcode::kAbs:
      if (t == PrimitiveType::PRED) return type_error("a numeric");
      return WithElementType(operand, primitive_util::ComplexComponentType(t));
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      if (!IsFloatingPoint(t) && !IsComplex(t)) return type_error("a floating-point or complex");
      return WithElementType(operand, primitive_util::ComplexComponentType(t));
    default:
      return Invalid(StrCat(name, " is not a unary elementwise opcode"));
  }
}

absl::StatusOr<Shape> ShapeInference::InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                                         const Shape& rhs,
                                                         const Options& options) {
  std::string_view name = HloOpcodeString(opcode);
  HMO_RETURN_IF_ERROR(ExpectArray(lhs, StrCat(name, " lhs")));
  HMO_RETURN_IF_ERROR(ExpectArray(rhs, StrCat(name, " rhs")));
  if (!SameDims(lhs, rhs)) {
    return Invalid(StrCat("binary op operands have incompatible shapes ", Str(lhs), " and ",
                          Str(rhs)));
  }
  PrimitiveType lt = lhs.element_type();
  PrimitiveType rt = rhs.element_type();
  if (!ElementTypesMatch(lt, rt, options.allow_mixed_precision)) {
    return Invalid(StrCat("binary op operands have different element types ", Str(lhs),
                          " and ", Str(rhs)));
  }
  auto type_error = [&](std::string_view expected) {
    return Invalid(StrCat(name, " expects ", expected, " operands, got ", Str(lhs)));
  };
  switch (opcode) {
    case HloOpcode::kCompare:
      return WithElementType(lhs, PrimitiveType::PRED);
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      if (!IsInteger(lt) && lt != PrimitiveType::PRED) return type_error("pred or integral");
      return WithElementType(lhs, lt);
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      if (!IsInteger(lt)) return type_error("integral");
      return WithElementType(lhs, lt);
    case HloOpcode::kAtan2:
      if (!IsFloatingPoint(lt) && !IsComplex(lt)) return type_error("floating-point or complex");
      return WithElementType(lhs, WiderType(lt, rt));
    case HloOpcode::kComplex: {
      if (lt != PrimitiveType::F32 && lt != PrimitiveType::F64) return type_error("f32 or f64");
      return WithElementType(lhs, WiderType(lt, rt) == PrimitiveType::F64 ? PrimitiveType::C128
                                                                          : PrimitiveType::C64);
    }
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kPower:
      return WithElementType(lhs, WiderType(lt, rt));
    default:
      return Invalid(StrCat(name, " is not a binary elementwise opcode"));
  }
}

absl::StatusOr<Shape> ShapeInference::InferTernaryOpShape(HloOpcode opcode, const Shape& a,
                                                          const Shape& b, const Shape& c,
                                                          const Options& options) {
  if (opcode == HloOpcode::kSelect) {
    const Shape& pred = a;
    const Shape& on_true = b;
    const Shape& on_false = c;
    HMO_RETURN_IF_ERROR(ExpectArray(pred, "select predicate"));
    HMO_RETURN_IF_ERROR(ExpectArray(on_true, "select on_true"));
    HMO_RETURN_IF_ERROR(ExpectArray(on_false, "select on_false"));
    if (pred.element_type() != PrimitiveType::PRED) {
      return Invalid(StrCat("select predicate must have element type pred, got ", Str(pred)));
    }
    if (!ShapesEqual(on_true, on_false, {.ignore_fp_precision = options.allow_mixed_precision})) {
      return Invalid(StrCat("select operands have incompatible shapes ", Str(on_true), " and ",
                            Str(on_false)));
    }
    if (pred.rank() != 0 && !SameDims(pred, on_true)) {
      return Invalid(StrCat("select predicate ", Str(pred),
                            " must be a scalar or have the dimensions of ", Str(on_true)));
    }
    return WithElementType(on_true, WiderType(on_true.element_type(), on_false.element_type()));
  }
  if (opcode == HloOpcode::kClamp) {
    const Shape& min = a;
    const Shape& operand = b;
    const Shape& max = c;
    HMO_RETURN_IF_ERROR(ExpectArray(min, "clamp min"));
    HMO_RETURN_IF_ERROR(ExpectArray(operand, "clamp operand"));
    HMO_RETURN_IF_ERROR(ExpectArray(max, "clamp max"));
    for (const Shape* bound : {&min, &max}) {
      if (!ElementTypesMatch(bound->element_type(), operand.element_type(),
                             options.allow_mixed_precision)) {
        return Invalid(StrCat("clamp bounds must have the operand's element type, got ",
                              Str(*bound), " for operand ", Str(operand)));
      }
      if (bound->rank() != 0 && !SameDims(*bound, operand)) {
        return Invalid(StrCat("clamp bound ", Str(*bound),
                              " must be a scalar or have the dimensions of ", Str(operand)));
      }
    }
    return WithElementType(operand, operand.element_type());
  }
  return Invalid(StrCat(HloOpcodeString(opcode), " is not a ternary elementwise opcode"));
}

absl::StatusOr<Shape> ShapeInference::InferConvertShape(const Shape& operand,
                                                        PrimitiveType new_type) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "convert operand"));
  if (!IsArrayType(new_type)) {
    return Invalid(StrCat("convert target type ", PrimitiveTypeName(new_type),
                          " is not an array element type"));
  }
  return WithElementType(operand, new_type);
}

absl::StatusOr<Shape> ShapeInference::InferBitcastConvertShape(const Shape& operand,
                                                               PrimitiveType new_type) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "bitcast-convert operand"));
  if (!IsArrayType(new_type)) {
    return Invalid(StrCat("bitcast-convert target type ", PrimitiveTypeName(new_type),
                          " is not an array element type"));
  }
  int old_bits = BitWidth(operand.element_type());
  int new_bits = BitWidth(new_type);
  if (old_bits == new_bits) return WithElementType(operand, new_type);
  if (old_bits > new_bits) {
    if (old_bits % new_bits != 0) {
      return Invalid(StrCat("bitcast-convert from ", Str(operand), " to ",
                            PrimitiveTypeName(new_type), ": bit widths do not divide"));
    }
    Shape out = WithElementType(operand, new_type);
    out.add_dimensions(old_bits / new_bits);
    return out;
  }
  if (new_bits % old_bits != 0 || operand.rank() == 0 ||
      operand.dimensions(operand.rank() - 1) != new_bits / old_bits) {
    return Invalid(StrCat("bitcast-convert from ", Str(operand), " to wider type ",
                          PrimitiveTypeName(new_type), " needs a minor dimension of size ",
                          new_bits / std::max(old_bits, 1)));
  }
  Shape out(new_type, {});
  for (int64_t i = 0; i + 1 < operand.rank(); ++i) {
    out.add_dimensions(operand.dimensions(i), operand.is_dynamic_dimension(static_cast<int>(i)));
  }
  return out;
}

// ------------------------------------------------------- data movement

absl::StatusOr<Shape> ShapeInference::InferBroadcastShape(
    const Shape& operand, absl::Span<const int64_t> output_dimensions,
    absl::Span<const int64_t> broadcast_dimensions) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "broadcast operand"));
  if (static_cast<int64_t>(broadcast_dimensions.size()) != operand.rank()) {
    return Invalid(StrCat("broadcast dimensions ", Dims(broadcast_dimensions), " must have ",
                          operand.rank(), " entries, one per dimension of operand ",
                          Str(operand)));
  }
  int64_t out_rank = static_cast<int64_t>(output_dimensions.size());
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(broadcast_dimensions, out_rank,
                                            "broadcast dimensions"));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t o = broadcast_dimensions[i];
    if (output_dimensions[o] != operand.dimensions(i) && !IsDynamicDim(operand, i)) {
      return Invalid(StrCat("broadcast maps operand dimension ", i, " (size ",
                            operand.dimensions(i), ") to output dimension ", o, " (size ",
                            output_dimensions[o], ")"));
    }
  }
  return Shape(operand.element_type(),
               std::vector<int64_t>(output_dimensions.begin(), output_dimensions.end()));
}

absl::StatusOr<Shape> ShapeInference::InferReshapeShape(
    const Shape& operand, absl::Span<const int64_t> output_dimensions) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "reshape operand"));
  Shape out(operand.element_type(),
            std::vector<int64_t>(output_dimensions.begin(), output_dimensions.end()));
  if (!operand.is_static()) return out;
  int64_t out_elements = 1;
  for (int64_t d : output_dimensions) out_elements *= d;
  if (ShapeUtil::ElementsIn(operand) != out_elements) {
    return Invalid(StrCat("reshape changes the element count: ", Str(operand), " has ",
                          ShapeUtil::ElementsIn(operand), " elements, ", Str(out), " has ",
                          out_elements));
  }
  return out;
}

absl::StatusOr<Shape> ShapeInference::InferTransposeShape(const Shape& operand,
                                                          absl::Span<const int64_t> permutation) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "transpose operand"));
  if (static_cast<int64_t>(permutation.size()) != operand.rank()) {
    return Invalid(StrCat("transpose dimensions ", Dims(permutation),
                          " are not a permutation of the ", operand.rank(),
                          " dimensions of ", Str(operand)));
  }
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(permutation, operand.rank(), "transpose dimensions"));
  Shape out(operand.element_type(), {});
  for (int64_t p : permutation) {
    out.add_dimensions(operand.dimensions(p), operand.is_dynamic_dimension(static_cast<int>(p)));
  }
  return out;
}

absl::StatusOr<Shape> ShapeInference::InferReverseShape(const Shape& operand,
                                                        absl::Span<const int64_t> dimensions) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "reverse operand"));
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(dimensions, operand.rank(), "reverse dimensions"));
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> ShapeInference::InferSliceShape(const Shape& operand,
                                                      absl::Span<const int64_t> starts,
                                                      absl::Span<const int64_t> limits,
                                                      absl::Span<const int64_t> strides) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "slice operand"));
  int64_t rank = operand.rank();
  if (static_cast<int64_t>(starts.size()) != rank || static_cast<int64_t>(limits.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank) {
    return Invalid(StrCat("slice has ", starts.size(), " start, ", limits.size(), " limit and ",
                          strides.size(), " stride entries for operand ", Str(operand),
                          " of rank ", rank));
  }
  Shape out(operand.element_type(), {});
  for (int64_t d = 0; d < rank; ++d) {
    int64_t start = starts[d], limit = limits[d], stride = strides[d];
    if (stride < 1) {
      return Invalid(StrCat("slice stride ", stride, " in dimension ", d, " must be >= 1"));
    }
    if (start < 0 || start > limit || limit > operand.dimensions(d)) {
      return Invalid(StrCat("slice [", start, ":", limit, "] in dimension ", d,
                            " is out of bounds for ", Str(operand)));
    }
    out.add_dimensions((limit - start + stride - 1) / stride);
  }
  return out;
}

absl::StatusOr<Shape> ShapeInference::InferDynamicSliceShape(
    const Shape& operand, absl::Span<const Shape* const> start_indices,
    absl::Span<const int64_t> slice_sizes) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "dynamic-slice operand"));
  HMO_RETURN_IF_ERROR(CheckStartIndices(operand, start_indices, "dynamic-slice"));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Invalid(StrCat("dynamic-slice sizes ", Dims(slice_sizes), " must have one entry per ",
                          "dimension of ", Str(operand)));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (slice_sizes[d] < 0 || (slice_sizes[d] > operand.dimensions(d) && !IsDynamicDim(operand,
                                                                                       d))) {
      return Invalid(StrCat("dynamic-slice size ", slice_sizes[d], " in dimension ", d,
                            " is out of bounds for ", Str(operand)));
    }
  }
  return Shape(operand.element_type(), std::vector<int64_t>(slice_sizes.begin(),
                                                            slice_sizes.end()));
}

absl::StatusOr<Shape> ShapeInference::InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update, absl::Span<const Shape* const> start_indices,
    const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "dynamic-update-slice operand"));
  HMO_RETURN_IF_ERROR(ExpectArray(update, "dynamic-update-slice update"));
  HMO_RETURN_IF_ERROR(CheckStartIndices(operand, start_indices, "dynamic-update-slice"));
  if (update.rank() != operand.rank()) {
    return Invalid(StrCat("dynamic-update-slice update ", Str(update),
                          " must have the rank of operand ", Str(operand)));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (update.dimensions(d) > operand.dimensions(d) && !IsDynamicDim(operand, d) &&
        !IsDynamicDim(update, d)) {
      return Invalid(StrCat("dynamic-update-slice update ", Str(update),
                            " is larger than operand ", Str(operand), " in dimension ", d));
    }
  }
  if (!ElementTypesMatch(operand.element_type(), update.element_type(),
                         options.allow_mixed_precision)) {
    return Invalid(StrCat("dynamic-update-slice update ", Str(update),
                          " must have the element type of operand ", Str(operand)));
  }
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> ShapeInference::InferConcatenateShape(absl::Span<const Shape* const> operands,
                                                            int64_t dimension,
                                                            const Options& options) {
  if (operands.empty()) return Invalid("concatenate needs at least one operand");
  const Shape& first = *operands[0];
  for (size_t i = 0; i < operands.size(); ++i) {
    HMO_RETURN_IF_ERROR(ExpectArray(*operands[i], StrCat("concatenate operand ", i)));
  }
  if (dimension < 0 || dimension >= first.rank()) {
    return Invalid(StrCat("concatenate dimension ", dimension, " is out of range for ",
                          Str(first)));
  }
  Shape out = WithElementType(first, first.element_type());
  int64_t total = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& s = *operands[i];
    if (s.rank() != first.rank()) {
      return Invalid(StrCat("concatenate operands have different ranks: ", Str(first),
                            " and ", Str(s)));
    }
    if (!ElementTypesMatch(s.element_type(), first.element_type(), options.allow_mixed_precision)) {
      return Invalid(StrCat("concatenate operands have different element types: ", Str(first),
                            " and ", Str(s)));
    }
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (d != dimension && s.dimensions(d) != first.dimensions(d) && !IsDynamicDim(s, d) &&
          !IsDynamicDim(first, d)) {
        return Invalid(StrCat("concatenate operands ", Str(first), " and ", Str(s),
                              " differ in dimension ", d, " other than the concatenated ",
                              "dimension ", dimension));
      }
    }
    total += s.dimensions(dimension);
  }
  out.set_dimensions(static_cast<int>(dimension), total);
  return out;
}

absl::StatusOr<Shape> ShapeInference::InferPadShape(const Shape& operand,
                                                    const Shape& padding_value,
                                                    const PaddingConfig& padding,
                                                    const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "pad operand"));
  HMO_RETURN_IF_ERROR(ExpectScalar(padding_value, "pad padding value"));
  if (!ElementTypesMatch(operand.element_type(), padding_value.element_type(),
                         options.allow_mixed_precision)) {
    return Invalid(StrCat("pad padding value ", Str(padding_value),
                          " must have the element type of operand ", Str(operand)));
  }
  if (static_cast<int64_t>(padding.dimensions.size()) != operand.rank()) {
    return Invalid(StrCat("padding config ", padding.ToString(), " has ",
                          padding.dimensions.size(), " dimensions for operand ", Str(operand)));
  }
  Shape out = WithElementType(operand, operand.element_type());
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const PaddingConfigDimension& p = padding.dimensions[d];
    if (p.interior_padding < 0) {
      return Invalid(StrCat("pad interior padding ", p.interior_padding, " in dimension ", d,
                            " is negative"));
    }
    int64_t size = operand.dimensions(d);
    int64_t padded = p.edge_padding_low + p.edge_padding_high + size +
                     std::max<int64_t>(size - 1, 0) * p.interior_padding;
    if (padded < 0) {
      return Invalid(StrCat("pad yields negative size ", padded, " in dimension ", d));
    }
    out.set_dimensions(static_cast<int>(d), padded);
  }
  return out;
}

absl::StatusOr<Shape> ShapeInference::InferIotaShape(const Shape& shape, int64_t iota_dimension) {
  if (!shape.IsArray() || shape.rank() == 0) {
    return Invalid(StrCat("iota shape must be an array of rank >= 1, got ", Str(shape)));
  }
  if (iota_dimension < 0 || iota_dimension >= shape.rank()) {
    return Invalid(StrCat("iota_dimension ", iota_dimension, " is out of range for ", Str(shape)));
  }
  return WithElementType(shape, shape.element_type());
}

// ------------------------------------------------------------- tuples

absl::StatusOr<Shape> ShapeInference::InferGetTupleElementShape(const Shape& tuple, int64_t index) {
  if (!tuple.IsTuple()) {
    return Invalid(StrCat("get-tuple-element operand must be a tuple, got ", Str(tuple)));
  }
  if (index < 0 || index >= tuple.tuple_shapes_size()) {
    return Invalid(StrCat("get-tuple-element index ", index, " is out of range for ",
                          Str(tuple), " with ", tuple.tuple_shapes_size(), " elements"));
  }
  return tuple.tuple_shapes(static_cast<int>(index));
}

Shape ShapeInference::InferTupleShape(absl::Span<const Shape* const> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Shape* s : elements) shapes.push_back(*s);
  return Shape::MakeTuple(std::move(shapes));
}

// ------------------------------------------------------- contractions

absl::StatusOr<Shape> ShapeInference::InferDotShape(const Shape& lhs, const Shape& rhs,
                                                    const DotDimensionNumbers& dnums,
                                                    PrimitiveType result_type,
                                                    const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectArray(lhs, "dot lhs"));
  HMO_RETURN_IF_ERROR(ExpectArray(rhs, "dot rhs"));
  if (!ElementTypesMatch(lhs.element_type(), rhs.element_type(), options.allow_mixed_precision)) {
    return Invalid(StrCat("dot operands have different element types: ", Str(lhs), " and ",
                          Str(rhs)));
  }
  if (dnums.lhs_batch_dimensions.size() != dnums.rhs_batch_dimensions.size()) {
    return Invalid(StrCat("dot has ", dnums.lhs_batch_dimensions.size(),
                          " lhs batch dimensions but ", dnums.rhs_batch_dimensions.size(),
                          " rhs batch dimensions"));
  }
  if (dnums.lhs_contracting_dimensions.size() != dnums.rhs_contracting_dimensions.size()) {
    return Invalid(StrCat("dot has ", dnums.lhs_contracting_dimensions.size(),
                          " lhs contracting dimensions but ",
                          dnums.rhs_contracting_dimensions.size(),
                          " rhs contracting dimensions"));
  }
  auto side = [](const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting) {
    std::vector<int64_t> all = batch;
    all.insert(all.end(), contracting.begin(), contracting.end());
    return all;
  };
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(
      side(dnums.lhs_batch_dimensions, dnums.lhs_contracting_dimensions), lhs.rank(),
      "dot lhs batch+contracting dimensions"));
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(
      side(dnums.rhs_batch_dimensions, dnums.rhs_contracting_dimensions), rhs.rank(),
      "dot rhs batch+contracting dimensions"));
  for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i) {
    int64_t l = dnums.lhs_batch_dimensions[i], r = dnums.rhs_batch_dimensions[i];
    if (lhs.dimensions(l) != rhs.dimensions(r)) {
      return Invalid(StrCat("dot batch dimension sizes differ: lhs dimension ", l, " of ",
                            Str(lhs), " vs rhs dimension ", r, " of ", Str(rhs)));
    }
  }
  for (size_t i = 0; i < dnums.lhs_contracting_dimensions.size(); ++i) {
    int64_t l = dnums.lhs_contracting_dimensions[i], r = dnums.rhs_contracting_dimensions[i];
    if (lhs.dimensions(l) != rhs.dimensions(r)) {
      return Invalid(StrCat("dot contracting dimension sizes differ: lhs dimension ", l,
                            " of ", Str(lhs), " vs rhs dimension ", r, " of ", Str(rhs)));
    }
  }
  Shape out(result_type, {});
  for (int64_t l : dnums.lhs_batch_dimensions) {
    out.add_dimensions(lhs.dimensions(l), lhs.is_dynamic_dimension(static_cast<int>(l)));
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(dnums.lhs_batch_dimensions, d) && !Contains(dnums.lhs_contracting_dimensions,
                                                              d)) {
      out.add_dimensions(lhs.dimensions(d), lhs.is_dynamic_dimension(static_cast<int>(d)));
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(dnums.rhs_batch_dimensions, d) && !Contains(dnums.rhs_contracting_dimensions,
                                                              d)) {
      out.add_dimensions(rhs.dimensions(d), rhs.is_dynamic_dimension(static_cast<int>(d)));
    }
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> ShapeInference::InferWindowOutputDimensions(
    absl::Span<const int64_t> base_dimensions, const Window& window) {
  if (window.dimensions.size() != base_dimensions.size()) {
    return Invalid(StrCat("window {", window.ToString(), "} has ", window.dimensions.size(),
                          " dimensions but the input has ", base_dimensions.size()));
  }
  std::vector<int64_t> out;
  out.reserve(base_dimensions.size());
  for (size_t d = 0; d < base_dimensions.size(); ++d) {
    const WindowDimension& w = window.dimensions[d];
    if (w.size < 1 || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1) {
      return Invalid(StrCat("window dimension ", d, " needs size, stride and dilations >= 1 (",
                            "size ", w.size, ", stride ", w.stride, ", base dilation ",
                            w.base_dilation, ", window dilation ", w.window_dilation, ")"));
    }
    int64_t base = base_dimensions[d];
    int64_t dilated_base = base == 0 ? 0 : (base - 1) * w.base_dilation + 1;
    int64_t padded = dilated_base + w.padding_low + w.padding_high;
    int64_t dilated_window = (w.size - 1) * w.window_dilation + 1;
    out.push_back(padded < dilated_window ? 0 : (padded - dilated_window) / w.stride + 1);
  }
  return out;
}

absl::StatusOr<Shape> ShapeInference::InferConvolutionShape(
    const Shape& lhs, const Shape& rhs, const Window& window,
    const ConvolutionDimensionNumbers& dnums, int64_t feature_group_count,
    int64_t batch_group_count, PrimitiveType result_type, const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectArray(lhs, "convolution lhs"));
  HMO_RETURN_IF_ERROR(ExpectArray(rhs, "convolution rhs"));
  if (!ElementTypesMatch(lhs.element_type(), rhs.element_type(), options.allow_mixed_precision)) {
    return Invalid(StrCat("convolution operands have different element types: ", Str(lhs),
                          " and ", Str(rhs)));
  }
  size_t spatial = dnums.input_spatial_dimensions.size();
  if (dnums.kernel_spatial_dimensions.size() != spatial ||
      dnums.output_spatial_dimensions.size() != spatial) {
    return Invalid("convolution dim_labels have different numbers of spatial dimensions");
  }
  int64_t rank = static_cast<int64_t>(spatial) + 2;
  if (lhs.rank() != rank || rhs.rank() != rank) {
    return Invalid(StrCat("convolution with ", spatial, " spatial dimensions needs rank ",
                          rank, " operands, got ", Str(lhs), " and ", Str(rhs)));
  }
  std::vector<int64_t> in_dims = {dnums.input_batch_dimension, dnums.input_feature_dimension};
  in_dims.insert(in_dims.end(), dnums.input_spatial_dimensions.begin(),
                 dnums.input_spatial_dimensions.end());
  std::vector<int64_t> k_dims = {dnums.kernel_input_feature_dimension,
                                 dnums.kernel_output_feature_dimension};
  k_dims.insert(k_dims.end(), dnums.kernel_spatial_dimensions.begin(),
                dnums.kernel_spatial_dimensions.end());
  std::vector<int64_t> o_dims = {dnums.output_batch_dimension, dnums.output_feature_dimension};
  o_dims.insert(o_dims.end(), dnums.output_spatial_dimensions.begin(),
                dnums.output_spatial_dimensions.end());
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(in_dims, rank, "convolution input dimensions"));
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(k_dims, rank, "convolution kernel dimensions"));
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(o_dims, rank, "convolution output dimensions"));
  if (feature_group_count < 1 || batch_group_count < 1) {
    return Invalid("convolution feature_group_count and batch_group_count must be >= 1");
  }
  if (feature_group_count > 1 && batch_group_count > 1) {
    return Invalid("convolution cannot have both feature_group_count and batch_group_count > 1");
  }
  int64_t in_batch = lhs.dimensions(dnums.input_batch_dimension);
  int64_t in_features = lhs.dimensions(dnums.input_feature_dimension);
  int64_t k_in = rhs.dimensions(dnums.kernel_input_feature_dimension);
  int64_t k_out = rhs.dimensions(dnums.kernel_output_feature_dimension);
  if (in_features % feature_group_count != 0 || in_features / feature_group_count != k_in) {
    return Invalid(StrCat("convolution input features (", in_features,
                          ") / feature_group_count (", feature_group_count,
                          ") must equal the kernel input features (", k_in, ")"));
  }
  if (k_out % feature_group_count != 0) {
    return Invalid(StrCat("convolution kernel output features (", k_out,
                          ") must be a multiple of feature_group_count (",
                          feature_group_count, ")"));
  }
  if (in_batch % batch_group_count != 0 || k_out % batch_group_count != 0) {
    return Invalid(StrCat("convolution input batch (", in_batch, ") and kernel output features (",
                          k_out, ") must be multiples of batch_group_count (",
                          batch_group_count, ")"));
  }
  std::vector<int64_t> base;
  for (size_t i = 0; i < spatial; ++i) {
    base.push_back(lhs.dimensions(dnums.input_spatial_dimensions[i]));
    int64_t kernel_size = rhs.dimensions(dnums.kernel_spatial_dimensions[i]);
    if (i < window.dimensions.size() && window.dimensions[i].size != kernel_size) {
      return Invalid(StrCat("convolution window size ", window.dimensions[i].size,
                            " in spatial dimension ", i, " differs from the kernel size ",
                            kernel_size));
    }
  }
  HMO_ASSIGN_OR_RETURN(std::vector<int64_t> out_spatial, InferWindowOutputDimensions(base, window));
  std::vector<int64_t> dims(rank, 0);
  dims[dnums.output_batch_dimension] = in_batch / batch_group_count;
  dims[dnums.output_feature_dimension] = k_out;
  for (size_t i = 0; i < spatial; ++i) dims[dnums.output_spatial_dimensions[i]] = out_spatial[i];
  return Shape(result_type, std::move(dims));
}

// ---------------------------------------------------------- reductions

absl::Status ShapeInference::VerifyReducer(const ProgramShape& reducer,
                                           absl::Span<const PrimitiveType> accumulator_types,
                                           absl::Span<const PrimitiveType> input_types,
                                           const Options& options) {
  size_t n = accumulator_types.size();
  bool amp = options.allow_mixed_precision;
  if (reducer.parameters.size() != 2 * n) {
    return Invalid(StrCat("reduction computation ", reducer.ToString(), " must take ", 2 * n,
                          " parameters for ", n, " accumulator(s)"));
  }
  for (size_t i = 0; i < 2 * n; ++i) {
    const Shape& p = reducer.parameters[i];
    PrimitiveType want = accumulator_types[i % n];
    if (!p.IsArray() || p.rank() != 0 || !ElementTypesMatch(p.element_type(), want, amp)) {
      return Invalid(StrCat("reduction computation ", reducer.ToString(), " parameter ", i,
                            " must be a ", PrimitiveTypeName(want), " scalar"));
    }
  }
  auto scalar_of = [&](const Shape& s, PrimitiveType t) {
    return s.IsArray() && s.rank() == 0 && ElementTypesMatch(s.element_type(), t, amp);
  };
  bool result_ok = true;
  if (n == 1) {
    result_ok = scalar_of(reducer.result, accumulator_types[0]);
  } else {
    result_ok = reducer.result.IsTuple() &&
                reducer.result.tuple_shapes_size() == static_cast<int64_t>(n);
    for (size_t i = 0; result_ok && i < n; ++i) {
      result_ok = scalar_of(reducer.result.tuple_shapes(static_cast<int>(i)), accumulator_types[i]);
    }
  }
  if (!result_ok) {
    std::vector<std::string> names;
    for (PrimitiveType t : accumulator_types) names.push_back(std::string(PrimitiveTypeName(t)));
    return Invalid(StrCat("reduction computation ", reducer.ToString(),
                          " must return scalar(s) of type ", absl::StrJoin(names, ", ")));
  }
  for (size_t i = 0; i < input_types.size() && i < n; ++i) {
    if (!ElementTypesMatch(input_types[i], accumulator_types[i], amp)) {
      return Invalid(StrCat("reduced input ", i, " has element type ",
                            PrimitiveTypeName(input_types[i]), " but its accumulator is ",
                            PrimitiveTypeName(accumulator_types[i])));
    }
  }
  return absl::OkStatus();
}

namespace {

// Init values of reduce/reduce-window: N scalars; returns their types.
absl::StatusOr<std::vector<PrimitiveType>> InitTypes(absl::Span<const Shape* const> inputs,
                                                     absl::Span<const Shape* const> init_values,
                                                     std::string_view op) {
  if (inputs.size() != init_values.size()) {
    return Invalid(StrCat(op, " has ", inputs.size(), " inputs but ", init_values.size(),
                          " init values"));
  }
  std::vector<PrimitiveType> types;
  for (size_t i = 0; i < init_values.size(); ++i) {
    HMO_RETURN_IF_ERROR(ExpectScalar(*init_values[i], StrCat(op, " init value ", i)));
    types.push_back(init_values[i]->element_type());
  }
  return types;
}

std::vector<PrimitiveType> ElementTypes(absl::Span<const Shape* const> shapes) {
  std::vector<PrimitiveType> types;
  for (const Shape* s : shapes) types.push_back(s->element_type());
  return types;
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferReduceShape(absl::Span<const Shape* const> inputs,
                                                       absl::Span<const Shape* const> init_values,
                                                       absl::Span<const int64_t> dimensions,
                                                       const ProgramShape& reducer,
                                                       const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectSameDimensionArrays(inputs, "reduce"));
  HMO_ASSIGN_OR_RETURN(std::vector<PrimitiveType> acc, InitTypes(inputs, init_values, "reduce"));
  const Shape& first = *inputs[0];
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(dimensions, first.rank(), "reduce dimensions"));
  HMO_RETURN_IF_ERROR(VerifyReducer(reducer, acc, ElementTypes(inputs), options));
  Shape kept(PrimitiveType::F32, {});
  for (int64_t d = 0; d < first.rank(); ++d) {
    if (!Contains(dimensions, d)) {
      kept.add_dimensions(first.dimensions(d), first.is_dynamic_dimension(static_cast<int>(d)));
    }
  }
  return ScalarsOrTuple(acc, kept);
}

absl::StatusOr<Shape> ShapeInference::InferReduceWindowShape(
    absl::Span<const Shape* const> inputs, absl::Span<const Shape* const> init_values,
    const Window& window, const ProgramShape& reducer, const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectSameDimensionArrays(inputs, "reduce-window"));
  HMO_ASSIGN_OR_RETURN(std::vector<PrimitiveType> acc,
                       InitTypes(inputs, init_values, "reduce-window"));
  HMO_RETURN_IF_ERROR(VerifyReducer(reducer, acc, ElementTypes(inputs), options));
  HMO_ASSIGN_OR_RETURN(std::vector<int64_t> out,
                       InferWindowOutputDimensions(inputs[0]->dimensions(), window));
  return ScalarsOrTuple(acc, Shape(PrimitiveType::F32, std::move(out)));
}

absl::StatusOr<Shape> ShapeInference::InferSelectAndScatterShape(
    const Shape& operand, const ProgramShape& select, const Window& window, const Shape& source,
    const Shape& init_value, const ProgramShape& scatter, const Options& options) {
  bool amp = options.allow_mixed_precision;
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "select-and-scatter operand"));
  HMO_RETURN_IF_ERROR(ExpectArray(source, "select-and-scatter source"));
  HMO_RETURN_IF_ERROR(ExpectScalar(init_value, "select-and-scatter init value"));
  PrimitiveType t = operand.element_type();
  if (!ElementTypesMatch(init_value.element_type(), source.element_type(), amp)) {
    return Invalid(StrCat("select-and-scatter init value ", Str(init_value),
                          " must have the element type of source ", Str(source)));
  }
  bool select_ok = select.parameters.size() == 2 && select.result.IsArray() &&
                   select.result.rank() == 0 && select.result.element_type() == PrimitiveType::PRED;
  for (size_t i = 0; select_ok && i < 2; ++i) {
    const Shape& p = select.parameters[i];
    select_ok = p.IsArray() && p.rank() == 0 && ElementTypesMatch(p.element_type(), t, amp);
  }
  if (!select_ok) {
    return Invalid(StrCat("select-and-scatter select computation ", select.ToString(),
                          " must be (", PrimitiveTypeName(t), "[], ", PrimitiveTypeName(t),
                          "[]) -> pred[]"));
  }
  HMO_RETURN_IF_ERROR(VerifyReducer(scatter, {source.element_type()}, {}, options));
  HMO_ASSIGN_OR_RETURN(std::vector<int64_t> windowed,
                       InferWindowOutputDimensions(operand.dimensions(), window));
  if (source.dimensions() != windowed) {
    return Invalid(StrCat("select-and-scatter source ", Str(source),
                          " must have the windowed operand dimensions ", Dims(windowed)));
  }
  return WithElementType(operand, t);
}

absl::StatusOr<Shape> ShapeInference::InferAllReduceShape(absl::Span<const Shape* const> operands) {
  if (operands.empty()) return Invalid("all-reduce needs at least one operand");
  if (operands.size() == 1) return *operands[0];
  return InferTupleShape(operands);
}

// ----------------------------------------------------- gather/scatter

namespace {

// Dimensions of the start indices with the index vector dimension made
// explicit (a trailing 1 when index_vector_dim == rank).
std::vector<int64_t> ExpandedIndexDims(const Shape& indices, int64_t index_vector_dim) {
  std::vector<int64_t> dims = indices.dimensions();
  if (index_vector_dim == indices.rank()) dims.push_back(1);
  return dims;
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferGatherShape(const Shape& operand,
                                                       const Shape& start_indices,
                                                       const GatherDimensionNumbers& dnums,
                                                       absl::Span<const int64_t> slice_sizes) {
  HMO_RETURN_IF_ERROR(ExpectArray(operand, "gather operand"));
  HMO_RETURN_IF_ERROR(ExpectArray(start_indices, "gather start indices"));
  if (!IsInteger(start_indices.element_type())) {
    return Invalid(StrCat("gather start indices must be integers, got ", Str(start_indices)));
  }
  int64_t ivd = dnums.index_vector_dim;
  if (ivd < 0 || ivd > start_indices.rank()) {
    return Invalid(StrCat("gather index_vector_dim ", ivd, " is out of range for ",
                          Str(start_indices)));
  }
  std::vector<int64_t> idx = ExpandedIndexDims(start_indices, ivd);
  int64_t rank = operand.rank();
  if (idx[ivd] != static_cast<int64_t>(dnums.start_index_map.size())) {
    return Invalid(StrCat("gather index vector size ", idx[ivd],
                          " must equal the size of start_index_map ",
                          Dims(dnums.start_index_map)));
  }
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(dnums.start_index_map, rank, "gather start_index_map"));
  HMO_RETURN_IF_ERROR(ExpectSorted(dnums.offset_dims, "gather offset_dims"));
  HMO_RETURN_IF_ERROR(ExpectSorted(dnums.collapsed_slice_dims, "gather collapsed_slice_dims"));
  HMO_RETURN_IF_ERROR(
      ExpectDistinctInRange(dnums.collapsed_slice_dims, rank, "gather collapsed_slice_dims"));
  HMO_RETURN_IF_ERROR(
      ExpectDistinctInRange(dnums.operand_batching_dims, rank, "gather operand_batching_dims"));
  for (int64_t d : dnums.operand_batching_dims) {
    if (Contains(dnums.collapsed_slice_dims, d)) {
      return Invalid(StrCat("gather dimension ", d,
                            " is both collapsed and an operand batching dimension"));
    }
  }
  if (dnums.operand_batching_dims.size() != dnums.start_indices_batching_dims.size()) {
    return Invalid("gather operand_batching_dims and start_indices_batching_dims differ in size");
  }
  for (int64_t d : dnums.start_indices_batching_dims) {
    if (d < 0 || d >= static_cast<int64_t>(idx.size()) || d == ivd) {
      return Invalid(StrCat("gather start_indices_batching_dims entry ", d, " is invalid"));
    }
  }
  if (static_cast<int64_t>(slice_sizes.size()) != rank) {
    return Invalid(StrCat("gather slice_sizes ", Dims(slice_sizes),
                          " must have one entry per dimension of ", Str(operand)));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.dimensions(d)) {
      return Invalid(StrCat("gather slice size ", slice_sizes[d], " in dimension ", d,
                            " is out of bounds for ", Str(operand)));
    }
    bool collapsed = Contains(dnums.collapsed_slice_dims, d) ||
                     Contains(dnums.operand_batching_dims, d);
    if (collapsed && slice_sizes[d] > 1) {
      return Invalid(StrCat("gather collapses dimension ", d, " whose slice size ",
                            slice_sizes[d], " is not 0 or 1"));
    }
  }
  int64_t offset_count = rank - static_cast<int64_t>(dnums.collapsed_slice_dims.size()) -
                         static_cast<int64_t>(dnums.operand_batching_dims.size());
  if (static_cast<int64_t>(dnums.offset_dims.size()) != offset_count) {
    return Invalid(StrCat("gather offset_dims ", Dims(dnums.offset_dims), " must have ",
                          offset_count, " entries (operand rank minus collapsed and ",
                          "batching dimensions)"));
  }
  int64_t out_rank = offset_count + static_cast<int64_t>(idx.size()) - 1;
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(dnums.offset_dims, out_rank, "gather offset_dims"));
  std::vector<int64_t> offset_sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dnums.collapsed_slice_dims, d) && !Contains(dnums.operand_batching_dims, d)) {
      offset_sizes.push_back(slice_sizes[d]);
    }
  }
  std::vector<int64_t> batch_sizes;
  for (int64_t d = 0; d < static_cast<int64_t>(idx.size()); ++d) {
    if (d != ivd) batch_sizes.push_back(idx[d]);
  }
  std::vector<int64_t> out;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (Contains(dnums.offset_dims, d)) {
      out.push_back(offset_sizes[next_offset++]);
    } else {
      out.push_back(batch_sizes[next_batch++]);
    }
  }
  return Shape(operand.element_type(), std::move(out));
}

absl::StatusOr<Shape> ShapeInference::InferScatterShape(absl::Span<const Shape* const> operands,
                                                        const Shape& scatter_indices,
                                                        absl::Span<const Shape* const> updates,
                                                        const ScatterDimensionNumbers& dnums,
                                                        const ProgramShape& reducer,
                                                        const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectSameDimensionArrays(operands, "scatter"));
  if (updates.size() != operands.size()) {
    return Invalid(StrCat("scatter has ", operands.size(), " operands but ", updates.size(),
                          " updates"));
  }
  HMO_RETURN_IF_ERROR(ExpectSameDimensionArrays(updates, "scatter updates"));
  HMO_RETURN_IF_ERROR(ExpectArray(scatter_indices, "scatter indices"));
  if (!IsInteger(scatter_indices.element_type())) {
    return Invalid(StrCat("scatter indices must be integers, got ", Str(scatter_indices)));
  }
  const Shape& operand = *operands[0];
  const Shape& update = *updates[0];
  int64_t rank = operand.rank();
  int64_t ivd = dnums.index_vector_dim;
  if (ivd < 0 || ivd > scatter_indices.rank()) {
    return Invalid(StrCat("scatter index_vector_dim ", ivd, " is out of range for ",
                          Str(scatter_indices)));
  }
  std::vector<int64_t> idx = ExpandedIndexDims(scatter_indices, ivd);
  if (idx[ivd] != static_cast<int64_t>(dnums.scatter_dims_to_operand_dims.size())) {
    return Invalid(StrCat("scatter index vector size ", idx[ivd],
                          " must equal the size of scatter_dims_to_operand_dims ",
                          Dims(dnums.scatter_dims_to_operand_dims)));
  }
  HMO_RETURN_IF_ERROR(ExpectDistinctInRange(dnums.scatter_dims_to_operand_dims, rank,
                                            "scatter scatter_dims_to_operand_dims"));
  HMO_RETURN_IF_ERROR(ExpectSorted(dnums.update_window_dims, "scatter update_window_dims"));
  HMO_RETURN_IF_ERROR(ExpectSorted(dnums.inserted_window_dims, "scatter inserted_window_dims"));
  HMO_RETURN_IF_ERROR(
      ExpectDistinctInRange(dnums.inserted_window_dims, rank, "scatter inserted_window_dims"));
  HMO_RETURN_IF_ERROR(
      ExpectDistinctInRange(dnums.input_batching_dims, rank, "scatter input_batching_dims"));
  int64_t window_count = static_cast<int64_t>(dnums.update_window_dims.size());
  int64_t expected_update_rank = window_count + static_cast<int64_t>(idx.size()) - 1;
  if (update.rank() != expected_update_rank) {
    return Invalid(StrCat("scatter updates ", Str(update), " must have rank ",
                          expected_update_rank, " (update_window_dims ",
                          Dims(dnums.update_window_dims), " plus the scatter dimensions of ",
                          Str(scatter_indices), ")"));
  }
  HMO_RETURN_IF_ERROR(
      ExpectDistinctInRange(dnums.update_window_dims, update.rank(), "scatter update_window_dims"));
  if (window_count + static_cast<int64_t>(dnums.inserted_window_dims.size()) +
          static_cast<int64_t>(dnums.input_batching_dims.size()) !=
      rank) {
    return Invalid(StrCat("scatter update_window_dims, inserted_window_dims and ",
                          "input_batching_dims must together cover the ", rank,
                          " dimensions of ", Str(operand)));
  }
  // Window bounds: update window dimension k is at most operand dimension k
  // of those neither inserted nor batching.
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dnums.inserted_window_dims, d) && !Contains(dnums.input_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  for (int64_t k = 0; k < window_count; ++k) {
    int64_t u = dnums.update_window_dims[k];
    int64_t o = window_operand_dims[k];
    if (update.dimensions(u) > operand.dimensions(o)) {
      return Invalid(StrCat("scatter update window dimension ", u, " (size ",
                            update.dimensions(u), ") exceeds operand dimension ", o, " (size ",
                            operand.dimensions(o), ")"));
    }
  }
  std::vector<int64_t> scatter_sizes;
  for (int64_t d = 0; d < static_cast<int64_t>(idx.size()); ++d) {
    if (d != ivd) scatter_sizes.push_back(idx[d]);
  }
  size_t next = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (Contains(dnums.update_window_dims, d)) continue;
    if (update.dimensions(d) != scatter_sizes[next]) {
      return Invalid(StrCat("scatter updates ", Str(update), " dimension ", d,
                            " must match the scatter indices ", Str(scatter_indices)));
    }
    ++next;
  }
  std::vector<PrimitiveType> acc = ElementTypes(operands);
  HMO_RETURN_IF_ERROR(VerifyReducer(reducer, acc, ElementTypes(updates), options));
  if (operands.size() == 1) return WithElementType(operand, operand.element_type());
  std::vector<Shape> elements;
  for (const Shape* s : operands) elements.push_back(WithElementType(*s, s->element_type()));
  return Shape::MakeTuple(std::move(elements));
}

// --------------------------------------------------------- computations

absl::StatusOr<Shape> ShapeInference::InferMapShape(absl::Span<const Shape* const> operands,
                                                    const ProgramShape& mapper,
                                                    const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectSameDimensionArrays(operands, "map"));
  if (mapper.parameters.size() != operands.size()) {
    return Invalid(StrCat("map computation ", mapper.ToString(), " must take ",
                          operands.size(), " parameters"));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& p = mapper.parameters[i];
    if (!p.IsArray() || p.rank() != 0 ||
        !ElementTypesMatch(p.element_type(), operands[i]->element_type(),
                           options.allow_mixed_precision)) {
      return Invalid(StrCat("map computation parameter ", i, " must be a ",
                            PrimitiveTypeName(operands[i]->element_type()), " scalar"));
    }
  }
  if (!mapper.result.IsArray() || mapper.result.rank() != 0) {
    return Invalid(StrCat("map computation ", mapper.ToString(), " must return a scalar"));
  }
  return WithElementType(*operands[0], mapper.result.element_type());
}

absl::StatusOr<Shape> ShapeInference::InferSortShape(absl::Span<const Shape* const> operands,
                                                     int64_t dimension,
                                                     const ProgramShape& comparator,
                                                     const Options& options) {
  HMO_RETURN_IF_ERROR(ExpectSameDimensionArrays(operands, "sort"));
  if (dimension < 0 || dimension >= operands[0]->rank()) {
    return Invalid(StrCat("sort dimension ", dimension, " is out of range for ",
                          Str(*operands[0])));
  }
  if (comparator.parameters.size() != 2 * operands.size()) {
    return Invalid(StrCat("sort comparator ", comparator.ToString(), " must take ",
                          2 * operands.size(), " parameters"));
  }
  for (size_t i = 0; i < comparator.parameters.size(); ++i) {
    const Shape& p = comparator.parameters[i];
    PrimitiveType want = operands[i / 2]->element_type();
    if (!p.IsArray() || p.rank() != 0 ||
        !ElementTypesMatch(p.element_type(), want, options.allow_mixed_precision)) {
      return Invalid(StrCat("sort comparator parameter ", i, " must be a ",
                            PrimitiveTypeName(want), " scalar"));
    }
  }
  const Shape& r = comparator.result;
  if (!r.IsArray() || r.rank() != 0 || r.element_type() != PrimitiveType::PRED) {
    return Invalid(StrCat("sort comparator ", comparator.ToString(), " must return pred[]"));
  }
  if (operands.size() == 1) return WithElementType(*operands[0], operands[0]->element_type());
  std::vector<Shape> elements;
  for (const Shape* s : operands) elements.push_back(WithElementType(*s, s->element_type()));
  return Shape::MakeTuple(std::move(elements));
}

}  // namespace hmo
