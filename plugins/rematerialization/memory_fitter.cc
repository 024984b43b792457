#include "memory_fitter.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>
#include <variant>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "fmt/format.h"
#include "hmo/analysis/flop_count.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_live_range.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/analysis/rematerialization_rules.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/instruction_source.h"
#include "host_offload_choice.h"
#include "loop_state_offload.h"
#include "peak_crossing.h"
#include "rematerialization_block.h"
#include "rematerialization_floor.h"
#include "spdlog/spdlog.h"

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

// One change, with its estimate and cost.
struct Change {
  std::variant<RematerializationBlock, HostOffloadChoice, LoopStateOffload> what;
  int64_t estimated_freed_bytes = 0;
  double seconds = 0;

  const RematerializationBlock* block() const { return std::get_if<RematerializationBlock>(&what); }
  const HostOffloadChoice* offload() const { return std::get_if<HostOffloadChoice>(&what); }
  const LoopStateOffload* loop_offload() const { return std::get_if<LoopStateOffload>(&what); }
  MemoryFitMetrics::Decision::Kind kind() const {
    return block() != nullptr ? MemoryFitMetrics::Decision::Kind::kRecompute
                              : MemoryFitMetrics::Decision::Kind::kOffload;
  }
  // The instruction it recomputes or offloads (a loop's stacks: the loop
  // that writes them, else the one that reads them), in `module` as it is
  // before the change; null when the names do not resolve.
  const HloInstruction* Value(const HloModule& module) const {
    const HloComputation* computation = module.GetComputationWithName(this->computation());
    if (computation == nullptr) return nullptr;
    std::string name;
    if (block() != nullptr) {
      name = block()->value();
    } else if (offload() != nullptr) {
      name = offload()->value;
    } else if (!loop_offload()->stacks.empty()) {
      const LoopStateOffload::Stack& stack = loop_offload()->stacks.front();
      name = stack.writer.empty() ? stack.reader : stack.writer;
    }
    return computation->GetInstructionWithName(name);
  }
  const std::string& computation() const {
    return std::visit([](const auto& change) -> const std::string& { return change.computation; },
                      what);
  }
  std::string ToString() const {
    return std::visit([](const auto& change) { return change.ToString(); }, what);
  }
  int64_t flops() const { return block() != nullptr ? block()->flops : 0; }
  // To host and back (a loop's stack: each slice once each way).
  int64_t transferred_bytes() const {
    if (offload() != nullptr) return 2 * offload()->bytes;
    return loop_offload() != nullptr ? 2 * loop_offload()->bytes() : 0;
  }
  absl::Status Apply(HloModule& module) const {
    if (block() != nullptr) return ApplyRematerializationBlock(module, *block()).status();
    if (offload() != nullptr) return ApplyHostOffloadChoice(module, *offload()).status();
    return ApplyLoopStateOffload(module, *loop_offload());
  }
  // Bytes freed per second of cost; a change that costs nothing (a move)
  // ranks by its bytes alone, above every change that costs.
  double Rank() const {
    return static_cast<double>(estimated_freed_bytes) / std::max(seconds, 1e-15);
  }
};

// How a search ranks changes: by bytes freed per second of cost (the
// cheapest way), or by bytes freed alone (the fallback when the cheapest
// way runs into a dead end: the most memory first).
enum class Ranking { kBytesPerSecond, kBytes };

std::vector<Change> FindChanges(const HloModule& module, const std::vector<PeakSite>& sites,
                                const MemoryFitterOptions& options, Ranking ranking) {
  std::vector<Change> changes;
  const BackendCostRates& rates = options.rates;
  for (const PeakSite& site : sites) {
    if (options.recompute) {
      for (RematerializationBlock& block : FindRematerializationBlocks(
               module, *site.computation, site.position, options.max_block_size)) {
        const double seconds =
            static_cast<double>(block.flops) / rates.flops_per_second +
            static_cast<double>(block.bytes_written) / rates.device_memory_bytes_per_second;
        const int64_t freed = block.estimated_freed_bytes;
        changes.push_back({std::move(block), freed, seconds});
      }
    }
    if (options.offload) {
      for (HostOffloadChoice& choice :
           FindHostOffloadChoices(module, *site.computation, site.position)) {
        const double seconds =
            2.0 * static_cast<double>(choice.bytes) / rates.host_transfer_bytes_per_second;
        const int64_t freed = choice.bytes;
        changes.push_back({std::move(choice), freed, seconds});
      }
      for (LoopStateOffload& stacks : FindLoopStateOffloads(module, *site.computation)) {
        const int64_t freed = stacks.bytes();
        const double seconds =
            2.0 * static_cast<double>(freed) / rates.host_transfer_bytes_per_second;
        changes.push_back({std::move(stacks), freed, seconds});
      }
    }
  }
  // Best rank first; ties by more bytes freed (stable: the sites' order).
  std::stable_sort(changes.begin(), changes.end(), [ranking](const Change& a, const Change& b) {
    if (ranking == Ranking::kBytes) {
      return std::make_tuple(-a.estimated_freed_bytes, a.seconds) <
             std::make_tuple(-b.estimated_freed_bytes, b.seconds);
    }
    return std::make_tuple(-a.Rank(), -a.estimated_freed_bytes) <
           std::make_tuple(-b.Rank(), -b.estimated_freed_bytes);
  });
  return changes;
}

// What a step compares, most important first: the device bytes, then the
// temporaries' peak, then how many moments reach it.
using Measure = std::tuple<int64_t, int64_t, int64_t>;

Measure MeasureOf(const MemoryLimitCheck& check) {
  return {check.device_bytes, check.peak_temp_bytes, check.peak_moments};
}

// The gain of `after` over `before` on the first part of the measure that
// differs (positive: better): (which part, by how much).
std::pair<int, int64_t> GainOf(const Measure& before, const Measure& after) {
  if (std::get<0>(after) != std::get<0>(before))
    return {0, std::get<0>(before) - std::get<0>(after)};
  if (std::get<1>(after) != std::get<1>(before))
    return {1, std::get<1>(before) - std::get<1>(after)};
  return {2, std::get<2>(before) - std::get<2>(after)};
}

// `change` applied to a copy of `module` and measured with `options`;
// null when it does not apply after all (a pattern its finder let through).
absl::StatusOr<std::unique_ptr<MemoryLimitCheck>> MeasureChange(
    const HloModule& module, const Change& change, int64_t limit,
    const MemoryReportOptions& options) {
  std::unique_ptr<HloModule> trial = module.Clone();
  if (const absl::Status applied = change.Apply(*trial); !applied.ok()) {
    spdlog::debug("fit: {} not applied: {}", change.ToString(), std::string(applied.message()));
    return nullptr;
  }
  HMO_ASSIGN_OR_RETURN(MemoryLimitCheck check, CheckMemoryLimit(*trial, limit, options));
  return std::make_unique<MemoryLimitCheck>(std::move(check));
}

// Whether `check` (a packing on a budget) may fit its limit under a
// larger budget: it fits, or the temporaries' peak, which no packing goes
// below, does.
bool MayFit(const MemoryLimitCheck& check) {
  return check.fits() ||
         check.device_bytes - check.stats.temp_size_in_bytes + check.peak_temp_bytes <= check.limit;
}

// The changes a step measures: the best-ranked ones and those freeing the
// most bytes, `count` of each.
std::vector<int> Shortlist(const std::vector<Change>& changes, int64_t count) {
  std::vector<int> shortlist;
  for (int i = 0; i < static_cast<int>(changes.size()) && i < count; ++i) shortlist.push_back(i);
  std::vector<int> by_bytes(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) by_bytes[i] = static_cast<int>(i);
  std::stable_sort(by_bytes.begin(), by_bytes.end(), [&](int a, int b) {
    return changes[a].estimated_freed_bytes > changes[b].estimated_freed_bytes;
  });
  for (int i = 0; i < static_cast<int>(by_bytes.size()) && i < count; ++i) {
    if (std::find(shortlist.begin(), shortlist.end(), by_bytes[i]) == shortlist.end()) {
      shortlist.push_back(by_bytes[i]);
    }
  }
  return shortlist;
}

// What sets the floor, for the user.
// Why a temporary live at the peak is still there after the search, in the
// terms of its changes: how it meets the peak in its computation.
std::string WhyItStays(const HloModule& module, const std::vector<PeakSite>& sites,
                       const MemoryFitterOptions& options, const PeakValue& value) {
  if (value.index != "{}") {
    return absl::StrCat("an element of ", value.instruction,
                        "'s tuple (loop state or a tuple result): the search recomputes and "
                        "offloads whole arrays only");
  }
  for (const PeakSite& site : sites) {
    const HloInstruction* instruction = site.computation->GetInstructionWithName(value.instruction);
    if (instruction == nullptr) continue;
    const HloInstructionSequence& sequence = module.schedule().sequence(site.computation);
    const SequencePositions positions = PositionsIn(sequence);
    const int64_t position = positions.at(instruction);
    const std::string& peak = sequence.instructions()[site.position]->name();
    if (position == site.position) return absl::StrCat("computed at the peak (", peak, ")");
    if (position > site.position) return "defined after the peak instruction of its computation";
    bool read_at_peak = false, read_after = false;
    for (const HloInstruction* user : instruction->users()) {
      read_at_peak |= positions.at(user) == site.position;
      read_after |= positions.at(user) > site.position;
    }
    if (read_at_peak) return absl::StrCat("read at the peak, by ", peak);
    if (!read_after) {
      return "not read after the peak: its buffer is live for a value that shares it "
             "(an in-place update, a bitcast, a tuple)";
    }
    if (const std::optional<std::string> why = WhyNotRematerializable(*instruction);
        why.has_value() && !options.offload) {
      return absl::StrCat("crosses the peak; not recomputable (", *why, ") and offload is off");
    }
    const char* changes = options.recompute && options.offload ? "recomputing or offloading"
                          : options.recompute                  ? "recomputing"
                                                               : "offloading";
    return absl::StrCat("crosses the peak, but ", changes, " it measured no lower");
  }
  return value.reason;
}

void ExplainWhyTheyStay(const HloModule& module, const std::vector<PeakSite>& sites,
                        const MemoryFitterOptions& options, MemoryLimitCheck& check) {
  for (PeakValue& value : check.live_at_peak) {
    if (value.kind == AllocationKind::kTemp)
      value.reason = WhyItStays(module, sites, options, value);
  }
}

}  // namespace

std::string_view MemoryFitMetrics::Decision::kind_name() const {
  switch (kind) {
    case Kind::kRecompute:
      return "recompute";
    case Kind::kOffload:
      return "offload";
  }
  return "?";
}

std::string MemoryFitMetrics::Decision::SourceText() const {
  std::string text;
  if (!op_name.empty()) absl::StrAppend(&text, "; op ", op_name);
  if (source.empty()) return absl::StrCat(text, "; no source in the module's metadata");
  // Fused ops of the value's own line alone add nothing to its name.
  if (std::any_of(fused_sources.begin(), fused_sources.end(),
                  [this](const std::string& fused) { return fused != source; })) {
    absl::StrAppend(&text, "; ", FusedSourcesText(fused_sources));
  }
  return absl::StrCat(text, "; made at ", source);
}

std::string MemoryFitMetrics::ToString() const {
  std::string text;
  for (size_t i = 0; i < decisions.size(); ++i) {
    const Decision& decision = decisions[i];
    absl::StrAppend(
        &text, fmt::format("step {}: {} {} in {}: device {} -> {} B, {} FLOPs, {} B transferred, "
                           "~{:.3g} s ({} measured){}\n",
                           i + 1, decision.kind_name(), decision.change, decision.computation,
                           decision.device_bytes_before, decision.device_bytes_after,
                           decision.flops, decision.transferred_bytes, decision.seconds,
                           decision.evaluated, decision.SourceText()));
  }
  const double share = module_flops > 0 ? 100.0 * static_cast<double>(recompute_flops) /
                                              static_cast<double>(module_flops)
                                        : 0.0;
  absl::StrAppend(
      &text,
      fmt::format(
          "limit {} B: device {} -> {} B ({}, ranked by {}); floor >= {} B ({}); {} changes, "
          "{} FLOPs recomputed ({:.2f}% of the module's {}), {} B offloaded; "
          "~{:.3g} s added; {:.3f} s",
          limit, device_bytes_before, device_bytes_after, fits ? "fits" : "does not fit", ranking,
          floor_bytes, floor_instruction.empty() ? "arguments and outputs" : floor_instruction,
          decisions.size(), recompute_flops, share, module_flops, offloaded_bytes, cost_seconds,
          seconds));
  return text;
}

std::string MemoryFitMetrics::FailureMessage() const {
  const std::string floor =
      floor_bytes > limit
          ? fmt::format("the limit is below the proven floor of {} B ({}): nothing can fit it",
                        floor_bytes, floor_reason)
          : fmt::format("the proven floor is {} B ({}); no change found lowers the peak further",
                        floor_bytes, floor_reason);
  return fmt::format("cannot fit the limit after {} changes (device {} -> {} B): {}\n{}",
                     decisions.size(), device_bytes_before, device_bytes_after, floor, limit_check);
}

namespace {

// One search on `module` in `ranking` order (the loop of memory_fitter.h).
// `limit` is in the module's terms when `floor_padding` is 0, else in the
// target's, whose floor is the module's plus that padding
// (ArenaPaddingOfArgumentsAndOutputs).
absl::StatusOr<MemoryFitMetrics> Search(HloModule& module, int64_t limit,
                                        const MemoryFitterOptions& options, Ranking ranking,
                                        int64_t floor_padding) {
  MemoryFitMetrics metrics;
  metrics.ranking = ranking == Ranking::kBytes ? "bytes freed" : "bytes freed per second";
  metrics.limit = limit;
  metrics.module_flops = FlopCount(*module.entry_computation());
  // The module measured as the target's executable packs it.
  const MemoryReportOptions& full_options = options.model.assignment;
  HMO_ASSIGN_OR_RETURN(MemoryLimitCheck check, CheckMemoryLimit(module, limit, full_options));
  metrics.device_bytes_before = check.device_bytes;
  HMO_ASSIGN_OR_RETURN(const RematerializationFloor floor,
                       ComputeRematerializationFloor(module, check.stats));
  metrics.floor_bytes = floor.bytes + floor_padding;
  metrics.floor_instruction = floor.instruction;
  metrics.floor_reason = floor.reason;
  if (floor_padding > 0) {
    absl::StrAppend(&metrics.floor_reason, ", plus the ", floor_padding, " B by which the ",
                    options.model.DisplayName(),
                    " executable's arena pads the arguments' and outputs' allocations");
  }

  MemoryReportOptions trial_options = full_options;
  trial_options.tight_packing.node_budget = options.trial_node_budget;
  // Below the floor nothing fits: no search, just the reasons.
  const int64_t max_steps = limit < metrics.floor_bytes ? 0 : options.max_steps;
  for (int64_t step = 0; step < max_steps && !check.fits(); ++step) {
    HMO_ASSIGN_OR_RETURN(const std::vector<PeakSite> sites, LocatePeak(module, check.peak_time));
    const std::vector<Change> changes = FindChanges(module, sites, options, ranking);
    if (changes.empty()) break;

    const Measure before = MeasureOf(check);
    int chosen = 0;
    int64_t evaluated = 0;
    if (options.evaluate) {
      // One that meets the limit alone, at the least cost; else the best
      // gain per second on the first part of the measure any improves.
      // (Trials pack with a smaller budget; a step that may fit is measured
      // again with the full one, and the loop goes on if it no longer fits.)
      int best_fitting = -1;
      int best = -1;
      int best_level = 3;
      double best_ratio = 0;
      const std::vector<int> shortlist = Shortlist(changes, options.evaluated_candidates);
      const size_t batch_size = static_cast<size_t>(std::max<int64_t>(1, options.threads));
      bool stop = false;
      for (size_t begin = 0; begin < shortlist.size() && !stop; begin += batch_size) {
        // A batch measured at once, then read in order as if measured one
        // by one (the same choice whatever the batch size).
        const size_t end = std::min(begin + batch_size, shortlist.size());
        std::vector<absl::StatusOr<std::unique_ptr<MemoryLimitCheck>>> trials(end - begin);
        const auto measure = [&](size_t i) {
          trials[i - begin] = MeasureChange(module, changes[shortlist[i]], limit, trial_options);
        };
        if (end - begin == 1) {
          measure(begin);
        } else {
          std::vector<std::thread> workers;
          for (size_t i = begin; i < end; ++i) workers.emplace_back(measure, i);
          for (std::thread& worker : workers) worker.join();
        }
        for (size_t i = begin; i < end && !stop; ++i) {
          const int index = shortlist[i];
          HMO_ASSIGN_OR_RETURN(const std::unique_ptr<MemoryLimitCheck> trial_check,
                               std::move(trials[i - begin]));
          if (trial_check == nullptr) continue;
          ++evaluated;
          const double seconds = changes[index].seconds;
          if (trial_check->fits()) {
            if (best_fitting < 0 || seconds < changes[best_fitting].seconds) best_fitting = index;
            continue;
          }
          if (best_fitting >= 0) continue;
          const auto [level, gain] = GainOf(before, MeasureOf(*trial_check));
          if (gain <= 0) continue;
          const double ratio = ranking == Ranking::kBytes
                                   ? static_cast<double>(gain)
                                   : static_cast<double>(gain) / std::max(seconds, 1e-15);
          if (level < best_level || (level == best_level && ratio > best_ratio)) {
            best_level = level;
            best_ratio = ratio;
            best = index;
          }
          // Measured at least its estimate: the changes after it rank lower,
          // so they would have to beat their own estimates to win. Take it.
          stop = best == index && level == 0 && gain >= changes[index].estimated_freed_bytes;
        }
      }
      chosen = best_fitting >= 0 ? best_fitting : best;
      if (chosen < 0) break;  // nothing lowers the measure any more
    }
    const Change& change = changes[chosen];
    MemoryFitMetrics::Decision decision;
    decision.kind = change.kind();
    decision.computation = change.computation();
    decision.change = change.ToString();
    // Named before the change: a recomputation moves the value's uses.
    if (const HloInstruction* value = change.Value(module); value != nullptr) {
      decision.source = InstructionSource(*value);
      decision.op_name = InstructionOpName(*value);
      decision.fused_sources = FusedSources(*value);
    }
    HMO_RETURN_IF_ERROR(change.Apply(module));
    // Measured as the trials are, so that the next step's gains compare
    // like with like; with the full budget (the pipeline's check) when it
    // may fit: the trial packing fits, or its lower bound does.
    HMO_ASSIGN_OR_RETURN(MemoryLimitCheck next, CheckMemoryLimit(module, limit, trial_options));
    if (MayFit(next)) {
      HMO_ASSIGN_OR_RETURN(next, CheckMemoryLimit(module, limit, full_options));
    }
    decision.device_bytes_before = check.device_bytes;
    decision.device_bytes_after = next.device_bytes;
    decision.flops = change.flops();
    decision.transferred_bytes = change.transferred_bytes();
    decision.seconds = change.seconds;
    decision.evaluated = evaluated;
    metrics.decisions.push_back(std::move(decision));
    metrics.recompute_flops += change.flops();
    metrics.offloaded_bytes += change.transferred_bytes() / 2;
    metrics.cost_seconds += change.seconds;
    const bool progressed = MeasureOf(next) < before;
    check = std::move(next);
    if (options.progress != nullptr) {
      options.progress->Update(absl::StrCat("fit (", metrics.ranking, ")"), step + 1, 0,
                               absl::StrCat("device ", check.device_bytes, " B against the limit ",
                                            limit, " B (floor ", metrics.floor_bytes, " B)"));
    }
    // The estimate was wrong about this peak; the greedy choice stops.
    if (!options.evaluate && !progressed) break;
  }
  if (!metrics.decisions.empty() && !check.fits()) {
    HMO_ASSIGN_OR_RETURN(check, CheckMemoryLimit(module, limit, full_options));
  }
  metrics.device_bytes_after = check.device_bytes;
  metrics.fits = check.fits();
  if (!check.fits()) {
    HMO_ASSIGN_OR_RETURN(const std::vector<PeakSite> sites, LocatePeak(module, check.peak_time));
    ExplainWhyTheyStay(module, sites, options, check);
  }
  metrics.limit_check = check.Describe();
  return metrics;
}

}  // namespace

namespace {

// The searches measure the module as written under the target's assignment
// options; what its executable allocates adds the preparation's copies and
// expanded fusions and the arena layout. That figure decides: while it is
// over the limit although the module's own fits, search on from here with
// the limit lowered by what the target adds, a few rounds. Leaves in
// `metrics` the target's figure and its check.
absl::Status FitTargetArenas(HloModule& module, int64_t limit, const MemoryFitterOptions& options,
                             int64_t floor_padding, MemoryFitMetrics& metrics) {
  constexpr int kRounds = 4;
  HMO_ASSIGN_OR_RETURN(MemoryLimitCheck planned,
                       CheckTargetMemoryLimit(module, limit, options.model));
  for (int round = 0; round < kRounds && !planned.fits() && metrics.fits; ++round) {
    // What the target adds over the searches' own measure of the module.
    HMO_ASSIGN_OR_RETURN(const MemoryLimitCheck searched,
                         CheckMemoryLimit(module, limit, options.model.assignment));
    const int64_t lowered =
        limit - std::max<int64_t>(1, planned.device_bytes - searched.device_bytes);
    if (lowered < metrics.floor_bytes - floor_padding) break;
    HMO_ASSIGN_OR_RETURN(MemoryFitMetrics more,
                         Search(module, lowered, options, Ranking::kBytesPerSecond, 0));
    metrics.decisions.insert(metrics.decisions.end(), more.decisions.begin(), more.decisions.end());
    metrics.recompute_flops += more.recompute_flops;
    metrics.offloaded_bytes += more.offloaded_bytes;
    metrics.cost_seconds += more.cost_seconds;
    metrics.fits = more.fits;
    HMO_ASSIGN_OR_RETURN(planned, CheckTargetMemoryLimit(module, limit, options.model));
  }
  metrics.device_bytes_after = planned.device_bytes;
  metrics.fits = planned.fits();
  if (!planned.fits()) {
    HMO_ASSIGN_OR_RETURN(const std::vector<PeakSite> sites, LocatePeak(module, planned.peak_time));
    ExplainWhyTheyStay(module, sites, options, planned);
  }
  metrics.limit_check = planned.Describe();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MemoryFitMetrics> FitModuleToMemoryLimit(HloModule& module, int64_t limit,
                                                        const MemoryFitterOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  absl::Cleanup progress_done = [&options] {
    if (options.progress != nullptr) options.progress->Done();
  };
  if (!module.has_schedule()) {
    return absl::FailedPreconditionError(
        "the module has no schedule: recomputations and host copies are placed in a schedule "
        "(run memory-scheduler first)");
  }
  // The cheapest way first. When it stops short, other searches from the
  // module as it came, until one fits: the same order measuring more
  // candidates per step (a greedy step that frees the most now can block
  // the changes that free more later; measuring more sees past that), the
  // most memory first, then (with both kinds) offload alone, which never
  // extends an operand's life. The best result stays.
  struct Attempt {
    Ranking ranking;
    bool recompute;
    int64_t evaluated_candidates;
    std::string name;
  };
  constexpr int64_t kWiderSearch = 4;
  std::vector<Attempt> fallbacks;
  if (options.fallback) {
    if (options.evaluate) {
      const int64_t wider = options.evaluated_candidates * kWiderSearch;
      fallbacks.push_back(
          {Ranking::kBytesPerSecond, options.recompute, wider,
           absl::StrCat("bytes freed per second, ", wider, " candidates measured")});
    }
    fallbacks.push_back(
        {Ranking::kBytes, options.recompute, options.evaluated_candidates, "bytes freed"});
    if (options.recompute && options.offload) {
      fallbacks.push_back({Ranking::kBytesPerSecond, false, options.evaluated_candidates,
                           "bytes freed per second, offload only"});
    }
  }
  HMO_ASSIGN_OR_RETURN(const MemoryLimitCheck before,
                       CheckTargetMemoryLimit(module, limit, options.model));
  HMO_ASSIGN_OR_RETURN(const int64_t floor_padding,
                       ArenaPaddingOfArgumentsAndOutputs(module, options.model));
  std::unique_ptr<HloModule> original = fallbacks.empty() ? nullptr : module.Clone();
  HMO_ASSIGN_OR_RETURN(MemoryFitMetrics metrics,
                       Search(module, limit, options, Ranking::kBytesPerSecond, floor_padding));
  const int64_t first_reached = metrics.device_bytes_after;
  for (const Attempt& attempt : fallbacks) {
    if (metrics.fits || limit < metrics.floor_bytes) break;
    std::unique_ptr<HloModule> candidate = original->Clone();
    MemoryFitterOptions attempt_options = options;
    attempt_options.recompute = attempt.recompute;
    attempt_options.evaluated_candidates = attempt.evaluated_candidates;
    HMO_ASSIGN_OR_RETURN(MemoryFitMetrics result, Search(*candidate, limit, attempt_options,
                                                         attempt.ranking, floor_padding));
    if (!result.fits && result.device_bytes_after >= metrics.device_bytes_after) continue;
    result.ranking = absl::StrCat(attempt.name, " (by bytes freed per second it stopped at ",
                                  first_reached, " B)");
    module.ReplaceContentsWith(std::move(candidate));
    metrics = std::move(result);
  }
  HMO_RETURN_IF_ERROR(FitTargetArenas(module, limit, options, floor_padding, metrics));
  metrics.device_bytes_before = before.device_bytes;
  metrics.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return metrics;
}

}  // namespace hmo
