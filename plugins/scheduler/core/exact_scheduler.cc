#include "core/exact_scheduler.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace hmo::scheduler {
namespace {

// A set of at most kMaxInstructions instructions.
struct InstructionSet {
  std::array<uint64_t, ExactProblem::kMaxInstructions / 64> words{};

  void Insert(int i) { words[i >> 6] |= uint64_t{1} << (i & 63); }
  void Erase(int i) { words[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool operator==(const InstructionSet&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const InstructionSet& s) {
    return H::combine_contiguous(std::move(h), s.words.data(), s.words.size());
  }
};

class ExactSearch {
 public:
  ExactSearch(const ExactProblem& problem, const ExactOptions& options)
      : problem_(problem), options_(options), m_(problem.instruction_count()) {
    successors_.assign(m_, {});
    pending_predecessors_.assign(m_, 0);
    for (int x = 0; x < m_; ++x) {
      for (int p : problem.predecessors[x]) {
        successors_[p].push_back(x);
        ++pending_predecessors_[x];
      }
    }
    uses_.assign(m_, {});
    defined_.assign(m_, 0);
    kept_.assign(m_, 0);
    remaining_users_.assign(problem.values.size(), 0);
    live_ = problem.base;
    for (int v = 0; v < static_cast<int>(problem.values.size()); ++v) {
      const ExactProblem::Value& value = problem.values[v];
      remaining_users_[v] = static_cast<int>(value.users.size());
      for (int u : value.users) uses_[u].push_back(v);
      if (value.defining_instruction < 0) {
        if (value.escapes || !value.users.empty()) live_ += value.size;
      } else {
        defined_[value.defining_instruction] += value.size;
        if (value.escapes || !value.users.empty()) kept_[value.defining_instruction] += value.size;
      }
    }
    // No order beats the bytes an instruction needs at its own step: what it
    // reads plus what it defines.
    if (!problem.transient.empty()) {
      for (int x = 0; x < m_; ++x) defined_[x] += problem.transient[x];
    }
    lower_bound_ = problem.base;
    for (int x = 0; x < m_; ++x) {
      int64_t need = problem.base + defined_[x];
      for (int v : uses_[x]) need += problem.values[v].size;
      int64_t best_reuse = 0;
      for (const ShareCandidate& c : problem.share_candidates[x]) {
        best_reuse = std::max(best_reuse, c.discount);
      }
      need -= best_reuse;
      lower_bound_ = std::max(lower_bound_, need);
    }
    scheduled_.reserve(m_);
  }

  ExactResult Run(const std::vector<int>& initial) {
    ExactResult result;
    result.order = initial;
    result.peak = problem_.Peak(initial);
    best_peak_ = std::min(result.peak, options_.peak_bound);
    if (best_peak_ <= lower_bound_ && result.peak <= lower_bound_) {
      result.optimal = true;
      return result;
    }
    Search(0, std::numeric_limits<int64_t>::min());
    result.states = states_;
    if (!best_order_.empty()) {
      result.order = best_order_;
      result.peak = best_peak_;
    }
    result.optimal = !aborted_;
    return result;
  }

 private:
  struct Candidate {
    int instruction;
    int64_t cost;
    int64_t live_delta;
  };

  int64_t StepCost(int x) const {
    int64_t cost = live_ + defined_[x];
    for (const ShareCandidate& c : problem_.share_candidates[x]) {
      if (!problem_.values[c.value].escapes && remaining_users_[c.value] == 1) {
        return cost - c.discount;
      }
    }
    return cost;
  }

  int64_t LiveDelta(int x) const {
    int64_t delta = kept_[x];
    for (int v : uses_[x]) {
      if (remaining_users_[v] == 1 && !problem_.values[v].escapes) delta -= problem_.values[v].size;
    }
    return delta;
  }

  void Schedule(int x) {
    live_ += LiveDelta(x);
    for (int v : uses_[x]) --remaining_users_[v];
    for (int s : successors_[x]) --pending_predecessors_[s];
    set_.Insert(x);
    done_flags_[x] = true;
    scheduled_.push_back(x);
  }

  void Unschedule(int x) {
    scheduled_.pop_back();
    done_flags_[x] = false;
    set_.Erase(x);
    for (int s : successors_[x]) ++pending_predecessors_[s];
    for (int v : uses_[x]) ++remaining_users_[v];
    live_ -= LiveDelta(x);
  }

  void Search(int depth, int64_t prefix_peak) {
    if (prefix_peak >= best_peak_ || finished_ || aborted_) return;
    if (depth == m_) {
      best_peak_ = prefix_peak;
      best_order_ = scheduled_;
      if (best_peak_ <= lower_bound_) finished_ = true;
      return;
    }
    auto [it, inserted] = memo_.try_emplace(set_, prefix_peak);
    if (!inserted) {
      if (it->second <= prefix_peak) return;
      it->second = prefix_peak;
    }
    if (++states_ > options_.max_states) {
      aborted_ = true;
      return;
    }
    if (states_ % kSearchProgressEvery == 0 && options_.progress) {
      options_.progress(states_, options_.max_states, best_peak_);
    }
    std::vector<Candidate> candidates;
    for (int x = 0; x < m_; ++x) {
      if (done_flags_[x] || pending_predecessors_[x] != 0) continue;
      Candidate c{x, StepCost(x), LiveDelta(x)};
      if (c.cost <= prefix_peak && c.live_delta <= 0) {
        // Dominant: run it now, no branching.
        candidates.assign(1, c);
        break;
      }
      candidates.push_back(c);
    }
    std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
      int64_t pa = std::max(prefix_peak, a.cost), pb = std::max(prefix_peak, b.cost);
      if (pa != pb) return pa < pb;
      if (a.live_delta != b.live_delta) return a.live_delta < b.live_delta;
      return a.instruction < b.instruction;
    });
    for (const Candidate& c : candidates) {
      int64_t peak = std::max(prefix_peak, c.cost);
      if (peak >= best_peak_) break;
      Schedule(c.instruction);
      Search(depth + 1, peak);
      Unschedule(c.instruction);
      if (finished_ || aborted_) return;
    }
  }

  const ExactProblem& problem_;
  const ExactOptions& options_;
  const int m_;
  std::vector<std::vector<int>> successors_;
  std::vector<int> pending_predecessors_;
  std::vector<std::vector<int>> uses_;
  std::vector<int64_t> defined_;
  std::vector<int64_t> kept_;
  std::vector<int> remaining_users_;
  int64_t live_ = 0;
  int64_t lower_bound_ = 0;
  InstructionSet set_;
  std::vector<bool> done_flags_ = std::vector<bool>(m_, false);
  std::vector<int> scheduled_;
  absl::flat_hash_map<InstructionSet, int64_t> memo_;
  int64_t best_peak_ = 0;
  std::vector<int> best_order_;
  int64_t states_ = 0;
  bool aborted_ = false;
  bool finished_ = false;
};

}  // namespace

int64_t ExactProblem::Peak(const std::vector<int>& order) const {
  const int m = instruction_count();
  std::vector<int> position(m, 0);
  for (int p = 0; p < m; ++p) position[order[p]] = p;
  std::vector<int64_t> delta(m + 1, 0);
  int64_t initial = base;
  std::vector<int> last(values.size(), -1);
  for (int v = 0; v < static_cast<int>(values.size()); ++v) {
    const Value& value = values[v];
    int start = value.defining_instruction < 0 ? 0 : position[value.defining_instruction];
    int end = value.defining_instruction < 0 ? -1 : start;
    for (int u : value.users) end = std::max(end, position[u]);
    if (value.escapes) end = m - 1;
    last[v] = end;
    if (end < start) continue;  // an outside value nobody here reads
    if (value.defining_instruction < 0) {
      initial += value.size;
    } else {
      delta[start] += value.size;
    }
    delta[end + 1] -= value.size;
  }
  int64_t live = initial, peak = m == 0 ? base : std::numeric_limits<int64_t>::min();
  for (int p = 0; p < m; ++p) {
    live += delta[p];
    int64_t step = live + (transient.empty() ? 0 : transient[order[p]]);
    for (const ShareCandidate& c : share_candidates[order[p]]) {
      if (!values[c.value].escapes && last[c.value] == p) {
        step -= c.discount;
        break;
      }
    }
    peak = std::max(peak, step);
  }
  return peak;
}

ExactResult SolveExact(const ExactProblem& problem, const std::vector<int>& initial,
                       const ExactOptions& options) {
  if (problem.instruction_count() > ExactProblem::kMaxInstructions) {
    ExactResult result;
    result.order = initial;
    result.peak = problem.Peak(initial);
    return result;
  }
  return ExactSearch(problem, options).Run(initial);
}

ExactProblem MakeComputationProblem(const MemoryModel& model) {
  const SchedulingGraph& graph = model.graph();
  const int n = graph.instruction_count();
  ExactProblem problem;
  problem.base = model.baseline_bytes();
  problem.predecessors.assign(n, {});
  for (int i = 0; i < n; ++i) {
    const SchedulingInstruction& in = graph.instruction(i);
    problem.predecessors[i] = in.unique_operands;
    for (int p : in.control_predecessors) {
      if (std::find(in.unique_operands.begin(), in.unique_operands.end(), p) ==
          in.unique_operands.end()) {
        problem.predecessors[i].push_back(p);
      }
    }
  }
  std::vector<int> value_index(graph.value_count(), -1);
  for (int v = 0; v < graph.value_count(); ++v) {
    if (!model.tracked(v)) continue;
    value_index[v] = static_cast<int>(problem.values.size());
    ExactProblem::Value value;
    value.size = graph.value(v).size;
    value.defining_instruction = model.live_in(v) ? -1 : graph.value(v).defining_instruction;
    value.users = model.readers(v);
    value.escapes = graph.value(v).live_out;
    problem.values.push_back(std::move(value));
  }
  problem.transient.assign(n, 0);
  for (int i = 0; i < n; ++i) problem.transient[i] = graph.instruction(i).transient_bytes;
  problem.share_candidates.assign(n, {});
  for (int i = 0; i < n; ++i) {
    for (const ShareCandidate& c : model.share_candidates(i)) {
      problem.share_candidates[i].push_back({value_index[c.value], c.discount});
    }
  }
  return problem;
}

}  // namespace hmo::scheduler
