#include "hmo/analysis/tight_packing_solver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <tuple>

#include "hmo/analysis/skyline_placement.h"
#include "hmo/analysis/tight_packing_branch_and_bound.h"
#include "hmo/analysis/tight_packing_greedy.h"
#include "hmo/analysis/tight_packing_repair.h"
#include "hmo/analysis/tight_packing_sweep.h"

namespace hmo {
namespace {

using Clock = std::chrono::steady_clock;

// The lattice every height lies on: gcd of the block sizes (and of the
// alignment, whose padding can shift offsets).
int64_t HeightGranularity(const HeapPackingProblem& problem) {
  int64_t g = problem.alignment > 1 ? problem.alignment : 0;
  for (const HeapPackingBlock& block : problem.blocks) g = std::gcd(g, block.size);
  return std::max<int64_t>(g, 1);
}

// The branch and bound's inputs, on the time-compressed problem: the same
// conflicts, fewer and coarser sections (one per group of simultaneous
// ends).
struct ExactSearch {
  HeapPackingProblem compressed;
  TightPackingSweep sweep;
  std::optional<TightPackingBranchAndBound> search;

  // False when the instance is over the options' size limits.
  bool Build(const HeapPackingProblem& problem, const TightPackingOptions& options) {
    if (static_cast<int64_t>(problem.blocks.size()) > options.exact_max_blocks) return false;
    compressed = CompressHeapPackingTime(problem);
    if (!BuildTightPackingSweep(compressed, options.exact_max_conflict_pairs, sweep)) return false;
    if (sweep.dive_work > options.exact_max_dive_work) return false;
    search.emplace(compressed, sweep, TightPackingLifespans(problem));
    return true;
  }
};

class Solver {
 public:
  Solver(const HeapPackingProblem& problem, const TightPackingOptions& options,
         TightPackingReport& report)
      : problem_(problem), options_(options), report_(report) {
    if (options.time_limit_seconds > 0) {
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options.time_limit_seconds));
    }
  }

  std::vector<int64_t> Run(std::vector<int64_t> initial) {
    report_.lower_bound = HeapPackingLowerBound(problem_);
    best_offsets_ = std::move(initial);
    best_height_ = HeapPackingHeight(problem_, best_offsets_);
    report_.initial_height = best_height_;
    report_.method = "initial";
    if (!Done()) RunGreedy();
    if (!Done()) RunExact();
    if (!Done()) RunRepair();
    EndProgress();
    report_.height = best_height_;
    report_.proven_optimal = report_.proven_optimal || best_height_ <= report_.lower_bound;
    return best_offsets_;
  }

 private:
  bool Done() const {
    return best_height_ <= report_.lower_bound || report_.proven_optimal || TimeUp();
  }
  bool TimeUp() const { return deadline_.has_value() && Clock::now() > *deadline_; }

  void Offer(const std::vector<int64_t>& offsets, int64_t height, const std::string& method) {
    if (height < best_height_) {
      best_height_ = height;
      best_offsets_ = offsets;
      report_.method = method;
    }
  }

  void RunGreedy() {
    ForEachGreedyPlacement(
        [this](const std::string& name, const std::vector<int64_t>& offsets, int64_t height) {
          Offer(offsets, height, name);
          return TimeUp();
        });
  }

  // The greedy placements: each start order placed by best fit and by lowest
  // offset, then the skyline dive in size order (abandoned past a few
  // placements' worth of looks per block; in the other orders it rarely wins
  // and costs as much). Calls take(name, offsets, height) after each until it
  // returns true.
  template <typename Take>
  void ForEachGreedyPlacement(Take take) {
    const BlockOrderKeys keys = ComputeBlockOrderKeys(problem_);
    std::vector<int64_t> offsets;
    for (BlockOrder& order : TightPackingStartOrders(keys)) {
      for (ChunkPlacement placement : {ChunkPlacement::kBestFit, ChunkPlacement::kLowestOffset}) {
        const int64_t height = PlaceBlocksInOrder(problem_, order.order, placement, offsets);
        ++report_.placements;
        const char* how = placement == ChunkPlacement::kBestFit ? "-best-fit" : "-lowest-offset";
        if (take("greedy-" + order.name + how, offsets, height)) return;
      }
    }
    // Two best-fit passes' worth.
    const int64_t skyline_steps =
        2 * kSkylineStepsPerPlacement * static_cast<int64_t>(problem_.blocks.size()) + 1024;
    std::optional<SkylinePlacement> placed =
        PlaceBlocksOnSkyline(problem_, SizeOrder(keys), skyline_steps);
    if (!placed.has_value()) return;
    ++report_.placements;
    take("greedy-size-skyline", placed->offsets, placed->height);
  }

  // Reports `nodes` (all of the solve's so far) of the node budget, searching
  // at `capacity`, when they reached the next multiple of kProgressNodes:
  // many decisions end within fewer nodes.
  void ReportProgress(int64_t nodes, int64_t capacity) {
    if (options_.progress == nullptr || nodes < next_report_) return;
    next_report_ = (nodes / TightPackingBranchAndBound::kProgressNodes + 1) *
                   TightPackingBranchAndBound::kProgressNodes;
    reported_progress_ = true;
    const int64_t bound = report_.lower_bound;
    std::string detail;
    if (deciding_) {
      detail = "deciding capacity " + std::to_string(capacity) + " (lower bound " +
               std::to_string(bound) + ")";
    } else {
      const double over =
          bound > 0 ? 100.0 * static_cast<double>(best_height_ - bound) / bound : 0.0;
      char percent[32];
      std::snprintf(percent, sizeof(percent), "%.2f", over);
      detail = "best height " + std::to_string(best_height_) + " against the lower bound " +
               std::to_string(bound) + " (+" + percent + "%), trying " + std::to_string(capacity);
    }
    options_.progress->Update("tight search", nodes, options_.node_budget, detail);
  }

  // Ends the progress task, when the solve reported one.
  void EndProgress() {
    if (reported_progress_) options_.progress->Done();
    reported_progress_ = false;
  }

  // Round robin over the preorders with doubling node limits, within
  // `budget` nodes.
  TightPackingOutcome DecideRoundRobin(TightPackingBranchAndBound& search, int64_t capacity,
                                       int64_t budget,
                                       std::optional<Clock::time_point> deadline,
                                       std::vector<int64_t>& offsets) {
    if (options_.progress != nullptr) {
      // The nodes of the Decides before this one are in report_.nodes.
      search.set_progress(
          [this, capacity](int64_t nodes) { ReportProgress(report_.nodes + nodes, capacity); });
    }
    int64_t used = 0;
    int64_t limit = std::max<int64_t>(64, static_cast<int64_t>(problem_.blocks.size()));
    while (used < budget) {
      limit *= 2;
      for (const TightPackingPreorder& preorder : preorders_) {
        const int64_t allowed = std::min(limit, budget - used);
        if (allowed <= 0) break;
        const TightPackingOutcome outcome =
            search.Decide(capacity, preorder, allowed, deadline, offsets);
        used += search.nodes();
        report_.nodes += search.nodes();
        ReportProgress(report_.nodes, capacity);
        if (outcome != TightPackingOutcome::kAborted) return outcome;
        if (deadline.has_value() && Clock::now() > *deadline) return TightPackingOutcome::kAborted;
      }
    }
    return TightPackingOutcome::kAborted;
  }

  void RunExact() {
    if (options_.node_budget <= 0) return;
    ExactSearch exact;
    if (!exact.Build(problem_, options_)) return;
    TightPackingBranchAndBound& search = *exact.search;
    const int64_t g = HeightGranularity(problem_);
    int64_t remaining = options_.node_budget;
    std::vector<int64_t> offsets;
    // Runs one decision with `fraction` of the nodes and of the time left.
    auto try_capacity = [&](int64_t capacity, double fraction) {
      const int64_t budget = std::max<int64_t>(
          std::min<int64_t>(remaining, 1000), static_cast<int64_t>(remaining * fraction));
      std::optional<Clock::time_point> step_deadline = deadline_;
      if (deadline_.has_value()) {
        step_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           (*deadline_ - Clock::now()) * fraction);
      }
      const int64_t before = report_.nodes;
      const TightPackingOutcome outcome =
          DecideRoundRobin(search, capacity, budget, step_deadline, offsets);
      remaining -= report_.nodes - before;
      if (outcome == TightPackingOutcome::kFound) {
        Offer(offsets, HeapPackingHeight(problem_, offsets), "branch-and-bound");
      }
      return outcome;
    };
    // 1. Half of everything goes to the lower bound first: where it is
    //    reachable it is the answer, and a binary search step near it is as
    //    expensive as the try itself.
    const int64_t lower_bound = report_.lower_bound;
    TightPackingOutcome at_bound = try_capacity(lower_bound, 0.5);
    if (at_bound == TightPackingOutcome::kFound) {
      report_.proven_optimal = true;
      return;
    }
    // 2. Binary search on the height (multiples of g) between the lower bound
    //    and the best height found, each step with a share of what is left.
    //    Heights up to `refuted` are proven impossible.
    int64_t refuted = at_bound == TightPackingOutcome::kInfeasible ? lower_bound : lower_bound - g;
    int64_t low = lower_bound + g;
    while (!TimeUp() && remaining > 0 && low <= best_height_ - g) {
      const int64_t steps = (best_height_ - g - low) / g;
      const int64_t capacity = low + (steps / 2) * g;
      const TightPackingOutcome outcome = try_capacity(capacity, 1.0 / 6);
      if (outcome == TightPackingOutcome::kFound) continue;  // best_height_ moved down
      if (outcome == TightPackingOutcome::kInfeasible) refuted = std::max(refuted, capacity);
      low = capacity + g;
    }
    if (refuted >= best_height_ - g) {
      report_.proven_optimal = true;
      return;
    }
    // 3. Whatever is left goes to the lower bound again.
    if (!TimeUp() && remaining > 0 && at_bound == TightPackingOutcome::kAborted &&
        best_height_ > lower_bound) {
      if (try_capacity(lower_bound, 1.0) == TightPackingOutcome::kFound) {
        report_.proven_optimal = true;
      }
    }
  }

 public:
  TightPackingDecision Decide(int64_t capacity) {
    deciding_ = true;
    TightPackingDecision decision = DecideCapacity(capacity);
    EndProgress();
    return decision;
  }

 private:
  TightPackingDecision DecideCapacity(int64_t capacity) {
    TightPackingDecision decision;
    decision.lower_bound = HeapPackingLowerBound(problem_);
    report_.lower_bound = decision.lower_bound;
    if (decision.lower_bound > capacity) {
      decision.outcome = TightPackingOutcome::kInfeasible;
      decision.method = "lower-bound";
      return decision;
    }
    // Greedy orders first: they cost nothing next to the search and often
    // fit a loose capacity.
    ForEachGreedyPlacement(
        [&](const std::string& name, const std::vector<int64_t>& offsets, int64_t height) {
          if (height > capacity) return false;
          decision.outcome = TightPackingOutcome::kFound;
          decision.offsets = offsets;
          decision.method = name;
          return true;
        });
    if (decision.outcome == TightPackingOutcome::kFound) return decision;
    std::vector<int64_t> offsets;
    ExactSearch exact;
    if (options_.node_budget <= 0) {
      decision.method = "no node budget";
      return decision;
    }
    if (!exact.Build(problem_, options_)) {
      decision.method = "over the exact search's size limits";
      return decision;
    }
    decision.outcome =
        DecideRoundRobin(*exact.search, capacity, options_.node_budget, deadline_, offsets);
    decision.nodes = report_.nodes;
    switch (decision.outcome) {
      case TightPackingOutcome::kFound:
        decision.offsets = std::move(offsets);
        decision.method = "branch-and-bound";
        break;
      case TightPackingOutcome::kInfeasible:
        decision.method = "branch-and-bound";
        break;
      case TightPackingOutcome::kAborted:
        decision.method = TimeUp() ? "time limit" : "node budget";
        break;
    }
    return decision;
  }

  void RunRepair() {
    if (options_.repair_attempts <= 0) return;
    std::mt19937_64 rng(options_.seed);
    std::vector<int64_t> offsets = best_offsets_;
    const PeakRepairResult repaired =
        RepairPeak(problem_, report_.lower_bound, offsets, options_.repair_attempts, rng, deadline_);
    report_.repair_attempts += repaired.attempts;
    Offer(offsets, repaired.height, report_.method + "+peak-repair");
  }

  const HeapPackingProblem& problem_;
  const TightPackingOptions& options_;
  TightPackingReport& report_;
  std::optional<Clock::time_point> deadline_;
  std::vector<int64_t> best_offsets_;
  int64_t best_height_ = 0;
  std::vector<TightPackingPreorder> preorders_ = TightPackingDefaultPreorders();
  // Progress: a decision (Decide) rather than a solve; whether a report went
  // out.
  bool deciding_ = false;
  bool reported_progress_ = false;
  int64_t next_report_ = TightPackingBranchAndBound::kProgressNodes;
};

}  // namespace

std::vector<int64_t> SolveTightPacking(const HeapPackingProblem& problem,
                                       std::vector<int64_t> initial_offsets,
                                       const TightPackingOptions& options,
                                       TightPackingReport* report) {
  TightPackingReport local;
  Solver solver(problem, options, report != nullptr ? *report : local);
  return solver.Run(std::move(initial_offsets));
}

TightPackingDecision DecideTightPacking(const HeapPackingProblem& problem, int64_t capacity,
                                        const TightPackingOptions& options) {
  TightPackingReport report;
  Solver solver(problem, options, report);
  return solver.Decide(capacity);
}

}  // namespace hmo
