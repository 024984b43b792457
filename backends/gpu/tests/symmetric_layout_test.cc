#include "hmo/gpu/symmetric_layout.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

TEST(SymmetricLayoutTest, PacksInOrderAtAlignedOffsets) {
  std::vector<CollectiveMemoryRequest> requests = {
      {.allocation_index = 1, .size = 10}, {.allocation_index = 2, .size = 256},
      {.allocation_index = 5, .size = 1}};
  absl::StatusOr<SymmetricLayout> layout = LayOutSymmetricHeap(requests, 256);
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_THAT(layout->offsets, ::testing::ElementsAre(0, 256, 512));
  EXPECT_EQ(layout->heap_size, 513u);
}

TEST(SymmetricLayoutTest, EmptyAndInvalid) {
  EXPECT_EQ(LayOutSymmetricHeap({}, 64).value().heap_size, 0u);
  EXPECT_EQ(LayOutSymmetricHeap({}, 24).status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<CollectiveMemoryRequest> huge = {
      {.allocation_index = 0, .size = std::numeric_limits<uint64_t>::max() - 10},
      {.allocation_index = 1, .size = 100}};
  EXPECT_EQ(LayOutSymmetricHeap(huge, 64).status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace hmo::gpu
