#ifndef HMO_PLUGINS_PLACEMENT_MEMORY_ANNOTATIONS_H_
#define HMO_PLUGINS_PLACEMENT_MEMORY_ANNOTATIONS_H_

// The names that frontends (JAX, TF) and XLA's host-offloading passes use to
// mark where a buffer should live. Values as in XLA's memory_annotations.h.

#include <string_view>

#include "hmo/ir/custom_call_targets.h"

namespace hmo::memory_annotations {

// The frontend's annotation: a custom-call with this target whose frontend
// attribute kXlaBufferPlacementAttr names the memory the operand moves to.
inline constexpr std::string_view kDevicePlacement = kAnnotateDevicePlacementTarget;
inline constexpr std::string_view kXlaBufferPlacementAttr = "_xla_buffer_placement";

// Values of kXlaBufferPlacementAttr.
inline constexpr std::string_view kMemoryTargetPinnedHost = "pinned_host";
inline constexpr std::string_view kMemoryTargetUnpinnedHost = "unpinned_host";
inline constexpr std::string_view kMemoryTargetDevice = "device";
inline constexpr std::string_view kMemoryTargetPinnedDevice = "pinned_device";
inline constexpr std::string_view kMemoryTargetDeviceSram = "vmem";

// XLA's internal annotations (custom-call targets) the frontend ones become.
inline constexpr std::string_view kMoveToHostCustomCallTarget = kMoveToHostTarget;
inline constexpr std::string_view kMoveToDeviceCustomCallTarget = kMoveToDeviceTarget;
inline constexpr std::string_view kPinToDeviceCustomCallTarget = "PinToDevice";
inline constexpr std::string_view kPinToDeviceSramCustomCallTarget = "PinToDeviceSram";

// A custom-call without operands that allocates an uninitialized buffer of
// its shape; the host offloader uses it for host buffers that a
// dynamic-update-slice fills.
inline constexpr std::string_view kAllocateBufferCustomCallTarget = "AllocateBuffer";

// Frontend attribute marking an instruction to run on the host
// (`_xla_compute_type="host"`).
inline constexpr std::string_view kXlaComputeTypeAttr = "_xla_compute_type";
inline constexpr std::string_view kXlaComputeTypeHost = "host";

}  // namespace hmo::memory_annotations

#endif  // HMO_PLUGINS_PLACEMENT_MEMORY_ANNOTATIONS_H_
