// Data movement: broadcast, reshape, bitcast, transpose, reverse, slice,
// dynamic-slice, dynamic-update-slice, concatenate and pad. Each is written
// as "for every output (or input) index, which element goes where", moving
// raw element bytes.

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "element_copy.h"
#include "element_types.h"
#include "hmo/ir/shape.h"
#include "index_space.h"
#include "opcode_handlers.h"

namespace hmo::eval_internal {
namespace {

int64_t WidthOf(const Literal& literal) { return ByteWidth(literal.element_type()); }

// Strides of the physical (memory) order of `shape`: the stride of dimension
// minor_to_major[0] is 1. Without a layout, the row-major default.
std::vector<int64_t> PhysicalStrides(const Shape& shape) {
  if (!shape.has_layout() || shape.layout().minor_to_major().size() != shape.dimensions().size()) {
    return RowMajorStrides(shape.dimensions());
  }
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  for (int64_t dim : shape.layout().minor_to_major()) {
    strides[dim] = stride;
    stride *= shape.dimensions(dim);
  }
  return strides;
}

// Reads the start indices of dynamic-slice / dynamic-update-slice, each
// clamped so that a window of `sizes` fits in `dims`, as XLA does. They are
// one scalar operand per dimension from operand `first`, or (the older form)
// a single rank-1 operand holding all of them.
absl::StatusOr<std::vector<int64_t>> ClampedStartIndices(const HloInstruction& instr,
                                                         Operands operands, int64_t first,
                                                         const std::vector<int64_t>& dims,
                                                         const std::vector<int64_t>& sizes) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t given = static_cast<int64_t>(operands.size()) - first;
  const bool one_vector = given == 1 && rank != 1 && operands[first]->shape().rank() == 1 &&
                          operands[first]->element_count() == rank;
  if (given != rank && !one_vector) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: ", instr.name(), " has ", given,
                                                   " start indices for rank ", rank));
  }
  std::vector<int64_t> starts(rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    const Literal& index = one_vector ? *operands[first] : *operands[first + d];
    const int64_t i = one_vector ? d : 0;
    int64_t start = primitive_util::IsUnsignedIntegralType(index.element_type())
                        ? static_cast<int64_t>(std::min<uint64_t>(index.GetAsUint64(i), INT64_MAX))
                        : index.GetAsInt64(i);
    starts[d] = std::clamp<int64_t>(start, 0, std::max<int64_t>(dims[d] - sizes[d], 0));
  }
  return starts;
}

}  // namespace

absl::StatusOr<Literal> HandleBroadcast(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dimensions());
  // out_strides_into_in[d]: how far one step along output dimension d moves
  // in the operand (0 for dimensions the broadcast adds).
  std::vector<int64_t> out_to_in(out.shape().rank(), 0);
  for (size_t j = 0; j < instr.dimensions().size(); ++j) {
    out_to_in[instr.dimensions()[j]] = in_strides[j];
  }
  const int64_t width = WidthOf(out);
  const uint8_t* src = RawBytes(in);
  uint8_t* dst = MutableRawBytes(&out);
  ForEachRow(out.shape().dimensions(), out_to_in,
             [&](int64_t offset, int64_t position, int64_t length, int64_t step) {
               for (int64_t j = 0; j < length; ++j) {
                 CopyElement(src, offset + j * step, dst, position + j, width);
               }
             });
  return out;
}

absl::StatusOr<Literal> HandleReshape(const HloInstruction& instr, Operands operands) {
  // Row-major element order is what reshape preserves, and it is exactly the
  // order a Literal stores.
  Literal out(instr.shape());
  *out.mutable_raw_data() = operands[0]->raw_data();
  return out;
}

absl::StatusOr<Literal> HandleBitcast(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  if (in.raw_data().size() != out.raw_data().size()) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: bitcast ", instr.name(),
                                                   " changes the byte size"));
  }
  // The layouts are the instruction's: a literal a handler made may carry
  // the default layout where the HLO gives its value another one.
  const std::vector<int64_t> in_physical = PhysicalStrides(instr.operand(0)->shape());
  const std::vector<int64_t> out_physical = PhysicalStrides(instr.shape());
  if (in_physical == RowMajorStrides(in.shape().dimensions()) &&
      out_physical == RowMajorStrides(out.shape().dimensions())) {
    *out.mutable_raw_data() = in.raw_data();
    return out;
  }
  // A bitcast reinterprets memory: lay the operand out in its physical order,
  // then read the result's elements from their physical positions.
  const int64_t width = WidthOf(in);
  std::vector<uint8_t> memory(in.raw_data().size());
  int64_t i = 0;
  ForEachIndex(in.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    CopyElement(RawBytes(in), i++, memory.data(), DotIndex(index, in_physical), width);
  });
  uint8_t* dst = MutableRawBytes(&out);
  i = 0;
  ForEachIndex(out.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    CopyElement(memory.data(), DotIndex(index, out_physical), dst, i++, width);
  });
  return out;
}

absl::StatusOr<Literal> HandleTranspose(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dimensions());
  // Output dimension d is operand dimension dimensions[d].
  std::vector<int64_t> out_to_in(out.shape().rank());
  for (int64_t d = 0; d < out.shape().rank(); ++d) out_to_in[d] = in_strides[instr.dimensions(d)];
  const int64_t width = WidthOf(out);
  const uint8_t* src = RawBytes(in);
  uint8_t* dst = MutableRawBytes(&out);
  ForEachRow(out.shape().dimensions(), out_to_in,
             [&](int64_t offset, int64_t position, int64_t length, int64_t step) {
               for (int64_t j = 0; j < length; ++j) {
                 CopyElement(src, offset + j * step, dst, position + j, width);
               }
             });
  return out;
}

absl::StatusOr<Literal> HandleReverse(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  const std::vector<int64_t>& dims = in.shape().dimensions();
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<bool> reversed(dims.size(), false);
  for (int64_t d : instr.dimensions()) reversed[d] = true;
  const int64_t width = WidthOf(out);
  int64_t i = 0;
  ForEachIndex(dims, [&](absl::Span<const int64_t> index) {
    int64_t src = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      src += (reversed[d] ? dims[d] - 1 - index[d] : index[d]) * strides[d];
    }
    CopyElement(RawBytes(in), src, MutableRawBytes(&out), i++, width);
  });
  return out;
}

namespace {

// Fills `out` (row-major) with the elements of `in` at linear positions
// base + sum(index[d] * step[d]) for every index of `out`: a slice (steps
// are strides times the stride of each dimension) or a dynamic slice.
void CopyStridedWindow(const Literal& in, int64_t base, const std::vector<int64_t>& step,
                       Literal* out) {
  const int64_t width = WidthOf(*out);
  const uint8_t* src = RawBytes(in);
  uint8_t* dst = MutableRawBytes(out);
  ForEachRow(out->shape().dimensions(), step,
             [&](int64_t offset, int64_t position, int64_t length, int64_t row_step) {
               for (int64_t j = 0; j < length; ++j) {
                 CopyElement(src, base + offset + j * row_step, dst, position + j, width);
               }
             });
}

}  // namespace

absl::StatusOr<Literal> HandleSlice(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dimensions());
  const int64_t rank = in.shape().rank();
  int64_t base = 0;
  std::vector<int64_t> step(rank);
  for (int64_t d = 0; d < rank; ++d) {
    base += instr.slice_starts(d) * in_strides[d];
    step[d] = instr.slice_strides(d) * in_strides[d];
  }
  CopyStridedWindow(in, base, step, &out);
  return out;
}

absl::StatusOr<Literal> HandleDynamicSlice(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  const std::vector<int64_t>& dims = in.shape().dimensions();
  absl::StatusOr<std::vector<int64_t>> starts =
      ClampedStartIndices(instr, operands, 1, dims, out.shape().dimensions());
  if (!starts.ok()) return starts.status();
  const std::vector<int64_t> in_strides = RowMajorStrides(dims);
  CopyStridedWindow(in, DotIndex(*starts, in_strides), in_strides, &out);
  return out;
}

absl::StatusOr<Literal> HandleDynamicUpdateSlice(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  const Literal& update = *operands[1];
  Literal out(instr.shape());
  *out.mutable_raw_data() = in.raw_data();
  const std::vector<int64_t>& dims = in.shape().dimensions();
  absl::StatusOr<std::vector<int64_t>> starts =
      ClampedStartIndices(instr, operands, 2, dims, update.shape().dimensions());
  if (!starts.ok()) return starts.status();
  const std::vector<int64_t> out_strides = RowMajorStrides(dims);
  const int64_t base = DotIndex(*starts, out_strides);
  const int64_t width = WidthOf(out);
  int64_t i = 0;
  ForEachIndex(update.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    CopyElement(RawBytes(update), i++, MutableRawBytes(&out), base + DotIndex(index, out_strides),
                width);
  });
  return out;
}

absl::StatusOr<Literal> HandleConcatenate(const HloInstruction& instr, Operands operands) {
  Literal out(instr.shape());
  const int64_t concat_dim = instr.concatenate_dimension();
  const std::vector<int64_t> out_strides = RowMajorStrides(out.shape().dimensions());
  const int64_t width = WidthOf(out);
  int64_t offset = 0;
  for (const Literal* part : operands) {
    int64_t i = 0;
    const int64_t base = offset * out_strides[concat_dim];
    ForEachIndex(part->shape().dimensions(), [&](absl::Span<const int64_t> index) {
      CopyElement(RawBytes(*part), i++, MutableRawBytes(&out),
                  base + DotIndex(index, out_strides), width);
    });
    offset += part->shape().dimensions(concat_dim);
  }
  return out;
}

absl::StatusOr<Literal> HandlePad(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  const Literal& padding_value = *operands[1];
  Literal out(instr.shape());
  const int64_t width = WidthOf(out);
  const int64_t n = out.element_count();
  uint8_t* dst = MutableRawBytes(&out);
  for (int64_t i = 0; i < n; ++i) CopyElement(RawBytes(padding_value), 0, dst, i, width);
  const std::vector<int64_t>& out_dims = out.shape().dimensions();
  const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  const std::vector<PaddingConfigDimension>& config = instr.padding_config().dimensions;
  const int64_t rank = in.shape().rank();
  int64_t i = 0;
  ForEachIndex(in.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    // Operand element `index` lands at low + index * (interior + 1); negative
    // edge padding cuts off the elements that land outside the result.
    int64_t dst_index = 0;
    bool inside = true;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t position = config[d].edge_padding_low + index[d] * (config[d].interior_padding + 1);
      if (position < 0 || position >= out_dims[d]) {
        inside = false;
        break;
      }
      dst_index += position * out_strides[d];
    }
    if (inside) CopyElement(RawBytes(in), i, dst, dst_index, width);
    ++i;
  });
  return out;
}

}  // namespace hmo::eval_internal
