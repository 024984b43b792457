// MiniMalloc CSV instances: parsing, packing with each algorithm, validation.

#include "hmo/analysis/buffer_packing_csv.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

// MiniMalloc's examples/input.12.csv (capacity 12).
constexpr char kExample[] =
    "id,lower,upper,size\n"
    "b1,0,3,4\n"
    "b2,3,9,4\n"
    "b3,0,9,4\n"
    "b4,9,21,4\n"
    "b5,0,21,4\n";

TEST(BufferPackingCsvTest, ParsesAndComputesTheLowerBound) {
  auto instance = ParseHeapCsv(kExample, "input.12.csv");
  ASSERT_TRUE(instance.ok()) << instance.status();
  ASSERT_EQ(instance->size(), 5u);
  EXPECT_EQ((*instance)[3].id, "b4");
  EXPECT_EQ((*instance)[3].lower, 9);
  EXPECT_EQ((*instance)[3].upper, 21);
  // [0,3): b1+b3+b5 = 12; [3,9): b2+b3+b5 = 12; [9,21): 8.
  EXPECT_EQ(PackingLowerBound(*instance), 12);
}

TEST(BufferPackingCsvTest, BestFitPacksTheExampleOptimally) {
  auto instance = ParseHeapCsv(kExample);
  ASSERT_TRUE(instance.ok());
  auto result = PackBuffers(*instance, "best-fit");
  ASSERT_TRUE(result.ok()) << result.status();
  // Size ties: longest first (b5, b3, b1), then b2 before b4 by line:
  // b5 0, b3 4, b1 8 (over b3 and b5), b2 8, b4 4 (only b5 is live).
  EXPECT_EQ(result->offsets, (std::vector<int64_t>{8, 8, 4, 4, 0}));
  EXPECT_EQ(result->height, 12);
  EXPECT_EQ(result->lower_bound, 12);
  EXPECT_EQ(WriteMiniMallocCsv(*instance, result->offsets),
            "id,lower,upper,size,offset\n"
            "b1,0,3,4,8\n"
            "b2,3,9,4,8\n"
            "b3,0,9,4,4\n"
            "b4,9,21,4,4\n"
            "b5,0,21,4,0\n");
}

TEST(BufferPackingCsvTest, ValidationRejectsOverlaps) {
  auto instance = ParseHeapCsv(kExample);
  ASSERT_TRUE(instance.ok());
  EXPECT_TRUE(ValidatePacking(*instance, {8, 8, 4, 4, 0}).ok());
  // b1 and b3 are live together at offset 0.
  EXPECT_FALSE(ValidatePacking(*instance, {0, 8, 0, 4, 4}).ok());
  // Half-open lifetimes: b1 [0,3) and b2 [3,9) may share bytes.
  EXPECT_TRUE(ValidatePacking(*instance, {8, 8, 4, 4, 0}).ok());
  EXPECT_FALSE(ValidatePacking(*instance, {1, 8, 4, 4, 0}, /*alignment=*/2).ok());
}

TEST(BufferPackingCsvTest, UnknownAlgorithmAndBadAlignmentAreErrors) {
  auto instance = ParseHeapCsv(kExample);
  ASSERT_TRUE(instance.ok());
  auto unknown = PackBuffers(*instance, "no-such-algorithm");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.status().message()).find("best-fit"), std::string::npos);
  EXPECT_FALSE(PackBuffers(*instance, "best-fit", 0).ok());
}

TEST(BufferPackingCsvTest, EveryAlgorithmGivesAValidPlanAtOrAboveTheLowerBound) {
  std::mt19937_64 random(42);
  std::string csv = "id,lower,upper,size\n";
  for (int i = 0; i < 40; ++i) {
    const int64_t lower = static_cast<int64_t>(random() % 200);
    const int64_t length = 1 + static_cast<int64_t>(random() % 40);
    const int64_t size = 1 + static_cast<int64_t>(random() % 64);
    absl::StrAppend(&csv, "b", i, ",", lower, ",", lower + length, ",", size, "\n");
  }
  auto instance = ParseHeapCsv(csv);
  ASSERT_TRUE(instance.ok());
  int64_t best_fit_height = 0;
  for (const std::string& algorithm : PackingAlgorithmNames()) {
    for (int64_t alignment : {int64_t{1}, int64_t{8}}) {
      // The exact searches are slow; one alignment is enough for them.
      if (alignment != 1 && (algorithm == "best" || algorithm == "tight")) continue;
      auto result = PackBuffers(*instance, algorithm, alignment);
      ASSERT_TRUE(result.ok()) << algorithm << ": " << result.status();
      EXPECT_GE(result->height, result->lower_bound) << algorithm;
      if (algorithm == "best-fit" && alignment == 1) best_fit_height = result->height;
    }
  }
  auto best = PackBuffers(*instance, "best");
  ASSERT_TRUE(best.ok());
  EXPECT_LE(best->height, best_fit_height);
  auto tight = PackBuffers(*instance, "tight");
  ASSERT_TRUE(tight.ok());
  EXPECT_LE(tight->height, best_fit_height);
}

}  // namespace
}  // namespace hmo
