#include "hmo/gpu/host_memory_pool.h"

#include <array>
#include <atomic>
#include <complex>
#include <cstdint>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/aligned_host_memory_allocator.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HostMemoryPool> MakePool(HostElementType type, int num_elements) {
  AlignedHostMemoryAllocator allocator;
  absl::StatusOr<std::unique_ptr<HostMemoryPool>> pool =
      HostMemoryPool::Create(allocator, type, num_elements);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? *std::move(pool) : nullptr;
}

TEST(HostMemoryPoolTest, DefaultCapacityIs128) {
  AlignedHostMemoryAllocator allocator;
  absl::StatusOr<std::unique_ptr<HostMemoryPool>> pool =
      HostMemoryPool::Create(allocator, HostElementType::kS64);
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ((*pool)->capacity(), 128);
  EXPECT_EQ((*pool)->available(), 128);
  EXPECT_EQ((*pool)->element_size(), 8u);
}

TEST(HostMemoryPoolTest, RejectsEmptyPool) {
  AlignedHostMemoryAllocator allocator;
  EXPECT_EQ(HostMemoryPool::Create(allocator, HostElementType::kS32, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HostMemoryPoolTest, SlotsAreDistinctAndTyped) {
  auto pool = MakePool(HostElementType::kS32, 4);
  std::vector<HostMemoryPool::Handle> handles;
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<HostMemoryPool::Handle> handle = pool->Acquire();
    ASSERT_TRUE(handle.ok()) << handle.status();
    absl::StatusOr<int32_t*> value = handle->get<int32_t>();
    ASSERT_TRUE(value.ok()) << value.status();
    **value = 100 + i;
    handles.push_back(*std::move(handle));
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(*handles[i].get<int32_t>().value(), 100 + i);
    EXPECT_EQ(handles[i].index(), i);
  }
  EXPECT_EQ(pool->available(), 0);
}

TEST(HostMemoryPoolTest, WrongElementTypeIsAnError) {
  auto pool = MakePool(HostElementType::kF32, 2);
  HostMemoryPool::Handle handle = *pool->Acquire();
  absl::StatusOr<int32_t*> wrong = handle.get<int32_t>();
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("holds f32 elements, not s32"));
  EXPECT_TRUE(handle.get<float>().ok());
  EXPECT_EQ(handle.element_type(), HostElementType::kF32);
}

TEST(HostMemoryPoolTest, TypesWithoutACppCounterpartUseData) {
  auto pool = MakePool(HostElementType::kBF16, 2);
  HostMemoryPool::Handle a = *pool->Acquire();
  HostMemoryPool::Handle b = *pool->Acquire();
  EXPECT_EQ(static_cast<std::byte*>(b.data()) - static_cast<std::byte*>(a.data()), 2);
  auto c128 = MakePool(HostElementType::kC128, 1);
  HostMemoryPool::Handle c = *c128->Acquire();
  ASSERT_TRUE(c.get<std::complex<double>>().ok());
}

TEST(HostMemoryPoolTest, ExhaustionNamesTheCapacity) {
  auto pool = MakePool(HostElementType::kS32, 128);
  std::vector<HostMemoryPool::Handle> handles;
  for (int i = 0; i < 128; ++i) handles.push_back(*pool->Acquire());
  absl::StatusOr<HostMemoryPool::Handle> extra = pool->Acquire();
  EXPECT_EQ(extra.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(extra.status().message(),
              HasSubstr("All 128 elements of the s32 host memory pool are in use"));
  EXPECT_THAT(extra.status().message(), HasSubstr("more than 128 concurrent"));
  handles.pop_back();  // giving one back makes room again
  EXPECT_TRUE(pool->Acquire().ok());
}

TEST(HostMemoryPoolTest, ReusesSlotsFirstInFirstOut) {
  auto pool = MakePool(HostElementType::kU8, 4);
  HostMemoryPool::Handle a = *pool->Acquire();  // slot 0
  HostMemoryPool::Handle b = *pool->Acquire();  // slot 1
  ASSERT_EQ(a.index(), 0);
  ASSERT_EQ(b.index(), 1);
  b.Release();  // free list: 2, 3, 1
  a.Release();  // free list: 2, 3, 1, 0
  std::vector<int> order;
  std::vector<HostMemoryPool::Handle> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(*pool->Acquire());
    order.push_back(held.back().index());
  }
  // A LIFO free list would hand out 0 and 1 first.
  EXPECT_THAT(order, ::testing::ElementsAre(2, 3, 1, 0));
}

TEST(HostMemoryPoolTest, HandlesAreMoveOnlyAndReturnTheirSlotOnce) {
  auto pool = MakePool(HostElementType::kS32, 2);
  {
    HostMemoryPool::Handle a = *pool->Acquire();
    HostMemoryPool::Handle b = std::move(a);
    EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_EQ(a.get<int32_t>().status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE(b.valid());
    EXPECT_EQ(pool->available(), 1);
    HostMemoryPool::Handle c = *pool->Acquire();
    c = std::move(b);  // releases c's slot, takes b's
    EXPECT_EQ(pool->available(), 1);
  }
  EXPECT_EQ(pool->available(), 2);
}

// 32 threads x 10k acquire/release; a slot is never held by two threads at
// once, and every slot is back at the end.
TEST(HostMemoryPoolTest, ManyThreadsNeverShareASlot) {
  constexpr int kThreads = 32;
  constexpr int kIterations = 10'000;
  constexpr int kCapacity = 128;
  auto pool = MakePool(HostElementType::kS64, kCapacity);
  std::array<std::atomic<int>, kCapacity> holders{};
  std::atomic<int> violations{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        absl::StatusOr<HostMemoryPool::Handle> handle = pool->Acquire();
        if (!handle.ok()) {
          ++failures;  // cannot happen: fewer threads than slots
          continue;
        }
        const int slot = handle->index();
        if (holders[slot].fetch_add(1) != 0) ++violations;
        int64_t* value = handle->get<int64_t>().value();
        *value = t;
        if (*value != t) ++violations;  // another thread wrote into our slot
        holders[slot].fetch_sub(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(pool->available(), kCapacity);
}

// More threads than slots: exhaustion is reported, never a duplicate slot.
TEST(HostMemoryPoolTest, ContendedSmallPoolReportsExhaustionNotDuplicates) {
  constexpr int kThreads = 16;
  constexpr int kCapacity = 4;
  auto pool = MakePool(HostElementType::kS32, kCapacity);
  std::array<std::atomic<int>, kCapacity> holders{};
  std::atomic<int> violations{0};
  std::atomic<int> acquired{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2'000; ++i) {
        absl::StatusOr<HostMemoryPool::Handle> handle = pool->Acquire();
        if (!handle.ok()) {
          if (handle.status().code() != absl::StatusCode::kResourceExhausted) ++violations;
          continue;
        }
        ++acquired;
        if (holders[handle->index()].fetch_add(1) != 0) ++violations;
        holders[handle->index()].fetch_sub(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GT(acquired.load(), 0);
  EXPECT_EQ(pool->available(), kCapacity);
}

}  // namespace
}  // namespace hmo::gpu
