#ifndef HMO_IR_CUSTOM_CALL_TARGETS_H_
#define HMO_IR_CUSTOM_CALL_TARGETS_H_

// Custom-call targets whose meaning every part of hmo agrees on, in one
// table (the evaluator, the buffer plan checker and the backends read it).

#include <string_view>

namespace hmo {

// The targets named by XLA's host offloading and sharding (spelled as in
// XLA's memory_annotations.h and sharding propagation).
inline constexpr std::string_view kMoveToHostTarget = "MoveToHost";
inline constexpr std::string_view kMoveToDeviceTarget = "MoveToDevice";
inline constexpr std::string_view kAnnotateDevicePlacementTarget = "annotate_device_placement";
inline constexpr std::string_view kShardingTarget = "Sharding";
inline constexpr std::string_view kSdyFuncResultShardingTarget = "xla.sdy.FuncResultSharding";

// Targets that only say where a value lives or how it is sharded
// (MoveToHost, MoveToDevice, annotate_device_placement, Sharding,
// xla.sdy.FuncResultSharding): the result is the operand's value, a copy of
// its bytes, or the same bytes when both share a buffer.
bool IsValuePassingCustomCallTarget(std::string_view target);

}  // namespace hmo

#endif  // HMO_IR_CUSTOM_CALL_TARGETS_H_
