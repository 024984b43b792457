#include "hmo/codegen/transposed_blocks.h"

#include <algorithm>
#include <string>
#include <vector>

#include "hmo/base/status_macros.h"
#include "hmo/codegen/element_types.h"
#include "hmo/ir/hlo_computation.h"
#include "llvm/IR/DerivedTypes.h"

namespace hmo::codegen {
namespace {

// A run of blocks reads this many bytes along each of its operand lines.
constexpr int64_t kRunBytes = 2048;

// Runs outermost need at least this many of them.
constexpr int64_t kMinOuterRuns = 8;

// Whether `instruction` (an element-by-element kernel) only moves elements:
// copies, transposes, layout changes, slices, broadcasts. Then a block's
// values are loads LLVM turns into vector loads of the operand's lines; any
// arithmetic among them (a fusion computing its values) leaves the block's
// loop scalar, and slower than the tiled loop.
bool MovesElementsOnly(const HloInstruction& instruction) {
  auto moves_elements = [](const HloInstruction& i) {
    switch (i.opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kBitcast:
      case HloOpcode::kBroadcast:
      case HloOpcode::kCopy:
      case HloOpcode::kReshape:
      case HloOpcode::kSlice:
      case HloOpcode::kTranspose:
        return true;
      default:
        return false;
    }
  };
  if (instruction.opcode() != HloOpcode::kFusion) return moves_elements(instruction);
  for (const HloInstruction* fused : instruction.fused_instructions_computation()->instructions()) {
    if (!moves_elements(*fused)) return false;
  }
  return true;
}

// The block's rows transposed in place: rows[c][a] becomes rows[a][c].
// Stage s (1, 2, 4, ...) exchanges bit s of the row and the lane index
// between each pair of rows s apart, with one two-source shuffle per row.
void EmitTransposeInRegisters(llvm::IRBuilderBase& b, std::vector<llvm::Value*>& rows) {
  const int n = static_cast<int>(rows.size());
  for (int s = 1; s < n; s *= 2) {
    std::vector<int> low(n), high(n);
    for (int lane = 0; lane < n; ++lane) {
      const bool set = (lane & s) != 0;
      low[lane] = set ? n + lane - s : lane;
      high[lane] = set ? n + lane : lane + s;
    }
    for (int i = 0; i < n; ++i) {
      if ((i & s) != 0) continue;
      llvm::Value* x = rows[i];
      llvm::Value* y = rows[i + s];
      rows[i] = b.CreateShuffleVector(x, y, low);
      rows[i + s] = b.CreateShuffleVector(x, y, high);
    }
  }
}

}  // namespace

bool CanEmitTransposedBlocks(const KernelEmitContext& context, const IrArray& output,
                             const LoopTiling& tiling) {
  if (context.parallel_iterations_run_concurrently()) return false;
  if (!MovesElementsOnly(context.instruction())) return false;
  const int bits = primitive_util::BitWidth(output.element_type());
  if (bits != 16 && bits != 32) return false;
  if (primitive_util::IsComplexType(output.element_type())) return false;
  const Shape& shape = output.shape();
  const int64_t minor = MostMinorDimensionOfMoreThanOneIndex(shape);
  if (minor < 0 || tiling.dimension == minor || tiling.dimension < 0 ||
      tiling.dimension >= shape.rank()) {
    return false;
  }
  return shape.dimensions(static_cast<int>(minor)) >= kTransposedBlock &&
         shape.dimensions(static_cast<int>(tiling.dimension)) >= kTransposedBlock;
}

absl::Status EmitTransposedBlocks(KernelEmitContext& context, const IrArray& output,
                                  const ElementGenerator& generator, const LoopTiling& tiling) {
  llvm::IRBuilder<>& b = context.builder();
  const Shape& shape = output.shape();
  const int64_t minor = MostMinorDimensionOfMoreThanOneIndex(shape);
  const int64_t tiled = tiling.dimension;
  const int64_t minor_size = shape.dimensions(static_cast<int>(minor));
  const int64_t tiled_size = shape.dimensions(static_cast<int>(tiled));

  // The block grid: the output's dimensions, the two tiled ones counted in
  // blocks, and the tiled dimension's blocks split into runs of
  // kRunBytes along the operand's lines, an extra grid dimension (index
  // `rank`) innermost. Within a run consecutive blocks read the same
  // operand lines along their length (the order the hardware prefetcher
  // follows); the runs of the minor dimension's blocks then write the
  // output's lines of one run, each line a little further.
  const int64_t rank = shape.rank();
  const int64_t tiled_blocks = (tiled_size + kTransposedBlock - 1) / kTransposedBlock;
  const int64_t element_bytes = primitive_util::BitWidth(shape.element_type()) / 8;
  const int64_t run =
      std::clamp<int64_t>(kRunBytes / (kTransposedBlock * element_bytes), 1, tiled_blocks);
  std::vector<int64_t> grid_dimensions = shape.dimensions();
  grid_dimensions[minor] = (minor_size + kTransposedBlock - 1) / kTransposedBlock;
  grid_dimensions[tiled] = (tiled_blocks + run - 1) / run;
  grid_dimensions.push_back(run);
  // The runs outside the minor dimension's blocks; but where there are too
  // few of them to share among a partitioned kernel's parts, inside them
  // (the kernel's parts then split the minor dimension's blocks).
  std::vector<int64_t> grid_order = grid_dimensions[tiled] >= kMinOuterRuns
                                        ? std::vector<int64_t>{rank, minor, tiled}
                                        : std::vector<int64_t>{rank, tiled, minor};
  for (int64_t d : output.minor_to_major()) {
    if (d != tiled && d != minor) grid_order.push_back(d);
  }
  const Shape grid(shape.element_type(), grid_dimensions, Layout(grid_order));

  // The block on the stack, [minor][tiled] in storage form: row a holds the
  // values of output index minor = a along the tiled dimension.
  const Shape block_shape(shape.element_type(), {kTransposedBlock, kTransposedBlock});
  HMO_ASSIGN_OR_RETURN(llvm::Type * storage,
                       StorageType(shape.element_type(), context.llvm_context()));
  llvm::AllocaInst* block_storage = context.EmitEntryAlloca(
      llvm::ArrayType::get(storage, kTransposedBlock * kTransposedBlock), "transposed_block");
  const IrArray block(block_storage, block_shape);
  llvm::Type* lanes = llvm::FixedVectorType::get(
      b.getIntNTy(primitive_util::BitWidth(shape.element_type())), kTransposedBlock);
  const llvm::Align element_align(primitive_util::BitWidth(shape.element_type()) / 8);

  return context.EmitOutputLoopNest(
      "block", grid, [&](const IrArray::Index& grid_index) -> absl::Status {
        IrArray::Index origin(grid_index.begin(), grid_index.begin() + rank);
        llvm::Value* tiled_block =
            b.CreateAdd(b.CreateMul(grid_index[tiled], b.getInt64(run)), grid_index[rank]);
        origin[minor] = b.CreateMul(grid_index[minor], b.getInt64(kTransposedBlock));
        origin[tiled] = b.CreateMul(tiled_block, b.getInt64(kTransposedBlock));
        auto at = [&](llvm::Value* a, llvm::Value* c) {
          IrArray::Index index = origin;
          index[minor] = b.CreateAdd(origin[minor], a);
          index[tiled] = b.CreateAdd(origin[tiled], c);
          return index;
        };

        // A whole block: its values with the tiled dimension innermost (the
        // transposed operand read along its lines), transposed, stored as
        // vectors along the output's minor dimension.
        auto whole_block = [&]() -> absl::Status {
          HMO_RETURN_IF_ERROR(context.EmitForLoop(
              "block.minor", b.getInt64(0), b.getInt64(kTransposedBlock), 1,
              [&](llvm::Value* a) -> absl::Status {
                return context.EmitForLoop(
                    "block.tiled", b.getInt64(0), b.getInt64(kTransposedBlock), 1,
                    [&](llvm::Value* c) -> absl::Status {
                      HMO_ASSIGN_OR_RETURN(llvm::Value * value, generator(at(a, c)));
                      block.EmitWriteElement({a, c}, value, b);
                      return absl::OkStatus();
                    });
              }));
          std::vector<llvm::Value*> rows;
          for (int64_t a = 0; a < kTransposedBlock; ++a) {
            llvm::Value* address = block.EmitElementAddress({b.getInt64(a), b.getInt64(0)}, b);
            rows.push_back(b.CreateAlignedLoad(
                lanes, b.CreatePointerCast(address, lanes->getPointerTo()), element_align));
          }
          EmitTransposeInRegisters(b, rows);
          for (int64_t c = 0; c < kTransposedBlock; ++c) {
            llvm::Value* address = output.EmitElementAddress(at(b.getInt64(0), b.getInt64(c)), b);
            b.CreateAlignedStore(rows[c], b.CreatePointerCast(address, lanes->getPointerTo()),
                                 element_align);
          }
          return absl::OkStatus();
        };
        // A block the output's end clips: element by element.
        auto clipped_block = [&]() -> absl::Status {
          auto clip = [&](llvm::Value* start, int64_t size) {
            llvm::Value* rest = b.CreateSub(b.getInt64(size), start);
            llvm::Value* block_size = b.getInt64(kTransposedBlock);
            return b.CreateSelect(b.CreateICmpSLT(rest, block_size), rest, block_size);
          };
          llvm::Value* minor_count = clip(origin[minor], minor_size);
          llvm::Value* tiled_count = clip(origin[tiled], tiled_size);
          return context.EmitForLoop(
              "clipped.tiled", b.getInt64(0), tiled_count, 1, [&](llvm::Value* c) -> absl::Status {
                return context.EmitForLoop("clipped.minor", b.getInt64(0), minor_count, 1,
                                           [&](llvm::Value* a) -> absl::Status {
                                             const IrArray::Index index = at(a, c);
                                             HMO_ASSIGN_OR_RETURN(llvm::Value * value,
                                                                  generator(index));
                                             output.EmitWriteElement(index, value, b);
                                             return absl::OkStatus();
                                           });
              });
        };
        llvm::Function* function = b.GetInsertBlock()->getParent();
        llvm::BasicBlock* past_end = nullptr;
        if (tiled_blocks % run != 0) {
          // The last run's blocks past the tiled dimension's end.
          auto* inside = llvm::BasicBlock::Create(context.llvm_context(), "block.inside", function);
          past_end = llvm::BasicBlock::Create(context.llvm_context(), "block.next", function);
          b.CreateCondBr(b.CreateICmpSLT(tiled_block, b.getInt64(tiled_blocks)), inside, past_end);
          b.SetInsertPoint(inside);
        }
        auto finish = [&]() {
          if (past_end == nullptr) return;
          b.CreateBr(past_end);
          b.SetInsertPoint(past_end);
        };
        if (minor_size % kTransposedBlock == 0 && tiled_size % kTransposedBlock == 0) {
          HMO_RETURN_IF_ERROR(whole_block());
          finish();
          return absl::OkStatus();
        }
        auto fits = [&](llvm::Value* start, int64_t size) {
          return b.CreateICmpSLE(b.CreateAdd(start, b.getInt64(kTransposedBlock)),
                                 b.getInt64(size));
        };
        llvm::Value* whole =
            b.CreateAnd(fits(origin[minor], minor_size), fits(origin[tiled], tiled_size));
        auto* whole_bb = llvm::BasicBlock::Create(context.llvm_context(), "block.whole", function);
        auto* clipped_bb =
            llvm::BasicBlock::Create(context.llvm_context(), "block.clipped", function);
        auto* done_bb = llvm::BasicBlock::Create(context.llvm_context(), "block.done", function);
        b.CreateCondBr(whole, whole_bb, clipped_bb);
        b.SetInsertPoint(whole_bb);
        HMO_RETURN_IF_ERROR(whole_block());
        b.CreateBr(done_bb);
        b.SetInsertPoint(clipped_bb);
        HMO_RETURN_IF_ERROR(clipped_block());
        b.CreateBr(done_bb);
        b.SetInsertPoint(done_bb);
        finish();
        return absl::OkStatus();
      });
}

}  // namespace hmo::codegen
