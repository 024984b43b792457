#include "hmo/codegen/transposed_reads.h"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/primitive_type.h"
#include "hmo/ir/shape.h"

namespace hmo::codegen {
namespace {

// A set of indices into one array: the output's origin, then the origin
// moved by one along each output dimension, as they reach that array.
using Probe = std::vector<std::vector<int64_t>>;

// Operands smaller than this fit in cache whatever the order.
constexpr int64_t kMinTransposedOperandBytes = 64 * 1024;

// A read whose stride along the output's most-minor dimension is below this
// many elements stays within a few cache lines anyway.
constexpr int64_t kMinTransposedStride = 16;

// A tile reads each strided operand along `columns` cache lines at once,
// `rows` elements of each (a row of a tile covers kTileRowBytes of each line
// it reads). Lines a multiple of a page apart share one L1 set (of
// kL1Ways lines): a tile reads at most that many of them; else its
// columns are a vector's worth, which the inner loop's code wants.
constexpr int64_t kPageBytes = 4096;
constexpr int64_t kL1Ways = 8;
constexpr int64_t kMinTileColumns = 2;
constexpr int64_t kTileColumns = 16;
constexpr int64_t kTileRowBytes = 2048;

// A tiled most-major dimension keeps at least this many tiles.
constexpr int64_t kMinOuterTiles = 8;

// How many (instruction, probe) pairs the walk visits at most: a fusion's
// instructions each reached through a few paths.
constexpr int64_t kMaxVisits = 4096;

std::vector<int64_t> MinorToMajor(const Shape& shape) {
  return ShapeUtil::LayoutOrDefault(shape).minor_to_major();
}

// The index at `offset` in `shape`, with the dimensions in `order` (most
// minor first) and wrapping: for reshapes (row-major order) and bitcasts
// (the layout's order).
std::vector<int64_t> IndexAt(const Shape& shape, const std::vector<int64_t>& order,
                             int64_t offset) {
  std::vector<int64_t> index(shape.rank(), 0);
  for (int64_t d : order) {
    const int64_t size = shape.dimensions(static_cast<int>(d));
    if (size == 0) return index;
    index[d] = offset % size;
    offset /= size;
  }
  return index;
}

// The offset of `index` with the dimensions in `order` (most minor first).
int64_t OffsetIn(const Shape& shape, const std::vector<int64_t>& order,
                 const std::vector<int64_t>& index) {
  int64_t offset = 0;
  int64_t stride = 1;
  for (int64_t d : order) {
    offset += index[d] * stride;
    stride *= shape.dimensions(static_cast<int>(d));
  }
  return offset;
}

std::vector<int64_t> RowMajor(int64_t rank) {
  std::vector<int64_t> order(rank);
  for (int64_t i = 0; i < rank; ++i) order[i] = rank - 1 - i;
  return order;
}

// The offset of `index` in `shape`'s buffer, in elements.
int64_t PhysicalOffset(const Shape& shape, const std::vector<int64_t>& index) {
  return OffsetIn(shape, MinorToMajor(shape), index);
}

// The index of operand `i` of `user` that `user` reads at `index`, when it
// is a fixed function of the index the walk knows.
std::optional<std::vector<int64_t>> OperandIndex(const HloInstruction& user, int64_t i,
                                                 const std::vector<int64_t>& index) {
  const Shape& operand = user.operand(i)->shape();
  const Shape& shape = user.shape();
  if (!operand.IsArray() || !shape.IsArray()) return std::nullopt;
  switch (user.opcode()) {
    case HloOpcode::kTranspose: {
      std::vector<int64_t> result(operand.rank());
      for (size_t d = 0; d < user.dimensions().size(); ++d) result[user.dimensions()[d]] = index[d];
      return result;
    }
    case HloOpcode::kBroadcast: {
      std::vector<int64_t> result;
      for (int64_t d : user.dimensions()) result.push_back(index[d]);
      return result;
    }
    case HloOpcode::kReshape:
      return IndexAt(operand, RowMajor(operand.rank()),
                     OffsetIn(shape, RowMajor(shape.rank()), index));
    case HloOpcode::kBitcast:
      if (BitWidth(operand.element_type()) != BitWidth(shape.element_type())) {
        return std::nullopt;
      }
      return IndexAt(operand, MinorToMajor(operand), PhysicalOffset(shape, index));
    case HloOpcode::kSlice: {
      std::vector<int64_t> result(index.size());
      for (size_t d = 0; d < index.size(); ++d) {
        result[d] = user.slice_starts(static_cast<int64_t>(d)) +
                    index[d] * user.slice_strides(static_cast<int64_t>(d));
      }
      return result;
    }
    case HloOpcode::kCopy:
      return index;
    default:
      if (user.IsElementwiseOnOperand(i) && operand.dimensions() == shape.dimensions()) {
        return index;
      }
      return std::nullopt;
  }
}

// An operand of the kernel (`number`) read contiguously along output
// dimension `dimension`.
struct TransposedRead {
  int64_t number;
  int64_t bytes;
  int64_t dimension;
  int64_t element_bytes;
  // Between the elements the output's most-minor dimension reads.
  int64_t stride_bytes;
};

// Walks indices from the kernel's output to its operands, keeping the
// operands read contiguously along another output dimension than the
// most-minor one (which reads them with a large stride).
class TransposedReadSearch {
 public:
  // `fusion`: the kernel's fusion, whose fused parameters stand for its
  // operands; null for another kernel.
  TransposedReadSearch(const Shape& output, int64_t minor, const HloInstruction* fusion)
      : output_(output), minor_(minor), fusion_(fusion) {}

  // `value` (a fused instruction) is read at `probe`.
  void Visit(const HloInstruction& value, const Probe& probe) {
    if (++visits_ > kMaxVisits || !seen_.insert({&value, probe}).second) return;
    if (value.opcode() == HloOpcode::kParameter) {
      const int64_t number = value.parameter_number();
      if (fusion_ != nullptr && number < fusion_->operand_count()) {
        JudgeOperand(number, fusion_->operand(number)->shape(), probe);
      }
      return;
    }
    for (int64_t i = 0; i < value.operand_count(); ++i) {
      if (std::optional<Probe> next = OperandProbe(value, i, probe)) {
        Visit(*value.operand(i), *next);
      }
    }
  }

  // Operand `number` of the kernel read at `probe`.
  void JudgeOperand(int64_t number, const Shape& shape, const Probe& probe) {
    if (!shape.IsArray() || shape.rank() == 0) return;
    const int64_t bytes = ShapeUtil::ByteSizeOf(shape);
    if (bytes < kMinTransposedOperandBytes) return;
    const int64_t origin = PhysicalOffset(shape, probe[0]);
    auto stride = [&](int64_t d) { return std::abs(PhysicalOffset(shape, probe[1 + d]) - origin); };
    if (stride(minor_) < kMinTransposedStride) return;
    for (int64_t d = 0; d < output_.rank(); ++d) {
      if (d != minor_ && output_.dimensions(static_cast<int>(d)) > 1 && stride(d) == 1) {
        const int64_t element_bytes = ByteWidth(shape.element_type());
        reads_.push_back(
            TransposedRead{number, bytes, d, element_bytes, stride(minor_) * element_bytes});
        return;
      }
    }
  }

  // The probe at which `user` reads its operand `i`, when the walk knows it.
  static std::optional<Probe> OperandProbe(const HloInstruction& user, int64_t i,
                                           const Probe& probe) {
    Probe next;
    for (const std::vector<int64_t>& index : probe) {
      std::optional<std::vector<int64_t>> operand_index = OperandIndex(user, i, index);
      if (!operand_index.has_value()) return std::nullopt;
      next.push_back(std::move(*operand_index));
    }
    return next;
  }

  const std::vector<TransposedRead>& reads() const { return reads_; }

 private:
  const Shape& output_;
  const int64_t minor_;
  const HloInstruction* const fusion_;
  int64_t visits_ = 0;
  absl::flat_hash_set<std::pair<const HloInstruction*, Probe>> seen_;
  std::vector<TransposedRead> reads_;
};

}  // namespace

std::optional<LoopTiling> TransposedReadTiling(const HloInstruction& instruction) {
  const Shape& output = instruction.shape();
  if (!output.IsArray() || output.rank() < 2) return std::nullopt;
  const std::vector<int64_t> minor_to_major = MinorToMajor(output);
  const int64_t minor = MostMinorDimensionOfMoreThanOneIndex(output);
  if (minor < 0) return std::nullopt;
  Probe probe(1 + output.rank(), std::vector<int64_t>(output.rank(), 0));
  for (int64_t d = 0; d < output.rank(); ++d) {
    if (output.dimensions(static_cast<int>(d)) > 1) probe[1 + d][d] = 1;
  }
  TransposedReadSearch search(output, minor,
                              instruction.opcode() == HloOpcode::kFusion ? &instruction : nullptr);
  if (instruction.opcode() == HloOpcode::kFusion) {
    const HloComputation* fused = instruction.fused_instructions_computation();
    if (fused == nullptr || !fused->root_instruction()->shape().IsArray()) return std::nullopt;
    search.Visit(*fused->root_instruction(), probe);
  } else {
    for (int64_t i = 0; i < instruction.operand_count(); ++i) {
      if (std::optional<Probe> next = TransposedReadSearch::OperandProbe(instruction, i, probe)) {
        search.JudgeOperand(i, instruction.operand(i)->shape(), *next);
      }
    }
  }
  // The largest such operand decides the dimension; the others read along
  // it share the tile's cache lines.
  const std::vector<TransposedRead>& reads = search.reads();
  if (reads.empty()) return std::nullopt;
  const TransposedRead* largest = &reads.front();
  for (const TransposedRead& read : reads) {
    if (read.bytes > largest->bytes) largest = &read;
  }
  absl::flat_hash_set<int64_t> page_strided;
  for (const TransposedRead& read : reads) {
    if (read.dimension == largest->dimension && read.stride_bytes % kPageBytes == 0) {
      page_strided.insert(read.number);
    }
  }
  LoopTiling tiling;
  tiling.dimension = largest->dimension;
  tiling.columns =
      page_strided.empty()
          ? kTileColumns
          : std::max<int64_t>(kMinTileColumns, kL1Ways / static_cast<int64_t>(page_strided.size()));
  tiling.rows = kTileRowBytes / std::max<int64_t>(largest->element_bytes, 1);
  // The tiles of a most-major tiled dimension are what the kernel's parts
  // split: enough of them for every part.
  const int64_t size = output.dimensions(static_cast<int>(tiling.dimension));
  for (auto it = minor_to_major.rbegin(); it != minor_to_major.rend(); ++it) {
    if (output.dimensions(static_cast<int>(*it)) == 1) continue;
    if (*it == tiling.dimension) {
      tiling.rows = std::max<int64_t>(
          kMinTileColumns, std::min(tiling.rows, (size + kMinOuterTiles - 1) / kMinOuterTiles));
    }
    break;
  }
  return tiling;
}

}  // namespace hmo::codegen
