#ifndef HMO_BACKENDS_CPU_COMPILER_CPU_BACKEND_H_
#define HMO_BACKENDS_CPU_COMPILER_CPU_BACKEND_H_

// The "cpu" Backend: the host as a compilation target (CpuMemoryModel:
// 64-byte aligned buffers, 8-byte pointers, XLA's heap) that also compiles
// and runs modules.

#include "hmo/plugin/backend.h"

namespace hmo::cpu {

class CpuBackend : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  TargetMemoryModel MemoryModel() const override;
  // A few cores' worth of FLOPs; "host transfers" are copies within RAM.
  BackendCostRates CostRates() const override { return {5e10, 2e10, 1e10}; }
  bool CanExecute() const override { return true; }
  absl::StatusOr<std::unique_ptr<Executable>> Compile(const HloModule& module,
                                                      const CompileOptions& options) const override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_COMPILER_CPU_BACKEND_H_
