#include "hmo/analysis/buffer_packing_csv.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hmo/analysis/best_fit_constrained_heap.h"
#include "hmo/analysis/heap_choose_best.h"
#include "hmo/analysis/tight_packing_heap.h"
#include "hmo/base/status_macros.h"

namespace hmo {
namespace {

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> SplitFields(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(Trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                            : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

bool IsLive(const PackingBuffer& b) { return b.upper > b.lower && b.size > 0; }

}  // namespace

absl::StatusOr<PackingInstance> ParseMiniMallocCsv(std::string_view text,
                                                   std::string_view filename) {
  PackingInstance instance;
  const std::string file(filename);
  std::vector<std::string> header;
  int id_col = -1, lower_col = -1, upper_col = -1, size_col = -1, offset_col = -1;
  std::vector<int> extra_cols;
  int line_number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t newline = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, newline == std::string_view::npos ? std::string_view::npos : newline - pos);
    pos = newline == std::string_view::npos ? text.size() + 1 : newline + 1;
    ++line_number;
    if (Trim(line).empty()) continue;
    std::vector<std::string> fields = SplitFields(line);
    if (header.empty()) {
      header = fields;
      for (int i = 0; i < static_cast<int>(header.size()); ++i) {
        const std::string& name = header[i];
        if (name == "id") id_col = i;
        else if (name == "lower") lower_col = i;
        else if (name == "upper") upper_col = i;
        else if (name == "size") size_col = i;
        else if (name == "offset") offset_col = i;
        else extra_cols.push_back(i);
      }
      if (id_col < 0 || lower_col < 0 || upper_col < 0 || size_col < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            file, ":", line_number, ": error: the header must name the columns id, lower, upper, size"));
      }
      for (int c : extra_cols) instance.extra_columns.push_back(header[c]);
      continue;
    }
    if (fields.size() != header.size()) {
      return absl::InvalidArgumentError(absl::StrCat(file, ":", line_number, ": error: expected ",
                                                     header.size(), " fields, found ", fields.size()));
    }
    PackingBuffer buffer;
    buffer.id = fields[id_col];
    auto parse = [&](int col, int64_t* out) -> absl::Status {
      if (!absl::SimpleAtoi(fields[col], out)) {
        return absl::InvalidArgumentError(absl::StrCat(file, ":", line_number, ": error: ",
                                                       header[col], " '", fields[col],
                                                       "' is not an integer"));
      }
      return absl::OkStatus();
    };
    HMO_RETURN_IF_ERROR(parse(lower_col, &buffer.lower));
    HMO_RETURN_IF_ERROR(parse(upper_col, &buffer.upper));
    HMO_RETURN_IF_ERROR(parse(size_col, &buffer.size));
    if (offset_col >= 0 && !fields[offset_col].empty()) {
      HMO_RETURN_IF_ERROR(parse(offset_col, &buffer.offset));
    }
    if (buffer.size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_number, ": error: size must not be negative"));
    }
    if (buffer.upper < buffer.lower) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_number, ": error: upper must not be below lower"));
    }
    std::vector<std::string> extras;
    for (int c : extra_cols) extras.push_back(fields[c]);
    instance.extra_values.push_back(std::move(extras));
    instance.buffers.push_back(std::move(buffer));
  }
  if (header.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ":1: error: empty file (no header)"));
  }
  return instance;
}

absl::StatusOr<PackingInstance> ReadMiniMallocCsvFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream contents;
  contents << in.rdbuf();
  return ParseMiniMallocCsv(contents.str(), path);
}

std::string WriteMiniMallocCsv(const PackingInstance& instance, absl::Span<const int64_t> offsets) {
  std::string out = "id,lower,upper,size";
  for (const std::string& column : instance.extra_columns) absl::StrAppend(&out, ",", column);
  absl::StrAppend(&out, ",offset\n");
  for (size_t i = 0; i < instance.buffers.size(); ++i) {
    const PackingBuffer& b = instance.buffers[i];
    absl::StrAppend(&out, b.id, ",", b.lower, ",", b.upper, ",", b.size);
    if (i < instance.extra_values.size()) {
      for (const std::string& value : instance.extra_values[i]) absl::StrAppend(&out, ",", value);
    }
    absl::StrAppend(&out, ",", i < offsets.size() ? offsets[i] : b.offset, "\n");
  }
  return out;
}

HeapPackingProblem ToHeapPackingProblem(const PackingInstance& instance, int64_t alignment) {
  HeapPackingProblem problem;
  problem.alignment = alignment;
  for (const PackingBuffer& b : instance.buffers) {
    HeapPackingBlock block;
    if (IsLive(b)) {
      block.size = b.size;
      block.lifetimes.push_back(HeapTimeInterval{b.lower, b.upper - 1});
    } else {
      block.size = 0;
      block.lifetimes.push_back(HeapTimeInterval{b.lower, b.lower});
    }
    problem.blocks.push_back(std::move(block));
  }
  return problem;
}

int64_t PackingLowerBound(const PackingInstance& instance) {
  return HeapPackingLowerBound(ToHeapPackingProblem(instance));
}

absl::Status ValidatePacking(const PackingInstance& instance, absl::Span<const int64_t> offsets,
                             int64_t alignment) {
  if (offsets.size() != instance.buffers.size()) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", instance.buffers.size(),
                                                   " offsets, got ", offsets.size()));
  }
  absl::Status status = ValidateHeapPacking(ToHeapPackingProblem(instance, alignment), offsets);
  if (!status.ok()) return absl::InvalidArgumentError(status.message());
  return absl::OkStatus();
}

std::vector<std::string> PackingAlgorithmNames() {
  return {"best",          "best-fit",       "best-fit-temporal",
          "best-fit-spatial-temporal",       "lowest-offset",
          "lowest-offset-temporal",          "lowest-offset-spatial-temporal",
          "fast-merge",    "fast-split",     "packing-search",
          "tight"};
}

namespace {

using IndexHeap = HeapAlgorithm<int64_t>;

std::unique_ptr<IndexHeap> MakeConstrained(PackingStrategy strategy, ChunkPlacement placement,
                                           int64_t alignment) {
  return std::make_unique<ConstrainedGlobalDecreasingSizeBestFitHeap<int64_t>>(
      std::numeric_limits<uint64_t>::max(), alignment, strategy, nullptr, placement);
}

absl::StatusOr<std::unique_ptr<IndexHeap>> MakePackingAlgorithm(std::string_view name,
                                                                int64_t alignment) {
  using PS = PackingStrategy;
  using CP = ChunkPlacement;
  if (name == "best-fit") {
    return std::unique_ptr<IndexHeap>(
        std::make_unique<GlobalDecreasingSizeBestFitHeap<int64_t>>(alignment, PS::kSpatial));
  }
  if (name == "best-fit-temporal") return MakeConstrained(PS::kTemporal, CP::kBestFit, alignment);
  if (name == "best-fit-spatial-temporal") {
    return MakeConstrained(PS::kSpatialTemporal, CP::kBestFit, alignment);
  }
  if (name == "lowest-offset") return MakeConstrained(PS::kSpatial, CP::kLowestOffset, alignment);
  if (name == "lowest-offset-temporal") {
    return MakeConstrained(PS::kTemporal, CP::kLowestOffset, alignment);
  }
  if (name == "lowest-offset-spatial-temporal") {
    return MakeConstrained(PS::kSpatialTemporal, CP::kLowestOffset, alignment);
  }
  if (name == "fast-merge") return MakeConstrained(PS::kFastMerge, CP::kBestFit, alignment);
  if (name == "fast-split") return MakeConstrained(PS::kFastSplit, CP::kBestFit, alignment);
  if (name == "packing-search") return CreateHeapWithPackingSearch<int64_t>(alignment);
  if (name == "tight") {
    return std::unique_ptr<IndexHeap>(std::make_unique<TightPackingHeap<int64_t>>(alignment));
  }
  if (name == "best") {
    std::vector<std::unique_ptr<IndexHeap>> candidates;
    // XLA's packing-search order, then the tight packer.
    for (CP placement : {CP::kBestFit, CP::kLowestOffset}) {
      for (PS strategy : {PS::kSpatial, PS::kTemporal, PS::kSpatialTemporal}) {
        candidates.push_back(MakeConstrained(strategy, placement, alignment));
      }
    }
    candidates.push_back(std::make_unique<TightPackingHeap<int64_t>>(alignment));
    return std::unique_ptr<IndexHeap>(
        std::make_unique<ChooseBestHeapAlgorithm<int64_t>>(std::move(candidates)));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown packing algorithm '", std::string(name),
                                                 "'; known: ",
                                                 absl::StrJoin(PackingAlgorithmNames(), ", ")));
}

// Feeds the instance to `heap` in heap-simulator order.
void ReplayInstance(const PackingInstance& instance, IndexHeap& heap) {
  // time -> (kind 0 = alloc / 1 = free, sort keys, index)
  struct Event {
    int64_t time;
    int kind;
    int64_t key1;
    int64_t key2;
    int64_t index;
  };
  std::vector<Event> events;
  for (int64_t i = 0; i < static_cast<int64_t>(instance.buffers.size()); ++i) {
    const PackingBuffer& b = instance.buffers[i];
    if (!IsLive(b)) continue;
    events.push_back({b.lower, 0, b.upper, 0, i});
    events.push_back({b.upper - 1, 1, b.lower, b.upper, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.time, a.kind, a.key1, a.key2, a.index) <
           std::tie(b.time, b.kind, b.key1, b.key2, b.index);
  });
  for (const Event& event : events) {
    const int64_t size = instance.buffers[event.index].size;
    if (event.kind == 0) {
      heap.Alloc(event.index, size);
    } else {
      heap.Free(event.index, size);
    }
  }
}

}  // namespace

absl::StatusOr<PackingResult> PackBuffers(const PackingInstance& instance,
                                          std::string_view algorithm, int64_t alignment) {
  if (alignment <= 0) return absl::InvalidArgumentError("alignment must be positive");
  PackingResult result;
  result.algorithm = std::string(algorithm);
  const auto begin = std::chrono::steady_clock::now();
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<IndexHeap> heap, MakePackingAlgorithm(algorithm, alignment));
  ReplayInstance(instance, *heap);
  HMO_ASSIGN_OR_RETURN(HeapSimulatorResult<int64_t> placed, heap->Finish());
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  result.offsets.assign(instance.buffers.size(), 0);
  // Several heaps (constrained algorithms) are stacked end to end.
  int64_t base = 0;
  for (const HeapResult<int64_t>& heap_result : placed.heap_results) {
    for (const auto& [index, chunk] : heap_result.chunk_map) {
      result.offsets[index] = chunk.size == 0 ? 0 : base + chunk.offset;
    }
    base = AlignHeapOffsetUp(base + heap_result.heap_size, alignment);
  }
  for (size_t i = 0; i < instance.buffers.size(); ++i) {
    if (!IsLive(instance.buffers[i])) continue;
    result.height = std::max(result.height, result.offsets[i] + instance.buffers[i].size);
  }
  result.lower_bound = PackingLowerBound(instance);
  HMO_RETURN_IF_ERROR(ValidatePacking(instance, result.offsets, alignment));
  return result;
}

}  // namespace hmo
