#ifndef HMO_ANALYSIS_HLO_ALIAS_ANALYSIS_H_
#define HMO_ANALYSIS_HLO_ALIAS_ANALYSIS_H_

// HloAliasAnalysis: groups the module's HloValues into HloBuffers, the values
// that must share storage (XLA's xla/hlo/analysis/hlo_alias_analysis.h).
//
// It runs HloDataflowAnalysis in SSA form (as XLA does) and merges:
//   * entry result values with the entry parameter values they are
//     input/output-aliased to;
//   * a while's init value, body and condition parameter values, body root
//     values and the while's own values, index by index;
//   * conditional branch root values with the conditional's values;
//   * both sides of every in-place pair (AliasInfo::GetInPlaceInputOutputPairs:
//     dynamic-update-slice operand 0, scatter, output_to_operand_aliasing, ...).
// Buffer ids are dense and deterministic: buffers are numbered in the order of
// the lowest-id value that started each group, as in XLA.
//
// Also an analysis of the pass framework's AnalysisManager (Compute below).

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/alias_info.h"
#include "hmo/analysis/hlo_buffer.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

class AnalysisManager;

class HloAliasAnalysis {
 public:
  // `alias_info` null = DefaultAliasInfo(). The module must outlive the
  // analysis.
  static absl::StatusOr<std::unique_ptr<HloAliasAnalysis>> Run(const HloModule* module,
                                                               const AliasInfo* alias_info = nullptr);
  // AnalysisManager hook: Run with the default AliasInfo.
  static absl::StatusOr<std::unique_ptr<HloAliasAnalysis>> Compute(const HloModule& module,
                                                                   AnalysisManager& analyses);

  const HloModule& module() const { return *module_; }
  const HloDataflowAnalysis& dataflow_analysis() const { return *dataflow_analysis_; }

  // Buffers sorted by id (id == index).
  const std::vector<HloBuffer>& buffers() const { return buffers_; }
  const HloBuffer& GetBuffer(HloBuffer::Id id) const { return buffers_.at(id); }
  const HloBuffer& GetBufferContainingValue(const HloValue& value) const;
  // Buffers of the values at a position, sorted by id, unique.
  std::vector<const HloBuffer*> ComputeBuffersAt(const HloInstruction* instruction,
                                                 const ShapeIndex& index = {}) const;
  // Precondition: exactly one buffer at the position.
  const HloBuffer& GetUniqueBufferAt(const HloInstruction* instruction,
                                     const ShapeIndex& index = {}) const;

  // Buffers appearing anywhere in the entry computation's result.
  const absl::flat_hash_set<const HloBuffer*>& LiveOutBuffers() const { return live_out_buffers_; }
  bool BufferLivesOut(const HloBuffer& buffer) const { return live_out_buffers_.contains(&buffer); }
  bool ValueLivesOut(const HloValue& value) const {
    return live_out_buffers_.contains(&GetBufferContainingValue(value));
  }

  // Buffers with their values and positions (debugging aid).
  std::string ToString() const;

 private:
  explicit HloAliasAnalysis(const HloModule* module) : module_(module) {}

  const HloModule* module_;
  std::unique_ptr<HloDataflowAnalysis> dataflow_analysis_;
  std::vector<HloBuffer> buffers_;
  absl::flat_hash_map<const HloValue*, const HloBuffer*> value_to_buffer_;
  absl::flat_hash_set<const HloBuffer*> live_out_buffers_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HLO_ALIAS_ANALYSIS_H_
