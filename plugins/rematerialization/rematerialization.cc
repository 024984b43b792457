#include "rematerialization.h"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fmt/format.h"
#include "hmo/analysis/byte_size.h"
#include "hmo/analysis/flop_count.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_live_range.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/pass_context.h"
#include "rematerialization_block.h"
#include "rematerialization_floor.h"

namespace hmo {
namespace {

// Where the temporaries peak, in each computation that runs then: the
// computation of the instruction at the peak and every one that calls it,
// with the position in its sequence of the instruction running the peak.
struct PeakSite {
  const HloComputation* computation;
  int64_t position;
};

absl::StatusOr<std::vector<PeakSite>> LocatePeak(const HloModule& module, int64_t peak_time) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloAliasAnalysis> alias, HloAliasAnalysis::Run(&module));
  HMO_ASSIGN_OR_RETURN(
      std::unique_ptr<HloLiveRange> live_range,
      HloLiveRange::Run(module.schedule(), *alias, module.entry_computation(), true));
  std::vector<PeakSite> sites;
  for (const HloComputation* computation : module.computations()) {
    if (computation->IsFusionComputation() ||
        !module.schedule().is_computation_scheduled(computation)) {
      continue;
    }
    auto span = live_range->computation_span_times().find(computation);
    if (span == live_range->computation_span_times().end() || peak_time < span->second.start ||
        peak_time >= span->second.end) {
      continue;
    }
    // A callee is laid out right before the instruction that runs it, so
    // the first instruction at or after the peak is the one running it.
    const std::vector<HloInstruction*>& sequence =
        module.schedule().sequence(computation).instructions();
    for (int64_t i = 0; i < static_cast<int64_t>(sequence.size()); ++i) {
      auto time = live_range->instruction_schedule().find(sequence[i]);
      if (time != live_range->instruction_schedule().end() && time->second >= peak_time) {
        sites.push_back({computation, i});
        break;
      }
    }
  }
  return sites;
}

// What a step compares, most important first: the device bytes, then the
// temporaries' peak, then how many moments reach it.
using Measure = std::tuple<int64_t, int64_t, int64_t>;

Measure MeasureOf(const MemoryLimitCheck& check) {
  return {check.device_bytes, check.peak_temp_bytes, check.peak_moments};
}

// Recompute cost: FLOPs plus the bytes the recomputation writes (so that
// data movement, 0 FLOPs, is not free).
double CostOf(const RematerializationBlock& block) {
  return static_cast<double>(block.flops) + static_cast<double>(block.bytes_written) + 1.0;
}

double EstimatedRank(const RematerializationBlock& block) {
  return static_cast<double>(block.estimated_freed_bytes) / CostOf(block);
}

// The gain of `after` over `before` on the first part of the measure that
// differs (positive: better); 0 when equal.
std::pair<int, int64_t> GainOf(const Measure& before, const Measure& after) {
  if (std::get<0>(after) != std::get<0>(before))
    return {0, std::get<0>(before) - std::get<0>(after)};
  if (std::get<1>(after) != std::get<1>(before))
    return {1, std::get<1>(before) - std::get<1>(after)};
  return {2, std::get<2>(before) - std::get<2>(after)};
}

// What sets the floor, for the user.
std::string FloorReason(const std::string& instruction) {
  if (instruction.empty()) return "the arguments and outputs";
  return absl::StrCat("the undonated arguments, plus the operands and result of ", instruction,
                      ", on the device at once");
}

}  // namespace

std::string RematerializationMetrics::ToString() const {
  std::string text;
  for (size_t i = 0; i < decisions.size(); ++i) {
    const Decision& decision = decisions[i];
    absl::StrAppend(&text, fmt::format("step {}: recompute {} in {}: device {} -> {} B, {} FLOPs, "
                                       "{} B written ({} measured)\n",
                                       i + 1, decision.block, decision.computation,
                                       decision.device_bytes_before, decision.device_bytes_after,
                                       decision.flops, decision.bytes_written, decision.evaluated));
  }
  const double share = module_flops > 0 ? 100.0 * static_cast<double>(recompute_flops) /
                                              static_cast<double>(module_flops)
                                        : 0.0;
  absl::StrAppend(
      &text, fmt::format("limit {} B: device {} -> {} B ({}); floor >= {} B ({}); "
                         "{} recomputations, {} FLOPs ({:.2f}% of the module's {}); {:.3f} s",
                         limit, device_bytes_before, device_bytes_after,
                         fits ? "fits" : "does not fit", floor_bytes,
                         floor_instruction.empty() ? "arguments and outputs" : floor_instruction,
                         decisions.size(), recompute_flops, share, module_flops, seconds));
  return text;
}

const PassOptionBinding<RematerializationPass::Options>& RematerializationPass::Binding() {
  static const PassOptionBinding<Options> binding =
      PassOptionBinding<Options>()
          .Option("memory-limit", &Options::memory_limit, "",
                  "device bytes to fit (B/KiB/MiB/GiB/TiB suffixes); empty: the pipeline's "
                  "memory-limit")
          .Enum("selection", &Options::selection, "evaluated", {"evaluated", "estimate"},
                "'evaluated': the best-ranked blocks are each measured by buffer assignment; "
                "'estimate': the best-ranked block is taken (XLA's greedy choice)")
          .Option("max-block-size", &Options::max_block_size, 3,
                  "most instructions recomputed together (a value and operands that would "
                  "otherwise live across the peak)")
          .Option("evaluated-candidates", &Options::evaluated_candidates, 8,
                  "selection=evaluated: blocks measured per step, by rank and by bytes freed")
          .Option("max-steps", &Options::max_steps, 1000, "most rematerializations in one run")
          .Option("trial-node-budget", &Options::trial_node_budget, 10000,
                  "selection=evaluated: branch-and-bound nodes of the temp packing that measures "
                  "a candidate (the chosen step is measured with the full budget, as the "
                  "pipeline's limit check does)")
          .Option("fail-over-limit", &Options::fail_over_limit, true,
                  "fail when the module still does not fit (else leave the check to the "
                  "pipeline's memory limit, or to a later pass)");
  return binding;
}

absl::StatusOr<std::unique_ptr<RematerializationPass>> RematerializationPass::Create(
    const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const Options options, Binding().Read(pass_options));
  std::unique_ptr<RematerializationPass> pass(new RematerializationPass());
  if (!options.memory_limit.empty()) {
    absl::StatusOr<int64_t> limit = ParseByteSize(options.memory_limit);
    if (!limit.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option 'memory-limit': ", limit.status().message()));
    }
    pass->memory_limit_ = *limit;
  }
  pass->evaluate_ = options.selection == "evaluated";
  pass->max_block_size_ = options.max_block_size;
  pass->evaluated_candidates_ = options.evaluated_candidates;
  pass->max_steps_ = options.max_steps;
  pass->fail_over_limit_ = options.fail_over_limit;
  pass->trial_node_budget_ = options.trial_node_budget;
  if (pass->trial_node_budget_ <= 0) {
    return absl::InvalidArgumentError("option 'trial-node-budget' must be positive");
  }
  if (pass->max_block_size_ <= 0) {
    return absl::InvalidArgumentError("option 'max-block-size' must be positive");
  }
  if (pass->evaluated_candidates_ <= 0) {
    return absl::InvalidArgumentError("option 'evaluated-candidates' must be positive");
  }
  if (pass->max_steps_ < 0) return absl::InvalidArgumentError("option 'max-steps' must be >= 0");
  return pass;
}

absl::StatusOr<bool> RematerializationPass::Run(HloModule& module, PassContext& context) {
  const auto start = std::chrono::steady_clock::now();
  const std::optional<int64_t> limit =
      memory_limit_.has_value() ? memory_limit_ : context.memory_limit();
  if (!limit.has_value()) {
    return absl::InvalidArgumentError(
        "no memory limit: give the pass 'memory-limit' or the pipeline 'memory-limit:' "
        "(hmo run --memory-limit SIZE)");
  }
  if (!module.has_schedule()) {
    return absl::FailedPreconditionError(
        "the module has no schedule: rematerialization places recomputations in a schedule "
        "(run memory-scheduler first)");
  }
  metrics_ = RematerializationMetrics();
  metrics_.limit = *limit;
  metrics_.module_flops = FlopCount(*module.entry_computation());
  HMO_ASSIGN_OR_RETURN(MemoryLimitCheck check, CheckMemoryLimit(module, *limit));
  metrics_.device_bytes_before = check.device_bytes;
  const RematerializationFloor floor = ComputeRematerializationFloor(module, check.stats);
  metrics_.floor_bytes = floor.bytes;
  metrics_.floor_instruction = floor.instruction;

  MemoryReportOptions trial_options;
  trial_options.tight_packing.node_budget = trial_node_budget_;
  bool changed = false;
  for (int64_t step = 0; step < max_steps_ && !check.fits(); ++step) {
    HMO_ASSIGN_OR_RETURN(const std::vector<PeakSite> sites, LocatePeak(module, check.peak_time));
    std::vector<RematerializationBlock> blocks;
    for (const PeakSite& site : sites) {
      std::vector<RematerializationBlock> found =
          FindRematerializationBlocks(module, *site.computation, site.position, max_block_size_);
      blocks.insert(blocks.end(), std::make_move_iterator(found.begin()),
                    std::make_move_iterator(found.end()));
    }
    if (blocks.empty()) break;
    // Best rank first; ties by more bytes freed, then by name (determinism).
    std::stable_sort(blocks.begin(), blocks.end(),
                     [](const RematerializationBlock& a, const RematerializationBlock& b) {
                       return std::make_tuple(-EstimatedRank(a), -a.estimated_freed_bytes) <
                              std::make_tuple(-EstimatedRank(b), -b.estimated_freed_bytes);
                     });

    const Measure before = MeasureOf(check);
    int chosen = -1;
    int64_t evaluated = 0;
    if (!evaluate_) {
      chosen = 0;
    } else {
      // The best-ranked blocks and the ones freeing the most.
      std::vector<int> shortlist;
      for (int i = 0; i < static_cast<int>(blocks.size()) && i < evaluated_candidates_; ++i) {
        shortlist.push_back(i);
      }
      std::vector<int> by_bytes(blocks.size());
      for (size_t i = 0; i < blocks.size(); ++i) by_bytes[i] = static_cast<int>(i);
      std::stable_sort(by_bytes.begin(), by_bytes.end(), [&](int a, int b) {
        return blocks[a].estimated_freed_bytes > blocks[b].estimated_freed_bytes;
      });
      for (int i = 0; i < static_cast<int>(by_bytes.size()) && i < evaluated_candidates_; ++i) {
        if (std::find(shortlist.begin(), shortlist.end(), by_bytes[i]) == shortlist.end()) {
          shortlist.push_back(by_bytes[i]);
        }
      }
      // A block reaching the limit alone, at the least cost; else the best
      // gain per cost on the first part of the measure any block improves.
      // (Trials pack with a smaller budget; the step taken is measured again
      // with the full one, and the loop goes on if it no longer fits.)
      int best_fitting = -1;
      double best_fitting_cost = 0;
      int best_level = 3;
      double best_ratio = 0;
      int best = -1;
      for (int index : shortlist) {
        std::unique_ptr<HloModule> trial = module.Clone();
        HMO_RETURN_IF_ERROR(ApplyRematerializationBlock(*trial, blocks[index]).status());
        HMO_ASSIGN_OR_RETURN(MemoryLimitCheck trial_check,
                             CheckMemoryLimit(*trial, *limit, trial_options));
        ++evaluated;
        const double cost = CostOf(blocks[index]);
        if (trial_check.fits()) {
          if (best_fitting < 0 || cost < best_fitting_cost) {
            best_fitting = index;
            best_fitting_cost = cost;
          }
          continue;
        }
        if (best_fitting >= 0) continue;
        const auto [level, gain] = GainOf(before, MeasureOf(trial_check));
        if (gain <= 0) continue;
        const double ratio = static_cast<double>(gain) / cost;
        if (level < best_level || (level == best_level && ratio > best_ratio)) {
          best_level = level;
          best_ratio = ratio;
          best = index;
        }
      }
      chosen = best_fitting >= 0 ? best_fitting : best;
      if (chosen < 0) break;  // nothing lowers the measure any more
    }
    const RematerializationBlock& block = blocks[chosen];
    HMO_RETURN_IF_ERROR(ApplyRematerializationBlock(module, block).status());
    changed = true;
    HMO_ASSIGN_OR_RETURN(MemoryLimitCheck next, CheckMemoryLimit(module, *limit));
    metrics_.decisions.push_back({block.computation, block.ToString(), check.device_bytes,
                                  next.device_bytes, block.flops, block.bytes_written, evaluated});
    metrics_.recompute_flops += block.flops;
    if (!evaluate_ && MeasureOf(next) >= before) {
      // The estimate was wrong about this peak; XLA's greedy choice stops.
      check = std::move(next);
      break;
    }
    check = std::move(next);
  }
  metrics_.device_bytes_after = check.device_bytes;
  metrics_.fits = check.fits();
  metrics_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  context.Report(metrics_.ToString());
  if (!metrics_.fits && fail_over_limit_) {
    const std::string floor =
        metrics_.floor_bytes > *limit
            ? fmt::format(
                  "the limit is below the proven floor of {} B ({}): no "
                  "rematerialization can fit it",
                  metrics_.floor_bytes, FloorReason(metrics_.floor_instruction))
            : fmt::format(
                  "the proven floor is {} B ({}); no rematerialization found lowers "
                  "the peak further",
                  metrics_.floor_bytes, FloorReason(metrics_.floor_instruction));
    return absl::ResourceExhaustedError(
        fmt::format("cannot fit the limit after {} recomputations (device {} -> {} B): {}\n{}",
                    metrics_.decisions.size(), metrics_.device_bytes_before,
                    metrics_.device_bytes_after, floor, check.Describe()));
  }
  return changed;
}

}  // namespace hmo
