// The CUDA collective-memory backend: without a device it must refuse with
// UNAVAILABLE; with one, a clique of one device gets usable device memory.

#include "hmo/gpu/cuda_collective_memory_backend.h"

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/acquire_collective_memory.h"
#include "hmo/gpu/cuda_device_query.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

namespace hmo::gpu {
namespace {

// Runs on every machine: available exactly when a device is.
TEST(CudaCollectiveMemoryBackendTest, AvailableExactlyWithADevice) {
  absl::StatusOr<std::unique_ptr<CollectiveMemoryBackend>> backend =
      CreateCudaCollectiveMemoryBackend();
  if (CudaDeviceCount().ok()) {
    EXPECT_TRUE(backend.ok()) << backend.status();
    return;
  }
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(backend.status().message(),
              ::testing::HasSubstr("CUDA collective memory needs a CUDA device"));
}

TEST(CudaCollectiveMemoryBackendTest, CliqueOfOneDeviceGetsDeviceMemory) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) GTEST_SKIP() << "no CUDA device: " << devices.status();
#if HMO_GPU_HAVE_CUDA_RUNTIME
  absl::StatusOr<std::unique_ptr<CollectiveMemoryBackend>> backend =
      CreateCudaCollectiveMemoryBackend();
  ASSERT_TRUE(backend.ok()) << backend.status();
  CliqueKey clique = *CliqueKey::Create({0});
  collectives::Rendezvous rendezvous;
  absl::StatusOr<CollectiveMemory> memory = AcquireCollectiveMemory(
      **backend, rendezvous, clique, 0,
      {{.allocation_index = 0, .size = 1000}, {.allocation_index = 1, .size = 24}},
      absl::Now() + absl::Seconds(30));
  ASSERT_TRUE(memory.ok()) << memory.status();
  const CollectiveAllocation* allocation = memory->Find(clique, 1).value();
  EXPECT_EQ(allocation->offset, 1024u);
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, allocation->local), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  int value = 0;
  ASSERT_EQ(cudaMemcpy(&value, allocation->local, sizeof(value), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(value, 0);  // zero-filled

  absl::StatusOr<CollectiveMemory> multicast = AcquireCollectiveMemory(
      **backend, rendezvous, *CliqueKey::Create({0}, CollectiveStreamKind::kP2P), 0,
      {{.allocation_index = 0, .size = 64, .kind = CollectiveMemoryKind::kMulticast}},
      absl::Now() + absl::Seconds(30));
  EXPECT_EQ(multicast.status().code(), absl::StatusCode::kUnimplemented);
#endif
}

}  // namespace
}  // namespace hmo::gpu
