#ifndef HMO_CODEGEN_EMITTED_MEMORY_MODEL_H_
#define HMO_CODEGEN_EMITTED_MEMORY_MODEL_H_

// The memory model (hmo/analysis/target_memory_model.h) both executing
// backends share, as far as it follows from these emitters: 8-byte tuple
// pointers, XLA's temp heap (so that a target's figures of XLA's dumps are
// XLA's memory_analysis(); hmo's tight packer costs seconds on a prepared
// module at 64- or 256-byte alignment, too much for a measure every pass
// and every compile repeats), every constant with an allocation (constants then
// flow through tuples, loops and calls like any other value), and the
// preparation CloneForExecution applies with the fusions the loop-fusion
// emitter cannot emit expanded. A backend sets its alignment and whether its
// arenas hold constants and thread-local values.

#include <cstdint>
#include <string>

#include "hmo/analysis/target_memory_model.h"

namespace hmo::codegen {

TargetMemoryModel EmittedMemoryModel(std::string target, int64_t alignment);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_EMITTED_MEMORY_MODEL_H_
