#ifndef HMO_IR_SHAPE_INFERENCE_H_
#define HMO_IR_SHAPE_INFERENCE_H_

// Shape inference for HLO opcodes: given operand shapes and attributes,
// either the result shape the instruction must have or an error saying which
// rule the operands break. The verifier compares each instruction's shape with
// the inferred one; passes that build instructions can call the same
// functions to compute result shapes.
//
// Contract shared by every function here:
// - Inputs are shapes, never instructions, so the functions are usable before
//   an instruction exists.
// - Layouts are ignored on input and the result carries no layout.
// - Dynamic dimensions: result dimensions copy the operand's size (the bound)
//   and dynamic flag where a dimension passes through unchanged.
// - Errors are absl::InvalidArgumentError whose message is one sentence
//   without trailing period, naming the offending shapes/attributes, e.g.
//   "binary op operands have incompatible shapes f32[2] and f32[3]". Callers
//   add the instruction context.
// - `ShapeInferenceOptions::allow_mixed_precision` lets operands that must
//   otherwise share an element type differ in floating-point precision (bf16
//   with f32); the result then takes the element type noted per function.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/dimension_numbers.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/primitive_type.h"
#include "hmo/ir/shape.h"
#include "hmo/ir/window.h"

namespace hmo {

class HloComputation;

// Parameter shapes and result shape of a computation (a "program shape").
struct ProgramShape {
  std::vector<Shape> parameters;
  Shape result;

  // The shapes of `computation`'s parameter instructions (in parameter-number
  // order; a missing number yields an invalid Shape) and of its root (an
  // invalid Shape when there is no root).
  static ProgramShape Of(const HloComputation& computation);
  // "(f32[], f32[]) -> f32[]" (no layouts).
  std::string ToString() const;
};

struct ShapeInferenceOptions {
  bool allow_mixed_precision = false;
};

class ShapeInference {
 public:
  using Options = ShapeInferenceOptions;

  // ------------------------------------------------------------ elementwise
  // Unary elementwise opcodes (abs ... tanh, not, popcnt, is-finite, real,
  // imag, reduce-precision; not copy/convert/bitcast-convert). Checks the
  // operand is an array of an element type the opcode accepts. Result: same
  // dimensions; element type unchanged except is-finite -> pred and
  // abs/real/imag of complex -> the component type.
  static absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& operand);

  // Binary elementwise opcodes incl. compare (-> pred) and complex (-> c64 /
  // c128). No implicit broadcasting: dimensions must be equal. Element types
  // must match (logical ops: pred/integral; shifts: integral; atan2:
  // floating/complex; complex: floating). Mixed precision: the result takes
  // the wider floating-point type.
  static absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                                  const Shape& rhs, const Options& options = {});

  // select(pred, on_true, on_false): pred has element type pred and the
  // dimensions of on_true (or is a scalar); on_true/on_false equal arrays.
  // clamp(min, operand, max): min/max are scalars or have the operand's
  // dimensions; element types match. Result: on_true / operand.
  static absl::StatusOr<Shape> InferTernaryOpShape(HloOpcode opcode, const Shape& a, const Shape& b,
                                                   const Shape& c, const Options& options = {});

  // convert: any array element type to any other; dimensions unchanged.
  static absl::StatusOr<Shape> InferConvertShape(const Shape& operand, PrimitiveType new_type);
  // bitcast-convert: equal bit widths keep the dimensions; converting to a
  // narrower type appends a minor dimension of size (old bits / new bits);
  // converting to a wider type requires that minor dimension and drops it.
  static absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand,
                                                        PrimitiveType new_type);

  // ------------------------------------------------------- data movement
  // broadcast: `broadcast_dimensions[i]` is the output dimension that operand
  // dimension i maps to; distinct, in range, equal sizes. Result: operand
  // element type with `output_dimensions`.
  static absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand,
                                                   absl::Span<const int64_t> output_dimensions,
                                                   absl::Span<const int64_t> broadcast_dimensions);
  // reshape: equal element counts (not checked when either side is dynamic).
  static absl::StatusOr<Shape> InferReshapeShape(const Shape& operand,
                                                 absl::Span<const int64_t> output_dimensions);
  // transpose: `permutation` is a permutation of 0..rank-1; result dimension
  // i is operand dimension permutation[i].
  static absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                                   absl::Span<const int64_t> permutation);
  // reverse: distinct dimensions in range; result = operand.
  static absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                                 absl::Span<const int64_t> dimensions);
  // slice: one [start:limit:stride] per dimension with 0 <= start <= limit
  // <= size and stride >= 1; result size ceil((limit - start) / stride).
  static absl::StatusOr<Shape> InferSliceShape(const Shape& operand,
                                               absl::Span<const int64_t> starts,
                                               absl::Span<const int64_t> limits,
                                               absl::Span<const int64_t> strides);
  // dynamic-slice: one scalar integral start index per dimension (or the
  // legacy single rank-1 index vector), all of one element type;
  // 0 <= slice_sizes[i] <= size. Result: operand element type, slice_sizes.
  static absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                                      absl::Span<const Shape* const> start_indices,
                                                      absl::Span<const int64_t> slice_sizes);
  // dynamic-update-slice: update has the operand's rank, no larger
  // dimensions and a matching element type; indices as for dynamic-slice.
  // Result: operand.
  static absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
      const Shape& operand, const Shape& update, absl::Span<const Shape* const> start_indices,
      const Options& options = {});
  // concatenate: >= 1 arrays of one rank and element type, equal except in
  // `dimension`, whose sizes add up. Mixed precision: first operand's type.
  static absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                                     int64_t dimension,
                                                     const Options& options = {});
  // pad: scalar padding value of the operand's element type; one config
  // entry per dimension, interior >= 0; result size
  // low + high + size + max(size - 1, 0) * interior, which must be >= 0.
  static absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                             const PaddingConfig& padding,
                                             const Options& options = {});
  // iota: `shape` is an array of rank >= 1 and 0 <= iota_dimension < rank.
  // Returns `shape` (without layout).
  static absl::StatusOr<Shape> InferIotaShape(const Shape& shape, int64_t iota_dimension);

  // ------------------------------------------------------------- tuples
  // get-tuple-element: tuple operand, 0 <= index < element count.
  static absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index);
  // tuple: the tuple of the element shapes (layouts kept, as tuples forward
  // their operands' buffers).
  static Shape InferTupleShape(absl::Span<const Shape* const> elements);

  // ------------------------------------------------------- contractions
  // dot: batch and contracting dimension lists of equal length per side,
  // in range and distinct per side; paired sizes equal; lhs/rhs element types
  // match. Result: batch dims, lhs free dims, rhs free dims, with element type
  // `result_type` (XLA's preferred element type: any array type).
  static absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                             const DotDimensionNumbers& dnums,
                                             PrimitiveType result_type,
                                             const Options& options = {});
  // convolution with window, dim_labels, feature_group_count and
  // batch_group_count. Result element type `result_type`.
  static absl::StatusOr<Shape> InferConvolutionShape(
      const Shape& lhs, const Shape& rhs, const Window& window,
      const ConvolutionDimensionNumbers& dnums, int64_t feature_group_count,
      int64_t batch_group_count, PrimitiveType result_type, const Options& options = {});
  // Output size of each dimension of a window slid over `base_dimensions`
  // (padding, dilations and strides applied). Errors: rank mismatch, size <
  // 1, stride or dilation < 1.
  static absl::StatusOr<std::vector<int64_t>> InferWindowOutputDimensions(
      absl::Span<const int64_t> base_dimensions, const Window& window);

  // ---------------------------------------------------------- reductions
  // Checks a reduction computation over N accumulators: 2N scalar
  // parameters, parameters i and N+i of accumulator type i; result a scalar
  // of type 0 (N == 1) or a tuple of N such scalars. Element types of the
  // values being reduced (`input_types`, may be empty) must match too.
  static absl::Status VerifyReducer(const ProgramShape& reducer,
                                    absl::Span<const PrimitiveType> accumulator_types,
                                    absl::Span<const PrimitiveType> input_types,
                                    const Options& options = {});
  // reduce(inputs..., init_values...): N inputs of equal dimensions, N scalar
  // init values, distinct reduced dimensions in range, reducer as above.
  // Result: input dimensions minus the reduced ones, element type of init
  // value i; an array for N == 1, else a tuple.
  static absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> inputs,
                                                absl::Span<const Shape* const> init_values,
                                                absl::Span<const int64_t> dimensions,
                                                const ProgramShape& reducer,
                                                const Options& options = {});
  // reduce-window: like reduce, with a window of the inputs' rank.
  static absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> inputs,
                                                      absl::Span<const Shape* const> init_values,
                                                      const Window& window,
                                                      const ProgramShape& reducer,
                                                      const Options& options = {});
  // select-and-scatter(operand, source, init): window of operand rank,
  // source dims = windowed operand dims, select (T, T) -> pred[], scatter a
  // reducer over T. Result: operand.
  static absl::StatusOr<Shape> InferSelectAndScatterShape(
      const Shape& operand, const ProgramShape& select, const Window& window, const Shape& source,
      const Shape& init_value, const ProgramShape& scatter, const Options& options = {});
  // all-reduce / reduce over replicas: the operands' shapes (a single
  // operand: its shape; several: their tuple).
  static absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape* const> operands);

  // ----------------------------------------------------- gather/scatter
  // gather: full XLA semantics (offset_dims, collapsed_slice_dims,
  // start_index_map, operand_batching_dims, start_indices_batching_dims,
  // index_vector_dim, slice_sizes).
  static absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& start_indices,
                                                const GatherDimensionNumbers& dnums,
                                                absl::Span<const int64_t> slice_sizes);
  // scatter(operands..., indices, updates...): ranks and window bounds of
  // updates against the dimension numbers, reducer over the operands' types.
  // Result: operand (N == 1) or the tuple of the operands.
  static absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape* const> operands,
                                                 const Shape& scatter_indices,
                                                 absl::Span<const Shape* const> updates,
                                                 const ScatterDimensionNumbers& dnums,
                                                 const ProgramShape& reducer,
                                                 const Options& options = {});

  // --------------------------------------------------------- computations
  // map: N arrays of equal dimensions; mapper has N scalar parameters of the
  // operands' types and a scalar result. Result: operand dims, mapper's type.
  static absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                             const ProgramShape& mapper,
                                             const Options& options = {});
  // sort: N arrays of equal dimensions, dimension in range, comparator with
  // 2N scalar parameters (2i and 2i+1 of operand i's type) returning pred[].
  // Result: operand (N == 1) or tuple.
  static absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands,
                                              int64_t dimension, const ProgramShape& comparator,
                                              const Options& options = {});
};

}  // namespace hmo

#endif  // HMO_IR_SHAPE_INFERENCE_H_
