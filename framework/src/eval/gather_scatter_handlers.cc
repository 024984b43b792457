// gather and scatter with XLA's full dimension numbers, including the
// operand/indices batching dimensions.
//
// gather: every output index splits into batch dimensions (those not in
// offset_dims), which pick a start index vector out of start_indices, and
// offset dimensions, which walk the slice. Start indices are clamped so the
// slice fits in the operand.
//
// scatter: every update index splits into scatter dimensions (not in
// update_window_dims), which pick a start index vector, and window dimensions.
// An update window that does not fit in the operand at its start is skipped
// as a whole (XLA's behaviour); otherwise each element is combined with
// to_apply(current, update), in row-major order of the update index, so
// repeated indices accumulate in order.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "element_copy.h"
#include "index_space.h"
#include "opcode_handlers.h"
#include "scalar_combiner.h"

namespace hmo::eval_internal {
namespace {

bool Contains(const std::vector<int64_t>& values, int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

int64_t IndexValue(const Literal& indices, int64_t linear) {
  if (primitive_util::IsUnsignedIntegralType(indices.element_type())) {
    return static_cast<int64_t>(std::min<uint64_t>(indices.GetAsUint64(linear), INT64_MAX));
  }
  return indices.GetAsInt64(linear);
}

// Reads start index vectors out of a gather/scatter indices array.
class StartIndexReader {
 public:
  StartIndexReader(const Literal& indices, int64_t index_vector_dim)
      : indices_(indices),
        index_vector_dim_(index_vector_dim),
        strides_(RowMajorStrides(indices.shape().dimensions())) {
    const int64_t rank = indices.shape().rank();
    vector_size_ = index_vector_dim < rank ? indices.shape().dimensions(index_vector_dim) : 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != index_vector_dim) batch_dim_of_indices_.push_back(d);
    }
  }
  // Dimensions of `indices` that are batch dimensions, in order.
  const std::vector<int64_t>& batch_dims() const { return batch_dim_of_indices_; }
  int64_t vector_size() const { return vector_size_; }

  // The start vector for batch index `batch` (one entry per batch_dims()).
  void Read(absl::Span<const int64_t> batch, std::vector<int64_t>* out) const {
    int64_t base = 0;
    for (size_t i = 0; i < batch.size(); ++i) base += batch[i] * strides_[batch_dim_of_indices_[i]];
    const int64_t step = index_vector_dim_ < static_cast<int64_t>(strides_.size())
                             ? strides_[index_vector_dim_]
                             : 0;
    out->resize(vector_size_);
    for (int64_t k = 0; k < vector_size_; ++k) (*out)[k] = IndexValue(indices_, base + k * step);
  }

 private:
  const Literal& indices_;
  int64_t index_vector_dim_;
  std::vector<int64_t> strides_;
  int64_t vector_size_ = 1;
  std::vector<int64_t> batch_dim_of_indices_;
};

// Position of `dim` among the indices' batch dimensions.
int64_t BatchPosition(const StartIndexReader& reader, int64_t dim) {
  const auto& dims = reader.batch_dims();
  return std::find(dims.begin(), dims.end(), dim) - dims.begin();
}

}  // namespace

absl::StatusOr<Literal> HandleGather(const HloInstruction& instr, Operands operands) {
  const Literal& operand = *operands[0];
  const Literal& indices = *operands[1];
  const GatherDimensionNumbers& dn = instr.gather_dimension_numbers();
  const std::vector<int64_t>& slice_sizes = instr.gather_slice_sizes();
  Literal out(instr.shape());
  const std::vector<int64_t>& operand_dims = operand.shape().dimensions();
  const int64_t operand_rank = static_cast<int64_t>(operand_dims.size());
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand_dims);
  StartIndexReader reader(indices, dn.index_vector_dim);

  // Output offset dimension j walks operand dimension window_dims[j].
  std::vector<int64_t> window_dims;
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) && !Contains(dn.operand_batching_dims, d)) {
      window_dims.push_back(d);
    }
  }
  if (window_dims.size() != dn.offset_dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluator: gather ", instr.name(), " offset_dims do not match slice"));
  }
  const int64_t width = ByteWidth(out.element_type());
  std::vector<int64_t> batch, start, operand_index(operand_rank);
  int64_t out_linear = 0;
  ForEachIndex(out.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    batch.clear();
    size_t window_position = 0;
    std::fill(operand_index.begin(), operand_index.end(), 0);
    for (int64_t d = 0; d < static_cast<int64_t>(index.size()); ++d) {
      if (Contains(dn.offset_dims, d)) {
        operand_index[window_dims[window_position++]] = index[d];
      } else {
        batch.push_back(index[d]);
      }
    }
    reader.Read(batch, &start);
    std::vector<int64_t> full_start(operand_rank, 0);
    for (size_t k = 0; k < dn.start_index_map.size(); ++k) full_start[dn.start_index_map[k]] = start[k];
    for (size_t i = 0; i < dn.operand_batching_dims.size(); ++i) {
      full_start[dn.operand_batching_dims[i]] =
          batch[BatchPosition(reader, dn.start_indices_batching_dims[i])];
    }
    int64_t src = 0;
    for (int64_t d = 0; d < operand_rank; ++d) {
      const int64_t clamped =
          std::clamp<int64_t>(full_start[d], 0, std::max<int64_t>(operand_dims[d] - slice_sizes[d], 0));
      src += (clamped + operand_index[d]) * operand_strides[d];
    }
    CopyElement(RawBytes(operand), src, MutableRawBytes(&out), out_linear++, width);
  });
  return out;
}

absl::StatusOr<Literal> HandleScatter(const HloInstruction& instr, Operands operands,
                                      const ComputationRunner& run) {
  const int64_t n = operands.size() / 2;
  const Literal& indices = *operands[n];
  const ScatterDimensionNumbers& dn = instr.scatter_dimension_numbers();
  Literal result(instr.shape());
  std::vector<Literal*> outs;
  if (instr.shape().IsTuple()) {
    for (Literal& element : *result.mutable_tuple_elements()) outs.push_back(&element);
  } else {
    outs.push_back(&result);
  }
  for (int64_t i = 0; i < n; ++i) *outs[i]->mutable_raw_data() = operands[i]->raw_data();
  const Literal& first_update = *operands[n + 1];
  const std::vector<int64_t>& operand_dims = operands[0]->shape().dimensions();
  const int64_t operand_rank = static_cast<int64_t>(operand_dims.size());
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand_dims);
  const std::vector<int64_t>& update_dims = first_update.shape().dimensions();
  StartIndexReader reader(indices, dn.index_vector_dim);

  // Update window dimension j walks operand dimension window_dims[j]; the
  // window's extent along each operand dimension (1 for inserted/batching).
  std::vector<int64_t> window_dims;
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d)) {
      window_dims.push_back(d);
    }
  }
  if (window_dims.size() != dn.update_window_dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "evaluator: scatter ", instr.name(), " update_window_dims do not match the operand"));
  }
  std::vector<int64_t> window_extent(operand_rank, 1);
  for (size_t j = 0; j < window_dims.size(); ++j) {
    window_extent[window_dims[j]] = update_dims[dn.update_window_dims[j]];
  }

  std::optional<HloOpcode> simple = MatchSimpleBinaryReducer(*instr.to_apply());
  std::vector<int64_t> batch, start, window_index(operand_rank);
  absl::Status status;
  int64_t update_linear = 0;
  ForEachIndex(update_dims, [&](absl::Span<const int64_t> index) {
    const int64_t this_update = update_linear++;
    if (!status.ok()) return;
    batch.clear();
    size_t window_position = 0;
    std::fill(window_index.begin(), window_index.end(), 0);
    for (int64_t d = 0; d < static_cast<int64_t>(index.size()); ++d) {
      if (Contains(dn.update_window_dims, d)) {
        window_index[window_dims[window_position++]] = index[d];
      } else {
        batch.push_back(index[d]);
      }
    }
    reader.Read(batch, &start);
    std::vector<int64_t> full_start(operand_rank, 0);
    for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
      full_start[dn.scatter_dims_to_operand_dims[k]] = start[k];
    }
    for (size_t i = 0; i < dn.input_batching_dims.size(); ++i) {
      full_start[dn.input_batching_dims[i]] =
          batch[BatchPosition(reader, dn.scatter_indices_batching_dims[i])];
    }
    int64_t dst = 0;
    for (int64_t d = 0; d < operand_rank; ++d) {
      if (full_start[d] < 0 || full_start[d] + window_extent[d] > operand_dims[d]) return;
      dst += (full_start[d] + window_index[d]) * operand_strides[d];
    }
    if (simple.has_value() && n == 1) {
      status = SwitchOnElementType(outs[0]->element_type(), instr.name(), [&](auto tag) {
        constexpr PrimitiveType kT = decltype(tag)::value;
        using N = NativeOf<kT>;
        N combined;
        if (!ApplyBinaryOp<N>(*simple, LoadElement<kT>(RawBytes(*outs[0]), dst),
                              LoadElement<kT>(RawBytes(first_update), this_update), &combined)) {
          return absl::UnimplementedError(absl::StrCat("evaluator: scatter ", instr.name(),
                                                       " combiner not defined on its type"));
        }
        StoreElement<kT>(MutableRawBytes(outs[0]), dst, combined);
        return absl::OkStatus();
      });
      return;
    }
    std::vector<Literal> args;
    for (int64_t i = 0; i < n; ++i) args.push_back(ScalarAt(*outs[i], dst));
    for (int64_t i = 0; i < n; ++i) args.push_back(ScalarAt(*operands[n + 1 + i], this_update));
    absl::StatusOr<std::vector<Literal>> combined =
        ApplyScalarComputation(*instr.to_apply(), std::move(args), run);
    if (!combined.ok()) {
      status = combined.status();
      return;
    }
    for (int64_t i = 0; i < n; ++i) SetElementFromScalar(outs[i], dst, (*combined)[i]);
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace hmo::eval_internal
