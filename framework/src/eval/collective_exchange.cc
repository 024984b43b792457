#include "collective_exchange.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hmo::eval_internal {

absl::StatusOr<std::vector<std::shared_ptr<const Literal>>> CollectiveExchange::Exchange(
    const HloInstruction& instruction, int64_t occurrence, int64_t replica, Literal value,
    absl::Span<const int64_t> needed) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const RoundKey key{&instruction, occurrence};
  std::unique_lock<std::mutex> lock(mutex_);
  if (!aborted_.ok()) return absl::AbortedError(std::string(aborted_.message()));
  Round& round = rounds_[key];  // std::map: references stay valid while others insert
  round.parts[replica] = std::make_shared<const Literal>(std::move(value));
  changed_.notify_all();

  auto missing = [&] {
    std::vector<int64_t> absent;
    for (int64_t r : needed) {
      if (round.parts.find(r) == round.parts.end()) absent.push_back(r);
    }
    return absent;
  };
  while (aborted_.ok() && !missing().empty()) {
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) break;
  }
  if (!aborted_.ok()) return absl::AbortedError(std::string(aborted_.message()));
  const std::vector<int64_t> absent = missing();
  if (!absent.empty()) {
    return absl::DeadlineExceededError(absl::StrCat(
        "evaluator: ", std::string(HloOpcodeString(instruction.opcode())), " ", instruction.name(),
        " (execution ", occurrence, ") on replica ", replica, ": replica",
        absent.size() == 1 ? " " : "s ", absl::StrJoin(absent, ", "), " did not reach it within ",
        timeout_.count(), " ms"));
  }
  std::vector<std::shared_ptr<const Literal>> parts;
  parts.reserve(needed.size());
  for (int64_t r : needed) parts.push_back(round.parts.at(r));
  // Every replica runs every round once; the last one out frees it (a
  // round some replica never reaches lives until the exchange does).
  if (++round.finished == num_replicas_) rounds_.erase(key);
  return parts;
}

void CollectiveExchange::Abort(const absl::Status& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_.ok()) aborted_ = why.ok() ? absl::AbortedError("evaluator: aborted") : why;
  changed_.notify_all();
}

}  // namespace hmo::eval_internal
