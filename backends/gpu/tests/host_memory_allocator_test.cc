#include "hmo/gpu/host_memory_allocator.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/aligned_host_memory_allocator.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/gpu/default_host_memory_allocator.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

bool IsAligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(AlignedHostMemoryAllocatorTest, DefaultAlignmentIs64) {
  AlignedHostMemoryAllocator allocator;
  for (size_t size : {1, 7, 64, 100, 4096, 1 << 20}) {
    absl::StatusOr<OwnedHostMemory> memory = allocator.Allocate(size);
    ASSERT_TRUE(memory.ok()) << memory.status();
    EXPECT_EQ(memory->size(), size);
    EXPECT_TRUE(IsAligned(memory->data(), 64)) << memory->data();
    std::memset(memory->data(), 0xab, size);  // writable over its whole size
  }
}

TEST(AlignedHostMemoryAllocatorTest, HonoursRequestedAlignment) {
  AlignedHostMemoryAllocator allocator;
  for (size_t alignment : {1, 2, 8, 16, 128, 4096, 1 << 16}) {
    absl::StatusOr<OwnedHostMemory> memory =
        allocator.Allocate(24, {.alignment = alignment, .numa_node = std::nullopt});
    ASSERT_TRUE(memory.ok()) << memory.status();
    EXPECT_TRUE(IsAligned(memory->data(), alignment)) << alignment;
  }
}

TEST(AlignedHostMemoryAllocatorTest, NumaNodeIsOnlyAHint) {
  AlignedHostMemoryAllocator allocator;
  absl::StatusOr<OwnedHostMemory> memory = allocator.Allocate(256, {.numa_node = 3});
  ASSERT_TRUE(memory.ok()) << memory.status();
}

TEST(AlignedHostMemoryAllocatorTest, RejectsBadAlignmentAndZeroSize) {
  AlignedHostMemoryAllocator allocator;
  absl::StatusOr<OwnedHostMemory> bad =
      allocator.Allocate(16, {.alignment = 48, .numa_node = std::nullopt});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("48 is not a power of two"));
  EXPECT_EQ(allocator.Allocate(16, {.alignment = 0, .numa_node = std::nullopt}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(allocator.Allocate(0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AlignedHostMemoryAllocatorTest, HugeSizeIsResourceExhausted) {
  AlignedHostMemoryAllocator allocator;
  absl::StatusOr<OwnedHostMemory> memory = allocator.Allocate(SIZE_MAX - 8);
  EXPECT_EQ(memory.status().code(), absl::StatusCode::kResourceExhausted) << memory.status();
}

struct CallbackLog {
  std::vector<std::pair<void*, size_t>> mapped;
  std::vector<std::pair<void*, size_t>> unmapped;
};

HostMemoryCallbacks LoggingCallbacks(CallbackLog& log) {
  return HostMemoryCallbacks{
      .map = [&log](void* data, size_t size) {
        log.mapped.emplace_back(data, size);
        return absl::OkStatus();
      },
      .unmap = [&log](void* data, size_t size) { log.unmapped.emplace_back(data, size); },
  };
}

TEST(HostMemoryAllocatorTest, MapRunsOnAllocationAndUnmapOnRelease) {
  CallbackLog log;
  AlignedHostMemoryAllocator allocator(LoggingCallbacks(log));
  absl::StatusOr<OwnedHostMemory> memory = allocator.Allocate(100);
  ASSERT_TRUE(memory.ok()) << memory.status();
  void* data = memory->data();
  ASSERT_EQ(log.mapped.size(), 1u);
  EXPECT_EQ(log.mapped[0], std::make_pair(data, size_t{100}));
  EXPECT_TRUE(log.unmapped.empty());

  OwnedHostMemory moved = *std::move(memory);  // moving does not release
  EXPECT_TRUE(log.unmapped.empty());
  moved.Reset();
  ASSERT_EQ(log.unmapped.size(), 1u);
  EXPECT_EQ(log.unmapped[0], std::make_pair(data, size_t{100}));
  EXPECT_FALSE(moved);
  moved.Reset();  // releasing twice is a no-op
  EXPECT_EQ(log.unmapped.size(), 1u);
}

TEST(HostMemoryAllocatorTest, MoveAssignmentReleasesTheOverwrittenMemory) {
  CallbackLog log;
  AlignedHostMemoryAllocator allocator(LoggingCallbacks(log));
  OwnedHostMemory a = *allocator.Allocate(8);
  OwnedHostMemory b = *allocator.Allocate(16);
  void* a_data = a.data();
  a = std::move(b);
  ASSERT_EQ(log.unmapped.size(), 1u);
  EXPECT_EQ(log.unmapped[0].first, a_data);
  EXPECT_EQ(a.size(), 16u);
}

TEST(HostMemoryAllocatorTest, FailingMapFailsTheAllocationWithoutUnmap) {
  int unmaps = 0;
  AlignedHostMemoryAllocator allocator(HostMemoryCallbacks{
      .map = [](void*, size_t) { return absl::PermissionDeniedError("cannot pin"); },
      .unmap = [&unmaps](void*, size_t) { ++unmaps; },
  });
  absl::StatusOr<OwnedHostMemory> memory = allocator.Allocate(64);
  EXPECT_EQ(memory.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(memory.status().message(), HasSubstr("cannot pin"));
  EXPECT_EQ(unmaps, 0);
}

TEST(HostMemoryAllocatorTest, AllocationOutlivesItsAllocator) {
  CallbackLog log;
  OwnedHostMemory memory;
  {
    AlignedHostMemoryAllocator allocator(LoggingCallbacks(log));
    memory = *allocator.Allocate(32);
  }
  std::memset(memory.data(), 1, memory.size());
  memory.Reset();
  EXPECT_EQ(log.unmapped.size(), 1u);
}

TEST(DefaultHostMemoryAllocatorTest, PinnedWithADeviceAlignedOtherwise) {
  std::unique_ptr<HostMemoryAllocator> allocator = CreateDefaultHostMemoryAllocator();
  ASSERT_NE(allocator, nullptr);
  const bool has_device = CudaDeviceCount().ok();
  EXPECT_EQ(allocator->name(), has_device ? "pinned" : "aligned");
  absl::StatusOr<OwnedHostMemory> memory =
      allocator->Allocate(1000, {.alignment = 128, .numa_node = std::nullopt});
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_TRUE(IsAligned(memory->data(), 128));
}

TEST(DefaultHostMemoryAllocatorTest, BindsCallbacksToTheChosenAllocator) {
  CallbackLog log;
  std::unique_ptr<HostMemoryAllocator> allocator =
      CreateDefaultHostMemoryAllocator(LoggingCallbacks(log));
  { OwnedHostMemory memory = *allocator->Allocate(10); }
  EXPECT_EQ(log.mapped.size(), 1u);
  EXPECT_EQ(log.unmapped.size(), 1u);
}

}  // namespace
}  // namespace hmo::gpu
