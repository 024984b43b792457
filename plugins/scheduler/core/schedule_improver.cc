#include "core/schedule_improver.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "core/dfs_scheduler.h"
#include "core/exact_scheduler.h"
#include "core/list_scheduler.h"
#include "core/post_order_scheduler.h"
#include "core/subtree_peak_scheduler.h"

namespace hmo::scheduler {
namespace {

constexpr int kUntracked = -2;
constexpr int kLiveOut = -1;

}  // namespace

ScheduleImprover::ScheduleImprover(const MemoryModel& model, std::vector<int> order)
    : model_(model), graph_(model.graph()), order_(std::move(order)) {
  for (int v = 0; v < graph_.value_count(); ++v) {
    if (model_.tracked(v) && graph_.value(v).live_out) live_out_bytes_ += graph_.value(v).size;
  }
  Rebuild();
}

void ScheduleImprover::Rebuild() {
  const int n = static_cast<int>(order_.size());
  position_.assign(n, 0);
  for (int p = 0; p < n; ++p) position_[order_[p]] = p;
  last_instruction_.assign(graph_.value_count(), kUntracked);
  for (int v = 0; v < graph_.value_count(); ++v) {
    if (!model_.tracked(v)) continue;
    if (graph_.value(v).live_out) {
      last_instruction_[v] = kLiveOut;
      continue;
    }
    // A live-in value is live from before the first step.
    int last = model_.live_in(v) ? -1 : graph_.value(v).defining_instruction;
    for (int u : model_.readers(v)) {
      if (last < 0 || position_[u] > position_[last]) last = u;
    }
    last_instruction_[v] = last;
  }
  reuse_.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    reuse_[i] = model_.Reuse(i, [&](int v) { return last_instruction_[v] == i; });
  }
  tree_.Reset(model_.Profile(order_));
}

PeakCount ScheduleImprover::peak() const {
  PeakCount all = tree_.All();
  if (all.count == 0) return {model_.baseline_bytes(), 0};
  return {all.peak + model_.baseline_bytes(), all.count};
}

std::vector<int64_t> ScheduleImprover::profile() const {
  std::vector<int64_t> out(order_.size());
  for (int p = 0; p < static_cast<int>(order_.size()); ++p) out[p] = tree_.value(p);
  return out;
}

std::pair<int, int> ScheduleImprover::MoveRange(int x) const {
  const SchedulingInstruction& in = graph_.instruction(x);
  int first = 0, last = static_cast<int>(order_.size());
  for (const std::vector<int>* preds : {&in.operands, &in.control_predecessors}) {
    for (int p : *preds) first = std::max(first, position_[p] + 1);
  }
  for (const std::vector<int>* succs : {&in.users, &in.control_successors}) {
    for (int s : *succs) last = std::min(last, position_[s]);
  }
  return {first, last};
}

ScheduleImprover::Plan ScheduleImprover::MakePlan(int x) const {
  Plan plan;
  plan.x = x;
  plan.position = position_[x];
  std::tie(plan.first, plan.last) = MoveRange(x);
  plan.kept = model_.kept_bytes(x);
  plan.defined = model_.step_bytes(x);
  const int n = static_cast<int>(order_.size());
  const std::vector<int>& uses = model_.tracked_uses(x);
  auto x_reads = [&](int v) { return std::find(uses.begin(), uses.end(), v) != uses.end(); };
  std::vector<int> later_readers;                      // last readers after x
  std::vector<std::pair<int, int>> earlier_readers;    // (next-to-last step, value)
  for (int w : uses) {
    Use use{w, graph_.value(w).size, n, false};
    if (last_instruction_[w] == kLiveOut) {
      use.end_without_x = n;
    } else if (last_instruction_[w] != x) {
      use.end_without_x = position_[last_instruction_[w]];
      later_readers.push_back(last_instruction_[w]);
    } else {
      use.x_is_last = true;
      // -1: a live-in value, live from before the first step.
      int end = model_.live_in(w) ? -1 : position_[graph_.value(w).defining_instruction];
      for (int u : model_.readers(w)) {
        if (u != x) end = std::max(end, position_[u]);
      }
      use.end_without_x = end;
      if (end >= 0 && order_[end] != graph_.value(w).defining_instruction) {
        earlier_readers.push_back({end, w});
      }
    }
    plan.uses.push_back(use);
  }
  for (const ShareCandidate& c : model_.share_candidates(x)) {
    for (const Use& use : plan.uses) {
      if (use.value == c.value) plan.own_reuse.push_back({use.end_without_x, c.discount});
    }
  }
  // Moving x past the last reader u of some of its inputs makes x their last
  // reader: u may lose its buffer reuse.
  std::sort(later_readers.begin(), later_readers.end());
  later_readers.erase(std::unique(later_readers.begin(), later_readers.end()),
                      later_readers.end());
  for (int u : later_readers) {
    int64_t reuse =
        model_.Reuse(u, [&](int v) { return last_instruction_[v] == u && !x_reads(v); });
    if (reuse != reuse_[u]) plan.later.push_back({position_[u], reuse_[u] - reuse});
  }
  // Moving x before the next-to-last reader u2 of an input it reads last
  // makes u2 the last: u2 may gain buffer reuse.
  std::sort(earlier_readers.begin(), earlier_readers.end());
  for (size_t k = 0; k < earlier_readers.size();) {
    const int end = earlier_readers[k].first, u2 = order_[end];
    size_t next = k;
    while (next < earlier_readers.size() && earlier_readers[next].first == end) ++next;
    int64_t reuse = model_.Reuse(u2, [&](int v) {
      if (last_instruction_[v] == u2) return true;
      for (size_t j = k; j < next; ++j) {
        if (earlier_readers[j].second == v) return true;
      }
      return false;
    });
    if (reuse != reuse_[u2]) plan.earlier.push_back({end, reuse_[u2] - reuse});
    k = next;
  }
  std::sort(plan.later.begin(), plan.later.end(),
            [](const Correction& a, const Correction& b) { return a.position < b.position; });
  std::sort(plan.earlier.begin(), plan.earlier.end(),
            [](const Correction& a, const Correction& b) { return a.position > b.position; });
  return plan;
}

int64_t ScheduleImprover::Gap(int gap) const {
  if (gap >= static_cast<int>(order_.size())) return live_out_bytes_;
  int y = order_[gap];
  return tree_.value(gap) + reuse_[y] - model_.step_bytes(y);
}

// Moving x from step i to gap k > i + 1: steps i+1 .. k-1 run one step
// earlier, without x's kept outputs live, and with each input of x live until
// k whose other readers are all done.
template <typename Fn>
void ScheduleImprover::SweepLater(const Plan& plan, int last_gap, Fn&& fn) {
  const int i = plan.position, n = static_cast<int>(order_.size());
  std::vector<std::pair<int, int64_t>> ends;  // (end without x, size)
  ends.reserve(plan.uses.size());
  for (const Use& u : plan.uses) ends.push_back({u.end_without_x, u.size});
  std::sort(ends.begin(), ends.end());
  const PeakCount prefix = tree_.Query(0, i);
  PeakCount run;
  int64_t extended = 0;  // bytes of inputs whose other readers end before y
  size_t next_end = 0, next_correction = 0;
  for (int k = i + 2; k <= last_gap; ++k) {
    const int y = k - 1;
    while (next_end < ends.size() && ends[next_end].first < y) extended += ends[next_end++].second;
    int64_t correction = 0;
    while (next_correction < plan.later.size() && plan.later[next_correction].position <= y) {
      if (plan.later[next_correction].position == y) {
        correction += plan.later[next_correction].delta;
      }
      ++next_correction;
    }
    const int64_t dy = -plan.kept + extended + correction;
    run = Combine(run, PeakCount::Of(tree_.value(y) + dy));
    int64_t extended_at_k = extended;
    for (size_t e = next_end; e < ends.size() && ends[e].first < k; ++e) {
      extended_at_k += ends[e].second;
    }
    const int64_t at_x = Gap(k) - plan.kept + plan.defined + extended_at_k - plan.ReuseAt(k);
    ++evaluations_;
    PeakCount total =
        Combine(Combine(prefix, run), Combine(PeakCount::Of(at_x), tree_.Query(k, n)));
    fn(k, total, at_x);
  }
}

// Moving x from step i to gap k < i: steps k .. i-1 run one step later, with
// x's kept outputs live, and without each input x read last whose other
// readers are done before them.
template <typename Fn>
void ScheduleImprover::SweepEarlier(const Plan& plan, int first_gap, Fn&& fn) {
  const int i = plan.position, n = static_cast<int>(order_.size());
  std::vector<std::pair<int, int64_t>> ends;  // inputs x reads last
  int64_t released = 0;
  for (const Use& u : plan.uses) {
    if (!u.x_is_last) continue;
    ends.push_back({u.end_without_x, u.size});
    released += u.size;
  }
  std::sort(ends.begin(), ends.end(), std::greater<>());
  const PeakCount suffix = tree_.Query(i + 1, n);
  PeakCount run;
  size_t next_end = 0, next_correction = 0;
  for (int k = i - 1; k >= first_gap; --k) {
    const int y = k;
    while (next_end < ends.size() && ends[next_end].first >= y) released -= ends[next_end++].second;
    int64_t correction = 0;
    while (next_correction < plan.earlier.size() && plan.earlier[next_correction].position >= y) {
      if (plan.earlier[next_correction].position == y) {
        correction += plan.earlier[next_correction].delta;
      }
      ++next_correction;
    }
    const int64_t dy = plan.kept - released + correction;
    run = Combine(run, PeakCount::Of(tree_.value(y) + dy));
    const int64_t at_x = Gap(k) + plan.defined - plan.ReuseAt(k);
    ++evaluations_;
    PeakCount total =
        Combine(Combine(tree_.Query(0, k), PeakCount::Of(at_x)), Combine(run, suffix));
    fn(k, total, at_x);
  }
}

PeakCount ScheduleImprover::EvaluateMove(int x, int gap) {
  Plan plan = MakePlan(x);
  PeakCount result;
  auto capture = [&](int k, PeakCount total, int64_t) {
    if (k == gap) result = total;
  };
  if (gap > plan.position) {
    SweepLater(plan, gap, capture);
  } else {
    SweepEarlier(plan, gap, capture);
  }
  if (result.count > 0) result.peak += model_.baseline_bytes();
  return result;
}

void ScheduleImprover::ApplyMove(int x, int gap) { Apply(MakePlan(x), gap); }

void ScheduleImprover::Apply(const Plan& plan, int gap) {
  const int i = plan.position, x = plan.x;
  // Bytes live just before the moved-over range; unchanged by the move.
  const int begin = std::min(i, gap);
  int64_t live = Gap(begin);
  // Who reads x's inputs last, after the move.
  for (const Use& u : plan.uses) {
    if (last_instruction_[u.value] == kLiveOut) continue;
    if (gap > i) {
      if (u.end_without_x < gap) last_instruction_[u.value] = x;
    } else if (u.x_is_last && u.end_without_x >= gap) {
      last_instruction_[u.value] = order_[u.end_without_x];
    }
  }
  int end;
  if (gap > i) {
    std::rotate(order_.begin() + i, order_.begin() + i + 1, order_.begin() + gap);
    end = gap;
  } else {
    std::rotate(order_.begin() + gap, order_.begin() + i, order_.begin() + i + 1);
    end = i + 1;
  }
  for (int p = begin; p < end; ++p) position_[order_[p]] = p;
  // Recount the range step by step.
  for (int p = begin; p < end; ++p) {
    const int y = order_[p];
    reuse_[y] = model_.Reuse(y, [&](int v) { return last_instruction_[v] == y; });
    tree_.Set(p, live + model_.step_bytes(y) - reuse_[y]);
    live += model_.kept_bytes(y);
    for (int w : model_.tracked_uses(y)) {
      if (last_instruction_[w] == y) live -= graph_.value(w).size;
    }
  }
  ++stats_.moves;
}

bool ScheduleImprover::TryMovesAround(int peak_position, const ImproverOptions& options) {
  const PeakCount current = tree_.All();
  const int n = static_cast<int>(order_.size());
  for (int d = 0; d <= options.move_radius; ++d) {
    for (int side : {-1, 1}) {
      const int p = peak_position + side * d;
      if (p < 0 || p >= n || (d == 0 && side == 1)) continue;
      Plan plan = MakePlan(order_[p]);
      PeakCount best = current;
      int best_gap = -1;
      if (p <= peak_position) {
        int last_gap = std::min(plan.last, p + 1 + options.max_move_distance);
        SweepLater(plan, last_gap, [&](int k, PeakCount total, int64_t) {
          if ((k > peak_position || p == peak_position) && total < best) {
            best = total;
            best_gap = k;
          }
        });
      }
      if (p >= peak_position) {
        int first_gap = std::max(plan.first, p - options.max_move_distance);
        SweepEarlier(plan, first_gap, [&](int k, PeakCount total, int64_t) {
          if ((k <= peak_position || p == peak_position) && total < best) {
            best = total;
            best_gap = k;
          }
        });
      }
      if (best_gap >= 0) {
        Apply(plan, best_gap);
        return true;
      }
      if (evaluations_ > options.max_evaluations) return false;
    }
  }
  return false;
}

bool ScheduleImprover::TryWindowAt(int begin, int end, const ImproverOptions& options) {
  const int m = end - begin;
  if (m < 2) return false;
  const PeakCount current = tree_.All();
  ExactProblem problem;
  problem.predecessors.assign(m, {});
  problem.share_candidates.assign(m, {});
  problem.transient.assign(m, 0);
  for (int j = 0; j < m; ++j) {
    problem.transient[j] = graph_.instruction(order_[begin + j]).transient_bytes;
  }
  auto local = [&](int instruction) {
    int p = position_[instruction];
    return p >= begin && p < end ? p - begin : -1;
  };
  std::vector<int> value_index;  // value -> problem value, built lazily
  std::vector<std::pair<int, int>> touched;
  auto problem_value = [&](int w) -> int {
    for (const auto& [v, index] : touched) {
      if (v == w) return index;
    }
    ExactProblem::Value value;
    value.size = graph_.value(w).size;
    value.defining_instruction =
        model_.live_in(w) ? -1 : local(graph_.value(w).defining_instruction);
    value.escapes = graph_.value(w).live_out;
    for (int u : model_.readers(w)) {
      int lu = local(u);
      if (lu >= 0) {
        value.users.push_back(lu);
      } else if (position_[u] >= end) {
        value.escapes = true;
      }
    }
    // A value from before the window that outlives it is the same at every
    // step: it belongs to the base.
    if (value.defining_instruction < 0 && value.escapes) {
      touched.push_back({w, -1});
      return -1;
    }
    problem.values.push_back(std::move(value));
    touched.push_back({w, static_cast<int>(problem.values.size()) - 1});
    return touched.back().second;
  };
  int64_t outside_dying = 0;
  for (int j = 0; j < m; ++j) {
    const int x = order_[begin + j];
    const SchedulingInstruction& in = graph_.instruction(x);
    for (const std::vector<int>* preds : {&in.unique_operands, &in.control_predecessors}) {
      for (int p : *preds) {
        int lp = local(p);
        if (lp >= 0 && std::find(problem.predecessors[j].begin(), problem.predecessors[j].end(),
                                 lp) == problem.predecessors[j].end()) {
          problem.predecessors[j].push_back(lp);
        }
      }
    }
    for (int w : in.defined_values) {
      if (model_.tracked(w)) problem_value(w);
    }
    for (int w : model_.tracked_uses(x)) {
      size_t before = problem.values.size();
      int index = problem_value(w);
      if (index >= 0 && problem.values.size() > before &&
          problem.values[index].defining_instruction < 0) {
        outside_dying += problem.values[index].size;
      }
    }
  }
  for (int j = 0; j < m; ++j) {
    for (const ShareCandidate& c : model_.share_candidates(order_[begin + j])) {
      for (const auto& [v, index] : touched) {
        if (v == c.value && index >= 0) problem.share_candidates[j].push_back({index, c.discount});
      }
    }
  }
  problem.base = Gap(begin) - outside_dying;
  std::vector<int> identity(m);
  for (int j = 0; j < m; ++j) identity[j] = j;
  ExactOptions exact;
  exact.max_states = options.window_states;
  exact.peak_bound = current.peak;
  ExactResult result = SolveExact(problem, identity, exact);
  evaluations_ += result.states;
  if (result.peak >= current.peak || result.order == identity) return false;
  std::vector<int> window(order_.begin() + begin, order_.begin() + end);
  for (int j = 0; j < m; ++j) order_[begin + j] = window[result.order[j]];
  Rebuild();
  ++stats_.windows;
  return true;
}

void ScheduleImprover::Improve(const ImproverOptions& options) {
  stats_.initial_peak = peak().peak;
  const int n = static_cast<int>(order_.size());
  evaluations_ = 0;
  int64_t next_report = kSearchProgressEvery;
  while (n > 1 && evaluations_ <= options.max_evaluations) {
    if (options.progress && evaluations_ >= next_report) {
      options.progress(evaluations_, options.max_evaluations, peak().peak);
      next_report = evaluations_ + kSearchProgressEvery;
    }
    const PeakCount current = tree_.All();
    bool improved = false;
    for (int p = tree_.FindFirstAtLeast(0, current.peak); p >= 0 && !improved;
         p = tree_.FindFirstAtLeast(p + 1, current.peak)) {
      improved = TryMovesAround(p, options);
      if (!improved && options.window >= 2) {
        // Windows ending at, centred on and starting at the peak step.
        for (int begin : {p - options.window + 1, p - options.window / 2, p}) {
          begin = std::clamp(begin, 0, std::max(0, n - options.window));
          if (TryWindowAt(begin, std::min(n, begin + options.window), options)) {
            improved = true;
            break;
          }
        }
      }
      if (evaluations_ > options.max_evaluations) break;
    }
    if (!improved) break;
  }
  stats_.final_peak = peak().peak;
  stats_.evaluations = evaluations_;
}

std::vector<int> ImprovedSchedule(const MemoryModel& model, const ImproverOptions& options,
                                  ImproverStats* stats) {
  const SchedulingGraph& graph = model.graph();
  std::vector<std::vector<int>> starts = {ListSchedule(graph), PostOrderSchedule(graph),
                                          SubtreePeakSchedule(model)};
  if (absl::StatusOr<std::vector<int>> dfs = DfsSchedule(graph); dfs.ok()) {
    starts.insert(starts.begin() + 1, *std::move(dfs));
  }
  // Local search ends in different places from different starts; each start
  // gets an equal share of the budget, best start first.
  std::stable_sort(starts.begin(), starts.end(), [&](const auto& a, const auto& b) {
    return model.Peak(a) < model.Peak(b);
  });
  ImproverOptions share = options;
  share.max_evaluations = options.max_evaluations / static_cast<int64_t>(starts.size());
  std::vector<int> best;
  int64_t best_peak = INT64_MAX;
  // Evaluations of the starts already improved: progress counts on from it.
  int64_t spent = 0;
  if (options.progress) {
    share.progress = [&](int64_t done, int64_t, int64_t peak) {
      options.progress(spent + done, options.max_evaluations, std::min(best_peak, peak));
    };
  }
  for (std::vector<int>& start : starts) {
    ScheduleImprover improver(model, std::move(start));
    improver.Improve(share);
    spent += improver.stats().evaluations;
    const int64_t peak = improver.peak().peak;
    if (peak < best_peak) {
      best_peak = peak;
      best = improver.order();
      if (stats != nullptr) *stats = improver.stats();
    }
  }
  return best;
}

}  // namespace hmo::scheduler
