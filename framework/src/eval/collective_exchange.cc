#include "collective_exchange.h"

#include <string>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace hmo::eval_internal {

std::string DeviceName(const DeviceGrid& grid, int64_t device) {
  if (grid.partition_count == 1) return fmt::format("replica {}", device);
  return fmt::format("device {} (replica {}, partition {})", device, grid.replica(device),
                     grid.partition(device));
}

absl::StatusOr<std::vector<std::shared_ptr<const Literal>>> CollectiveExchange::Exchange(
    const HloInstruction& instruction, int64_t occurrence, int64_t device, Literal value,
    absl::Span<const int64_t> needed) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const RoundKey key{&instruction, occurrence};
  std::unique_lock<std::mutex> lock(mutex_);
  if (!aborted_.ok()) return absl::AbortedError(std::string(aborted_.message()));
  Round& round = rounds_[key];  // std::map: references stay valid while others insert
  round.parts[device] = std::make_shared<const Literal>(std::move(value));
  changed_.notify_all();

  auto missing = [&] {
    std::vector<int64_t> absent;
    for (int64_t d : needed) {
      if (round.parts.find(d) == round.parts.end()) absent.push_back(d);
    }
    return absent;
  };
  while (aborted_.ok() && !missing().empty()) {
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) break;
  }
  if (!aborted_.ok()) return absl::AbortedError(std::string(aborted_.message()));
  const std::vector<int64_t> absent = missing();
  if (!absent.empty()) {
    const char* noun = grid_.partition_count == 1 ? "replica" : "device";
    return absl::DeadlineExceededError(
        fmt::format("evaluator: {} {} (execution {}) on {}: {}{} {} did not reach it within {} ms",
                    std::string(HloOpcodeString(instruction.opcode())), instruction.name(),
                    occurrence, DeviceName(grid_, device), noun, absent.size() == 1 ? "" : "s",
                    fmt::join(absent, ", "), timeout_.count()));
  }
  std::vector<std::shared_ptr<const Literal>> parts;
  parts.reserve(needed.size());
  for (int64_t d : needed) parts.push_back(round.parts.at(d));
  // Every device runs every round once; the last one out frees it (a round
  // some device never reaches lives until the exchange does).
  if (++round.finished == grid_.device_count()) rounds_.erase(key);
  return parts;
}

void CollectiveExchange::Abort(const absl::Status& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_.ok()) aborted_ = why.ok() ? absl::AbortedError("evaluator: aborted") : why;
  changed_.notify_all();
}

}  // namespace hmo::eval_internal
