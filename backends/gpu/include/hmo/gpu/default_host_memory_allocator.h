#ifndef HMO_GPU_DEFAULT_HOST_MEMORY_ALLOCATOR_H_
#define HMO_GPU_DEFAULT_HOST_MEMORY_ALLOCATOR_H_

// The run-time choice of host allocator: pinned memory when a CUDA device is
// visible, plain aligned memory otherwise (no toolkit, no driver, no GPU).

#include <memory>

#include "hmo/gpu/host_memory_allocator.h"

namespace hmo::gpu {

// Never fails: falls back to AlignedHostMemoryAllocator. `callbacks` are
// bound to whichever allocator is chosen; name() says which one.
std::unique_ptr<HostMemoryAllocator> CreateDefaultHostMemoryAllocator(
    HostMemoryCallbacks callbacks = {});

}  // namespace hmo::gpu

#endif  // HMO_GPU_DEFAULT_HOST_MEMORY_ALLOCATOR_H_
