#include "hmo/analysis/heap_free_chunks_manager.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace hmo {

FreeChunksManager::FreeChunksManager(std::function<int64_t(int64_t)> align_up)
    : align_up_(std::move(align_up)) {
  AddFree(0, kFreeSpaceEnd);
}

void FreeChunksManager::AddFree(int64_t offset, int64_t end) {
  by_offset_.emplace(offset, end);
  by_size_.emplace(end - align_up_(offset), offset);
}

void FreeChunksManager::RemoveFree(std::map<int64_t, int64_t>::iterator it) {
  by_size_.erase({it->second - align_up_(it->first), it->first});
  by_offset_.erase(it);
}

absl::Status FreeChunksManager::Allocate(int64_t offset, int64_t end) {
  auto it = by_offset_.upper_bound(offset);
  if (it == by_offset_.begin() || std::prev(it)->second < end) {
    return absl::FailedPreconditionError(
        absl::StrCat("Cannot allocate [", offset, ", ", end, "): not inside one free chunk"));
  }
  --it;
  const int64_t free_offset = it->first;
  const int64_t free_end = it->second;
  RemoveFree(it);
  if (free_end > end) AddFree(end, free_end);
  if (free_offset < offset) AddFree(free_offset, offset);
  return absl::OkStatus();
}

void FreeChunksManager::Deallocate(int64_t offset, int64_t end) {
  int64_t left = offset;
  int64_t right = end;
  auto above = by_offset_.find(end);
  if (above != by_offset_.end()) {
    right = above->second;
    RemoveFree(above);
  }
  auto below = by_offset_.lower_bound(offset);
  if (below != by_offset_.begin()) {
    --below;
    if (below->second >= offset) {
      left = below->first;
      right = std::max(right, below->second);
      RemoveFree(below);
    }
  }
  AddFree(left, right);
}

std::optional<FreeChunksManager::MemoryChunk> FreeChunksManager::FindJustLargeEnough(
    int64_t size) const {
  auto it = by_size_.lower_bound({size, std::numeric_limits<int64_t>::min()});
  if (it == by_size_.end()) return std::nullopt;
  const int64_t offset = it->second;
  const int64_t end = by_offset_.at(offset);
  return MemoryChunk{offset, end, align_up_(offset)};
}

std::vector<FreeChunksManager::MemoryChunk> FreeChunksManager::GetFreeChunks() const {
  std::vector<MemoryChunk> chunks;
  for (const auto& [offset, end] : by_offset_) {
    chunks.push_back(MemoryChunk{offset, end, align_up_(offset)});
  }
  return chunks;
}

}  // namespace hmo
