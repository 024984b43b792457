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
#include "hmo/analysis/memory_report.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hmo/analysis/best_fit_constrained_heap.h"
#include "hmo/analysis/heap_choose_best.h"
#include "hmo/analysis/packing_improver.h"
#include "hmo/analysis/tight_packing_heap.h"
#include "hmo/base/status_macros.h"

namespace hmo {

std::string WriteMiniMallocCsv(const PackingInstance& instance, absl::Span<const int64_t> offsets) {
  std::string out = "id,lower,upper,size,offset\n";
  for (size_t i = 0; i < instance.size(); ++i) {
    const HeapCsvBuffer& b = instance[i];
    absl::StrAppend(&out, b.id, ",", b.lower, ",", b.upper, ",", b.size, ",",
                    i < offsets.size() ? offsets[i] : 0, "\n");
  }
  return out;
}

HeapPackingProblem ToHeapPackingProblem(const PackingInstance& instance, int64_t alignment) {
  HeapPackingProblem problem;
  problem.alignment = alignment;
  for (const HeapCsvBuffer& b : instance) {
    HeapPackingBlock block;
    block.size = b.size;
    block.lifetimes.push_back(HeapTimeInterval{b.lower, std::max(b.lower, b.upper - 1)});
    problem.blocks.push_back(std::move(block));
  }
  return problem;
}

int64_t PackingLowerBound(const PackingInstance& instance) {
  return HeapPackingLowerBound(ToHeapPackingProblem(instance));
}

absl::Status ValidatePacking(const PackingInstance& instance, absl::Span<const int64_t> offsets,
                             int64_t alignment) {
  if (offsets.size() != instance.size()) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", instance.size(),
                                                   " offsets, got ", offsets.size()));
  }
  absl::Status status = ValidateHeapPacking(ToHeapPackingProblem(instance, alignment), offsets);
  if (!status.ok()) return absl::InvalidArgumentError(status.message());
  return absl::OkStatus();
}

std::vector<std::string> PackingAlgorithmNames() {
  return {"best-fit-improved",         "best-fit",
          "best-fit-temporal",         "best-fit-spatial-temporal",
          "lowest-offset",             "lowest-offset-temporal",
          "lowest-offset-spatial-temporal", "fast-merge",
          "fast-split",                "packing-search",
          "tight",                     "best"};
}

namespace {

using IndexHeap = HeapAlgorithm<int32_t>;

std::unique_ptr<IndexHeap> MakeConstrained(PackingStrategy strategy, ChunkPlacement placement,
                                           int64_t alignment) {
  return std::make_unique<ConstrainedGlobalDecreasingSizeBestFitHeap<int32_t>>(
      std::numeric_limits<uint64_t>::max(), alignment, strategy, nullptr, placement);
}

absl::StatusOr<std::unique_ptr<IndexHeap>> MakePackingAlgorithm(std::string_view name,
                                                                int64_t alignment) {
  using PS = PackingStrategy;
  using CP = ChunkPlacement;
  if (name == "best-fit" || name == "best-fit-improved") {
    return std::unique_ptr<IndexHeap>(
        std::make_unique<GlobalDecreasingSizeBestFitHeap<int32_t>>(alignment, PS::kSpatial));
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
  if (name == "packing-search") return CreateHeapWithPackingSearch<int32_t>(alignment);
  if (name == "tight") {
    return std::unique_ptr<IndexHeap>(std::make_unique<TightPackingHeap<int32_t>>(alignment));
  }
  if (name == "best") {
    std::vector<std::unique_ptr<IndexHeap>> candidates;
    // XLA's packing-search order, then the tight packer.
    for (CP placement : {CP::kBestFit, CP::kLowestOffset}) {
      for (PS strategy : {PS::kSpatial, PS::kTemporal, PS::kSpatialTemporal}) {
        candidates.push_back(MakeConstrained(strategy, placement, alignment));
      }
    }
    candidates.push_back(std::make_unique<TightPackingHeap<int32_t>>(alignment));
    return std::unique_ptr<IndexHeap>(
        std::make_unique<ChooseBestHeapAlgorithm<int32_t>>(std::move(candidates)));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown packing algorithm '", std::string(name),
                                                 "'; known: ",
                                                 absl::StrJoin(PackingAlgorithmNames(), ", ")));
}

}  // namespace

absl::StatusOr<PackingResult> PackBuffers(const PackingInstance& instance,
                                          std::string_view algorithm, int64_t alignment) {
  if (alignment <= 0 || alignment > kMaxBufferAlignment) {
    return absl::InvalidArgumentError(absl::StrCat(
        "alignment ", alignment, " is out of range: 1 to ", kMaxBufferAlignment, " bytes"));
  }
  PackingResult result;
  result.algorithm = std::string(algorithm);
  const auto begin = std::chrono::steady_clock::now();
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<IndexHeap> heap, MakePackingAlgorithm(algorithm, alignment));
  HeapEventsFromCsvBuffers(instance).Replay(*heap);
  HMO_ASSIGN_OR_RETURN(HeapSimulatorResult<int32_t> placed, heap->Finish());
  result.offsets.assign(instance.size(), 0);
  // Several heaps (constrained algorithms) are stacked end to end.
  int64_t base = 0;
  for (const HeapResult<int32_t>& heap_result : placed.heap_results) {
    for (const auto& [index, chunk] : heap_result.chunk_map) {
      result.offsets[index] = chunk.size == 0 ? 0 : base + chunk.offset;
    }
    base = AlignHeapOffsetUp(base + heap_result.heap_size, alignment);
  }
  if (algorithm == "best-fit-improved") {
    const HeapPackingProblem problem = ToHeapPackingProblem(instance, alignment);
    // The default cap counts from the start of the packing, so best fit's own
    // time is part of it.
    PackingImproverOptions options;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    options.time_limit_seconds = std::max(
        0.25, DefaultPackingImproverSeconds(static_cast<int64_t>(instance.size())) - elapsed);
    const PackingImproverReport report = ImprovePacking(problem, result.offsets, options);
    const auto percent = [&report](int64_t height) {
      return report.lower_bound > 0
                 ? absl::StrFormat("%+.2f%%", 100.0 * static_cast<double>(height - report.lower_bound) /
                                                  static_cast<double>(report.lower_bound))
                 : std::string("");
    };
    result.detail = absl::StrCat("best-fit ", percent(report.initial_height), " -> ", report.method,
                                 " ", percent(report.height), ", ", report.greedy_passes,
                                 " greedy passes, ", report.moves, " moves (", report.accepted_moves,
                                 " kept), work ", report.work,
                                 report.stopped_by_time ? ", stopped by the time cap" : "");
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  for (size_t i = 0; i < instance.size(); ++i) {
    if (instance[i].size == 0) continue;
    result.height = std::max(result.height, result.offsets[i] + instance[i].size);
  }
  result.lower_bound = PackingLowerBound(instance);
  HMO_RETURN_IF_ERROR(ValidatePacking(instance, result.offsets, alignment));
  return result;
}

}  // namespace hmo
