#include "hmo/analysis/hlo_buffer.h"

#include "analysis_check.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo {

const HloValue& HloBuffer::GetUniqueValue() const {
  HMO_CHECK_EQ(values_.size(), 1u) << ToString();
  return *values_[0];
}

absl::StatusOr<int64_t> HloBuffer::color() const {
  const int64_t result = values_.front()->color();
  for (const HloValue* value : values_) {
    if (value->color() != result) {
      return absl::InternalError(absl::StrCat("Values of ", ToString(),
                                              " have different colors: ", value->ToShortString(),
                                              " vs ", values_.front()->ToShortString()));
    }
  }
  return result;
}

std::vector<HloPosition> HloBuffer::ComputePositions() const {
  std::vector<HloPosition> positions;
  for (const HloValue* value : values_) {
    positions.insert(positions.end(), value->positions().begin(), value->positions().end());
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

bool HloBuffer::IsHeapPressureImpacting(
    const HloValue& value, bool alloc_constants,
    const absl::flat_hash_set<const HloValue*>* buffers_to_assign) {
  if (!alloc_constants && value.instruction()->opcode() == HloOpcode::kConstant) return false;
  if (buffers_to_assign != nullptr && !buffers_to_assign->contains(&value)) return false;
  return true;
}

std::string HloBuffer::ToString() const {
  return absl::StrCat("HloBuffer ", id_, ", values: ",
                      absl::StrJoin(values_, ", ", [](std::string* out, const HloValue* value) {
                        out->append(value->ToShortString());
                      }));
}

}  // namespace hmo
