#include "hmo/ir/instruction_reachability.h"

#include <vector>

#include "absl/container/flat_hash_set.h"

namespace hmo {

bool DependsOn(const HloInstruction& target, const HloInstruction& source) {
  std::vector<const HloInstruction*> stack = {&source};
  absl::flat_hash_set<const HloInstruction*> seen = {&source};
  while (!stack.empty()) {
    const HloInstruction* at = stack.back();
    stack.pop_back();
    if (at == &target) return true;
    for (const HloInstruction* next : at->users()) {
      if (seen.insert(next).second) stack.push_back(next);
    }
    for (const HloInstruction* next : at->control_successors()) {
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
  return false;
}

}  // namespace hmo
