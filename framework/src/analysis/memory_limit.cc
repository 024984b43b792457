#include "hmo/analysis/memory_limit.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hmo/analysis/byte_size.h"
#include "hmo/analysis/rematerialization_rules.h"
#include "hmo/base/status_macros.h"

namespace hmo {
namespace {

// Why a value of `allocation` takes device memory at the peak; for a
// temporary, whether its instruction could be computed again instead.
std::string ReasonFor(const MemoryReportAllocation& allocation,
                      const HloInstruction* instruction = nullptr) {
  if (allocation.kind == AllocationKind::kParameter) {
    return allocation.parameter_aliased_with_output
               ? "parameter donated to an output: its buffer lives for the whole run"
               : "parameter: an argument, in device memory for the whole run";
  }
  if (allocation.kind == AllocationKind::kOutput) return "output: returned by the program";
  if (allocation.kind == AllocationKind::kConstant)
    return "constant: in device memory for the whole run";
  if (instruction != nullptr) {
    if (std::optional<std::string> why = WhyNotRematerializable(*instruction)) {
      return absl::StrCat("temporary, not recomputable: ", *why);
    }
    return "temporary, recomputable from its operands, but nothing in the pipeline "
           "rematerializes it or moves it to the host";
  }
  return "temporary: nothing in the pipeline rematerializes it or moves it to the host";
}

}  // namespace

MemoryLimitCheck CheckMemoryReport(const HloModule& module, const MemoryReport& report,
                                   int64_t limit) {
  MemoryLimitCheck check;
  check.limit = limit;
  check.stats = report.stats;
  check.device_bytes = report.stats.PeakEstimateBytes();

  std::map<int64_t, const MemoryReportAllocation*> allocations;
  for (const MemoryReportAllocation& allocation : report.allocations) {
    allocations[allocation.index] = &allocation;
  }
  // Values that share a slice (a tuple element and its get-tuple-element, a
  // bitcast, an in-place update) occupy its bytes once: the device bytes are
  // counted per slice (allocation, offset, size), over the union of the live
  // ranges of its values.
  struct Slice {
    std::vector<const MemoryReportBuffer*> values;
    std::vector<std::pair<int64_t, int64_t>> live;  // merged, inclusive
  };
  std::map<std::tuple<int64_t, int64_t, int64_t>, Slice> temp_slices;
  // Allocations that hold their bytes for the whole run, and their values.
  std::map<int64_t, std::vector<const MemoryReportBuffer*>> whole_run;
  for (const MemoryReportBuffer& buffer : report.buffers) {
    const MemoryReportAllocation& allocation = *allocations.at(buffer.allocation);
    if (allocation.is_host) continue;
    if (allocation.kind == AllocationKind::kTemp) {
      temp_slices[{buffer.allocation, buffer.offset, buffer.size}].values.push_back(&buffer);
    } else {
      whole_run[buffer.allocation].push_back(&buffer);
    }
  }
  std::vector<std::pair<int64_t, int64_t>> events;  // (time, +size at start / -size after end)
  for (auto& [key, slice] : temp_slices) {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const MemoryReportBuffer* value : slice.values)
      ranges.emplace_back(value->start, value->end);
    std::sort(ranges.begin(), ranges.end());
    for (const auto& range : ranges) {
      if (!slice.live.empty() && range.first <= slice.live.back().second + 1) {
        slice.live.back().second = std::max(slice.live.back().second, range.second);
      } else {
        slice.live.push_back(range);
      }
    }
    const int64_t size = std::get<2>(key);
    for (const auto& [start, end] : slice.live) {
      events.emplace_back(start, size);
      events.emplace_back(end + 1, -size);
    }
  }
  // At one time the ends (negative) come before the starts.
  std::sort(events.begin(), events.end());
  int64_t live = 0;
  for (size_t i = 0; i < events.size();) {
    const int64_t time = events[i].first;
    for (; i < events.size() && events[i].first == time; ++i) live += events[i].second;
    const int64_t next = i < events.size() ? events[i].first : time + 1;
    if (live > check.peak_temp_bytes) {
      check.peak_temp_bytes = live;
      check.peak_time = time;
      check.peak_moments = 0;
    }
    // The level holds from `time` until the next event.
    if (live == check.peak_temp_bytes && live > 0) check.peak_moments += next - time;
  }

  // The values to name: a value live at the peak, else the first.
  auto named = [&](const std::vector<const MemoryReportBuffer*>& values) {
    for (const MemoryReportBuffer* value : values) {
      if (value->start <= check.peak_time && check.peak_time <= value->end) return value;
    }
    return values.front();
  };
  for (const auto& [index, values] : whole_run) {
    // Named by its largest value (the parameter or the output itself),
    // the earliest on ties.
    const MemoryReportBuffer& value =
        **std::min_element(values.begin(), values.end(), [](const auto* a, const auto* b) {
          return std::make_pair(-a->size, a->start) < std::make_pair(-b->size, b->start);
        });
    const MemoryReportAllocation& allocation = *allocations.at(index);
    std::string reason = ReasonFor(allocation);
    if (values.size() > 1) absl::StrAppend(&reason, " (", values.size(), " values use it in turn)");
    check.live_at_peak.push_back({value.instruction, value.index, value.shape, allocation.size,
                                  allocation.kind, std::move(reason), value.source});
  }
  for (const auto& [key, slice] : temp_slices) {
    const bool live_at_peak =
        std::any_of(slice.live.begin(), slice.live.end(), [&](const auto& range) {
          return range.first <= check.peak_time && check.peak_time <= range.second;
        });
    if (!live_at_peak) continue;
    const MemoryReportBuffer& value = *named(slice.values);
    const HloComputation* computation = module.GetComputationWithName(value.computation);
    const HloInstruction* instruction =
        computation == nullptr ? nullptr : computation->GetInstructionWithName(value.instruction);
    check.live_at_peak.push_back(
        {value.instruction, value.index, value.shape, std::get<2>(key), AllocationKind::kTemp,
         ReasonFor(*allocations.at(std::get<0>(key)), instruction), value.source});
  }
  std::stable_sort(check.live_at_peak.begin(), check.live_at_peak.end(),
                   [](const PeakValue& a, const PeakValue& b) { return a.size > b.size; });
  return check;
}

std::vector<SourceBytes> BytesBySource(const std::vector<PeakValue>& values) {
  // Keyed by (source, arguments): arguments without metadata apart from the
  // module's own values without it.
  std::map<std::pair<std::string, bool>, SourceBytes> by_source;
  for (const PeakValue& value : values) {
    const bool arguments = value.source.empty() && value.kind == AllocationKind::kParameter;
    SourceBytes& entry = by_source[{value.source, arguments}];
    entry.source = value.source;
    entry.arguments = arguments;
    entry.bytes += value.size;
    ++entry.values;
  }
  std::vector<SourceBytes> sources;
  for (auto& [key, entry] : by_source) sources.push_back(std::move(entry));
  std::stable_sort(sources.begin(), sources.end(),
                   [](const SourceBytes& a, const SourceBytes& b) { return a.bytes > b.bytes; });
  return sources;
}

absl::StatusOr<MemoryLimitCheck> CheckMemoryLimit(const HloModule& module, int64_t limit,
                                                  const MemoryReportOptions& options) {
  HMO_ASSIGN_OR_RETURN(const MemoryReport report, BuildMemoryReport(module, options));
  return CheckMemoryReport(module, report, limit);
}

absl::StatusOr<MemoryLimitCheck> CheckTargetMemoryLimit(const HloModule& module, int64_t limit,
                                                        const TargetMemoryModel& model) {
  absl::StatusOr<TargetMemoryPlan> planned = PlanTargetMemory(module, model);
  if (!planned.ok()) {
    return absl::Status(planned.status().code(),
                        absl::StrCat("target ", model.DisplayName(),
                                     " cannot plan the module, so its memory limit cannot be "
                                     "checked: ",
                                     planned.status().message()));
  }
  const TargetMemoryPlan& plan = *planned;
  MemoryLimitCheck check;
  if (model.prepare) {
    HMO_ASSIGN_OR_RETURN(check, CheckMemoryLimit(module, limit, model.assignment));
  } else {
    // The plan is an assignment of a clone of the module as written: no
    // second one.
    HMO_ASSIGN_OR_RETURN(const MemoryReport report,
                         BuildMemoryReportFromAssignment(*plan.assignment, model.assignment));
    check = CheckMemoryReport(module, report, limit);
  }
  check.target = DescribeTargetAdditions(module, model.DisplayName(), check.stats, plan);
  check.device_bytes = check.target.arena_device_bytes;
  return check;
}

std::string MemoryLimitCheck::Describe(size_t max_values) const {
  std::string text =
      absl::StrCat("device ", FormatByteSize(device_bytes), fits() ? " <= " : " > ", "limit ",
                   FormatByteSize(limit), " (argument ", stats.argument_size_in_bytes, ", output ",
                   stats.output_size_in_bytes, ", alias ", stats.alias_size_in_bytes, ", temp ",
                   stats.temp_size_in_bytes, ")");
  if (measured_for_target()) absl::StrAppend(&text, "; ", target.ToString());
  if (fits()) return text;
  absl::StrAppend(&text, "\n  the floor of this schedule: ", FormatByteSize(peak_temp_bytes),
                  " of temporaries live together at schedule time ", peak_time, ", beside ",
                  FormatByteSize(stats.argument_size_in_bytes + stats.output_size_in_bytes -
                                 stats.alias_size_in_bytes),
                  " of arguments and outputs; live then, largest first:");
  const size_t shown = std::min(max_values, live_at_peak.size());
  for (size_t i = 0; i < shown; ++i) {
    const PeakValue& value = live_at_peak[i];
    absl::StrAppend(&text, "\n    ", value.instruction, value.index == "{}" ? "" : value.index, " ",
                    value.shape, " ", FormatByteSize(value.size), ": ", value.reason);
    if (!value.source.empty()) absl::StrAppend(&text, "; made at ", value.source);
  }
  if (shown < live_at_peak.size()) {
    int64_t rest = 0;
    for (size_t i = shown; i < live_at_peak.size(); ++i) rest += live_at_peak[i].size;
    absl::StrAppend(&text, "\n    ... and ", live_at_peak.size() - shown, " more values (",
                    FormatByteSize(rest), ")");
  }
  // The same bytes by the source line that made them, largest first.
  const bool any_source = std::any_of(live_at_peak.begin(), live_at_peak.end(),
                                      [](const PeakValue& value) { return !value.source.empty(); });
  if (any_source) {
    const std::vector<SourceBytes> sources = BytesBySource(live_at_peak);
    absl::StrAppend(&text, "\n  live then, by where the program made them, largest first:");
    const size_t shown_sources = std::min(max_values, sources.size());
    for (size_t i = 0; i < shown_sources; ++i) {
      absl::StrAppend(&text, "\n    ", sources[i].Label(), ": ", FormatByteSize(sources[i].bytes),
                      " in ", sources[i].values, sources[i].values == 1 ? " value" : " values");
    }
    if (shown_sources < sources.size()) {
      absl::StrAppend(&text, "\n    ... and ", sources.size() - shown_sources, " more sources");
    }
  }
  return text;
}

absl::Status MemoryLimitStatus(const MemoryLimitCheck& check) {
  if (check.fits()) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("the module does not fit the memory limit: ", check.Describe()));
}

}  // namespace hmo
