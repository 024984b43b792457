#include "hmo/codegen/loop_emitter.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hmo/base/status_macros.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"

namespace hmo::codegen {

absl::Status EmitForLoop(llvm::IRBuilderBase& b, std::string_view name, llvm::Value* start,
                         llvm::Value* end, int64_t step,
                         const std::function<absl::Status(llvm::Value* iv)>& body) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  const std::string prefix(name);
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context, prefix + ".header", function);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(context, prefix + ".body", function);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context, prefix + ".exit", function);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2, prefix + ".iv");
  iv->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(iv, end), body_block, exit);

  b.SetInsertPoint(body_block);
  HMO_RETURN_IF_ERROR(body(iv));
  llvm::Value* next = b.CreateAdd(iv, b.getInt64(step), prefix + ".next", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);

  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

int64_t MostMinorDimensionOfMoreThanOneIndex(const Shape& shape) {
  const Layout layout = ShapeUtil::LayoutOrDefault(shape);
  for (int64_t dim : layout.minor_to_major()) {
    if (shape.dimensions(static_cast<int>(dim)) > 1) return dim;
  }
  return -1;
}

namespace {

// EmitLoopNest, with the outermost loop over more than one index restricted
// to `range` when there is one, and tiled as `tiling` says when given.
absl::Status EmitLoopNestImpl(
    llvm::IRBuilderBase& b, std::string_view name, const Shape& shape,
    const std::function<std::pair<llvm::Value*, llvm::Value*>(int64_t)>* outer_range,
    const LoopTiling* tiling,
    const std::function<absl::Status(const IrArray::Index& index)>& body) {
  for (int64_t d : shape.dimensions()) {
    if (d == 0) return absl::OkStatus();
  }
  const IrArray layout_view(nullptr, shape);
  const std::vector<int64_t>& minor_to_major = layout_view.minor_to_major();
  auto size_of = [&](int64_t dim) { return shape.dimensions(static_cast<int>(dim)); };
  // The tiled dimensions: `tiling`'s and the most-minor one of more than
  // one index, when they differ.
  int64_t tiled = -1, minor = -1;
  if (tiling != nullptr) {
    minor = MostMinorDimensionOfMoreThanOneIndex(shape);
    if (minor >= 0 && tiling->dimension != minor && tiling->dimension < shape.rank() &&
        size_of(tiling->dimension) > 1 && (tiling->rows > 1 || tiling->columns > 1)) {
      tiled = tiling->dimension;
    } else {
      minor = -1;
    }
  }
  // Indices of a tile along each dimension.
  auto tile_of = [&](int64_t dim) {
    if (dim == tiled) return std::max<int64_t>(tiling->rows, 1);
    return dim == minor ? std::max<int64_t>(tiling->columns, 1) : int64_t{1};
  };
  IrArray::Index index(shape.rank(), nullptr);
  IrArray::Index tile_start(shape.rank(), nullptr);
  bool outer_done = outer_range == nullptr;
  auto loop = [&](const std::string& label, int64_t count,
                  const std::function<absl::Status(llvm::Value*)>& loop_body) {
    llvm::Value* start = b.getInt64(0);
    llvm::Value* end = b.getInt64(count);
    if (!outer_done) {
      std::tie(start, end) = (*outer_range)(count);
      outer_done = true;
    }
    return EmitForLoop(b, std::string(name) + label, start, end, 1, loop_body);
  };
  // Within a tile: its rows of the tiled dimension, then its columns of the
  // most-minor one, each clipped at the dimension's end.
  auto within_tile = [&](int64_t dim, const std::function<absl::Status()>& inner) {
    const int64_t tile = tile_of(dim);
    llvm::Value* start = b.CreateMul(tile_start[dim], b.getInt64(tile));
    llvm::Value* end = b.CreateAdd(start, b.getInt64(tile));
    if (size_of(dim) % tile != 0) {
      llvm::Value* size = b.getInt64(size_of(dim));
      end = b.CreateSelect(b.CreateICmpSLT(end, size), end, size);
    }
    return EmitForLoop(b, std::string(name) + ".t" + std::to_string(dim), start, end, 1,
                       [&](llvm::Value* iv) -> absl::Status {
                         index[dim] = iv;
                         return inner();
                       });
  };
  // Loops from the most-major dimension (outermost) to the most-minor; a
  // tiled dimension's loop runs over its tiles.
  std::function<absl::Status(int64_t)> emit_level = [&](int64_t level) -> absl::Status {
    if (level < 0) {
      if (tiled < 0) return body(index);
      return within_tile(tiled, [&] { return within_tile(minor, [&] { return body(index); }); });
    }
    const int64_t dim = minor_to_major[level];
    const int64_t size = size_of(dim);
    if (size == 1) {
      index[dim] = b.getInt64(0);
      return emit_level(level - 1);
    }
    if (dim == tiled || dim == minor) {
      return loop(".tiles" + std::to_string(dim), (size + tile_of(dim) - 1) / tile_of(dim),
                  [&](llvm::Value* iv) -> absl::Status {
                    tile_start[dim] = iv;
                    return emit_level(level - 1);
                  });
    }
    return loop(".d" + std::to_string(dim), size, [&](llvm::Value* iv) -> absl::Status {
      index[dim] = iv;
      return emit_level(level - 1);
    });
  };
  return emit_level(static_cast<int64_t>(minor_to_major.size()) - 1);
}

}  // namespace

absl::Status EmitLoopNest(llvm::IRBuilderBase& b, std::string_view name, const Shape& shape,
                          const std::function<absl::Status(const IrArray::Index& index)>& body,
                          const LoopTiling* tiling) {
  return EmitLoopNestImpl(b, name, shape, nullptr, tiling, body);
}

std::pair<llvm::Value*, llvm::Value*> EmitPartRange(llvm::IRBuilderBase& b, int64_t count,
                                                    llvm::Value* part, llvm::Value* parts) {
  llvm::Value* total = b.getInt64(count);
  llvm::Value* begin = b.CreateSDiv(b.CreateMul(total, part), parts);
  llvm::Value* end = b.CreateSDiv(b.CreateMul(total, b.CreateAdd(part, b.getInt64(1))), parts);
  return {begin, end};
}

absl::Status EmitLoopNestPart(llvm::IRBuilderBase& b, std::string_view name, const Shape& shape,
                              llvm::Value* part, llvm::Value* parts,
                              const std::function<absl::Status(const IrArray::Index& index)>& body,
                              const LoopTiling* tiling) {
  const std::function<std::pair<llvm::Value*, llvm::Value*>(int64_t)> range = [&](int64_t size) {
    return EmitPartRange(b, size, part, parts);
  };
  // A shape whose dimensions all have one index has one iteration: part 0's.
  bool single = true;
  for (int64_t d : shape.dimensions()) single &= d == 1;
  if (single) {
    llvm::Function* function = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* run = llvm::BasicBlock::Create(b.getContext(), "part.once", function);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(b.getContext(), "part.after", function);
    b.CreateCondBr(b.CreateICmpEQ(part, b.getInt64(0)), run, after);
    b.SetInsertPoint(run);
    HMO_RETURN_IF_ERROR(EmitLoopNestImpl(b, name, shape, nullptr, nullptr, body));
    b.CreateBr(after);
    b.SetInsertPoint(after);
    return absl::OkStatus();
  }
  return EmitLoopNestImpl(b, name, shape, &range, tiling, body);
}

}  // namespace hmo::codegen
