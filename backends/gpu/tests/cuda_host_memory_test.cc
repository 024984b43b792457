// The CUDA paths of host memory: run only where a CUDA device is visible;
// elsewhere they must fail cleanly with UNAVAILABLE.

#include <cstdint>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/aligned_host_memory_allocator.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/gpu/cuda_host_register.h"
#include "hmo/gpu/pinned_host_memory_allocator.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

namespace hmo::gpu {
namespace {

#define HMO_SKIP_WITHOUT_CUDA_DEVICE()                                     \
  do {                                                                     \
    absl::StatusOr<int> devices = CudaDeviceCount();                       \
    if (!devices.ok()) GTEST_SKIP() << "no CUDA device: " << devices.status(); \
  } while (0)

TEST(CudaDeviceQueryTest, FailsCleanlyOrCountsDevices) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (devices.ok()) {
    EXPECT_GE(*devices, 1);
    EXPECT_TRUE(BuiltWithCudaRuntime());
  } else {
    EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable) << devices.status();
    EXPECT_FALSE(devices.status().message().empty());
  }
}

// Runs on every machine: available exactly when a device is.
TEST(PinnedHostMemoryAllocatorTest, AvailableExactlyWithADevice) {
  absl::StatusOr<std::unique_ptr<PinnedHostMemoryAllocator>> allocator =
      PinnedHostMemoryAllocator::Create();
  if (CudaDeviceCount().ok()) {
    EXPECT_TRUE(allocator.ok()) << allocator.status();
    EXPECT_TRUE(CudaHostRegisterCallbacks().ok());
    return;
  }
  EXPECT_EQ(allocator.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(allocator.status().message(), ::testing::HasSubstr("needs a CUDA device"));
  EXPECT_EQ(CudaHostRegisterCallbacks().status().code(), absl::StatusCode::kUnavailable);
}

#if HMO_GPU_HAVE_CUDA_RUNTIME
bool IsPinnedHostMemory(const void* p) {
  cudaPointerAttributes attributes{};
  return cudaPointerGetAttributes(&attributes, p) == cudaSuccess &&
         attributes.type == cudaMemoryTypeHost;
}
#endif

TEST(PinnedHostMemoryAllocatorTest, AllocatesAlignedPinnedMemory) {
  HMO_SKIP_WITHOUT_CUDA_DEVICE();
#if HMO_GPU_HAVE_CUDA_RUNTIME
  int unmaps = 0;
  absl::StatusOr<std::unique_ptr<PinnedHostMemoryAllocator>> allocator =
      PinnedHostMemoryAllocator::Create(
          {.map = nullptr, .unmap = [&unmaps](void*, size_t) { ++unmaps; }});
  ASSERT_TRUE(allocator.ok()) << allocator.status();
  for (size_t alignment : {64, 4096, 1 << 16}) {
    absl::StatusOr<OwnedHostMemory> memory =
        (*allocator)->Allocate(1000, {.alignment = alignment, .numa_node = std::nullopt});
    ASSERT_TRUE(memory.ok()) << memory.status();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory->data()) % alignment, 0u);
    EXPECT_TRUE(IsPinnedHostMemory(memory->data()));
    std::memset(memory->data(), 7, memory->size());
  }
  EXPECT_EQ(unmaps, 3);
#endif
}

TEST(CudaHostRegisterTest, RegistersAndUnregistersAlignedMemory) {
  HMO_SKIP_WITHOUT_CUDA_DEVICE();
#if HMO_GPU_HAVE_CUDA_RUNTIME
  absl::StatusOr<HostMemoryCallbacks> callbacks = CudaHostRegisterCallbacks();
  ASSERT_TRUE(callbacks.ok()) << callbacks.status();
  AlignedHostMemoryAllocator allocator(*callbacks);
  absl::StatusOr<OwnedHostMemory> memory =
      allocator.Allocate(1 << 20, {.alignment = 4096, .numa_node = std::nullopt});
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_TRUE(IsPinnedHostMemory(memory->data()));
#endif
}

}  // namespace
}  // namespace hmo::gpu
