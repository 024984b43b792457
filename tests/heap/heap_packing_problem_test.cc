// HeapPackingProblem: lower bound, time compression, the validity checker,
// and the CSV format.

#include "hmo/analysis/heap_packing_problem.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "heap_test_util.h"
#include "hmo/analysis/heap_packing_csv.h"

namespace hmo {
namespace {

HeapPackingBlock Block(int64_t size, std::vector<HeapTimeInterval> lifetimes) {
  return HeapPackingBlock{size, std::move(lifetimes)};
}

TEST(HeapPackingProblemTest, LowerBoundIsThePeakOfLiveBytes) {
  HeapPackingProblem problem;
  problem.blocks = {Block(10, {{0, 4}}), Block(20, {{3, 6}}), Block(5, {{5, 9}}),
                    Block(7, {{0, 1}, {8, 9}})};
  // Step 3-4: 10 + 20; step 5-6: 20 + 5; step 8-9: 5 + 7.
  EXPECT_EQ(HeapPackingLowerBound(problem), 30);
  // A block's overlapping lifetimes count once.
  problem.blocks.push_back(Block(100, {{20, 25}, {22, 30}}));
  EXPECT_EQ(HeapPackingLowerBound(problem), 100);
}

TEST(HeapPackingProblemTest, ValidatorFindsOverlapsAndMisalignment) {
  HeapPackingProblem problem;
  problem.alignment = 4;
  problem.blocks = {Block(8, {{0, 4}}), Block(8, {{4, 6}}), Block(8, {{5, 9}})};
  // Block 0 and 1 share step 4; 1 and 2 share 5..6; 0 and 2 never overlap.
  EXPECT_TRUE(ValidateHeapPacking(problem, {0, 8, 0}).ok());
  EXPECT_FALSE(ValidateHeapPacking(problem, {0, 4, 16}).ok());   // 0 and 1 overlap
  EXPECT_FALSE(ValidateHeapPacking(problem, {0, 8, 12}).ok());   // 1 and 2 overlap
  EXPECT_FALSE(ValidateHeapPacking(problem, {0, 10, 24}).ok());  // unaligned
  EXPECT_FALSE(ValidateHeapPacking(problem, {0, 8}).ok());       // missing offset
  EXPECT_EQ(HeapPackingHeight(problem, {0, 8, 0}), 16);
}

TEST(HeapPackingProblemTest, ValidatorAgreesWithPairwiseCheck) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    HeapPackingProblem problem;
    std::vector<int64_t> offsets;
    for (int b = 0; b < 8; ++b) {
      const int64_t s = static_cast<int64_t>(rng() % 10);
      problem.blocks.push_back(Block(1 + static_cast<int64_t>(rng() % 5),
                                     {{s, s + static_cast<int64_t>(rng() % 4)}}));
      offsets.push_back(static_cast<int64_t>(rng() % 12));
    }
    bool valid = true;
    for (size_t i = 0; i < offsets.size(); ++i) {
      for (size_t j = i + 1; j < offsets.size(); ++j) {
        const auto& a = problem.blocks[i];
        const auto& b = problem.blocks[j];
        const bool time = a.lifetimes[0].start <= b.lifetimes[0].end &&
                          b.lifetimes[0].start <= a.lifetimes[0].end;
        const bool space = offsets[i] < offsets[j] + b.size && offsets[j] < offsets[i] + a.size;
        if (time && space) valid = false;
      }
    }
    EXPECT_EQ(ValidateHeapPacking(problem, offsets).ok(), valid) << trial;
  }
}

TEST(HeapPackingProblemTest, CompressionKeepsExactlyTheConflicts) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    HeapPackingProblem problem;
    for (int b = 0; b < 12; ++b) {
      std::vector<HeapTimeInterval> lifetimes;
      for (int l = 0; l < 1 + static_cast<int>(rng() % 2); ++l) {
        const int64_t s = static_cast<int64_t>(rng() % 50) * 3;
        lifetimes.push_back({s, s + static_cast<int64_t>(rng() % 40)});
      }
      problem.blocks.push_back(Block(1, lifetimes));
    }
    const HeapPackingProblem compressed = CompressHeapPackingTime(problem);
    auto conflict = [](const HeapPackingBlock& a, const HeapPackingBlock& b) {
      for (const auto& x : a.lifetimes) {
        for (const auto& y : b.lifetimes) {
          if (x.start <= y.end && y.start <= x.end) return true;
        }
      }
      return false;
    };
    int64_t max_time = 0;
    for (size_t i = 0; i < problem.blocks.size(); ++i) {
      for (const auto& l : compressed.blocks[i].lifetimes) max_time = std::max(max_time, l.end);
      for (size_t j = 0; j < problem.blocks.size(); ++j) {
        EXPECT_EQ(conflict(problem.blocks[i], problem.blocks[j]),
                  conflict(compressed.blocks[i], compressed.blocks[j]));
      }
    }
    EXPECT_LT(max_time, 50 * 3 + 40);
  }
}

TEST(HeapPackingCsvTest, ParsesAndTurnsIntoEvents) {
  auto buffers = ParseHeapCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\r\nb3,0,9,4\n", "x.csv");
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  ASSERT_EQ(buffers->size(), 3u);
  EXPECT_EQ((*buffers)[1].id, "b2");
  EXPECT_EQ((*buffers)[1].upper, 9);
  // Time 0: alloc b1, b3; time 3: free b1, then alloc b2; time 9: frees.
  const auto log = HeapEventsFromCsvBuffers(*buffers);
  using Kind = HeapEventLog<int32_t>::Kind;
  std::vector<std::pair<Kind, int32_t>> events;
  for (const auto& e : log.events()) events.emplace_back(e.kind, e.buffer);
  EXPECT_EQ(events, (std::vector<std::pair<Kind, int32_t>>{{Kind::kAlloc, 0},
                                                           {Kind::kAlloc, 2},
                                                           {Kind::kFree, 0},
                                                           {Kind::kAlloc, 1},
                                                           {Kind::kFree, 1},
                                                           {Kind::kFree, 2}}));
}

TEST(HeapPackingCsvTest, ErrorsNameTheLine) {
  auto bad = ParseHeapCsv("id,lower,upper,size\nb1,0,x,4\n", "bad.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("bad.csv:2:6: error: upper must be"), std::string::npos);
  EXPECT_FALSE(ParseHeapCsv("id,lower,upper,size\nb1,5,5,4\n").ok());  // empty range
  EXPECT_FALSE(ParseHeapCsv("a,b\n1,2\n").ok());                        // no header
  EXPECT_FALSE(ReadHeapCsvFile("/nonexistent/file.csv").ok());
}

// Sizes whose sum overflows int64 would make every packer's offsets wrap; the
// reader refuses them at the size that crosses the bound.
TEST(HeapPackingCsvTest, RefusesSizesWhoseSumNoPackingCouldAddress) {
  auto huge = ParseHeapCsv(
      "id,lower,upper,size\nb1,0,3,2000000000000000000\nb2,1,4,2000000000000000000\n", "huge.csv");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(std::string(huge.status().message()).find("huge.csv:3:8: error: the sizes"),
            std::string::npos)
      << huge.status();
  auto overflow = ParseHeapCsv("id,lower,upper,size\nb1,0,3,9223372036854775808\n", "o.csv");
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(std::string(overflow.status().message()).find("o.csv:2:8: error: size must be"),
            std::string::npos)
      << overflow.status();
}

TEST(HeapResultValidatorTest, RejectsBrokenResults) {
  testing::EventScript events;
  events.Alloc(1, 10).Alloc(2, 10).Free(1, 10).ShareWith(3, 1, 10).Free(2, 10).Free(3, 10);
  HeapSimulatorResult<int> good;
  good.heap_results.resize(1);
  good.heap_results[0].chunk_map = {{1, HeapChunk::FromOffsetSize(0, 10)},
                                    {2, HeapChunk::FromOffsetSize(10, 10)},
                                    {3, HeapChunk::FromOffsetSize(0, 10)}};
  good.heap_results[0].heap_size = 20;
  good.heap_size = 20;
  EXPECT_TRUE(ValidateHeapSimulatorResult(events.log(), good).ok());

  auto overlap = good;
  overlap.heap_results[0].chunk_map[2] = HeapChunk::FromOffsetSize(5, 10);
  overlap.heap_results[0].heap_size = 15;
  overlap.heap_size = 15;
  EXPECT_FALSE(ValidateHeapSimulatorResult(events.log(), overlap).ok());

  auto unshared = good;  // 3 must share 1's chunk
  unshared.heap_results[0].chunk_map[3] = HeapChunk::FromOffsetSize(20, 10);
  unshared.heap_results[0].heap_size = 30;
  unshared.heap_size = 30;
  EXPECT_FALSE(ValidateHeapSimulatorResult(events.log(), unshared).ok());

  auto missing = good;
  missing.heap_results[0].chunk_map.erase(2);
  EXPECT_FALSE(ValidateHeapSimulatorResult(events.log(), missing).ok());

  auto wrong_size = good;
  wrong_size.heap_size = 25;
  EXPECT_FALSE(ValidateHeapSimulatorResult(events.log(), wrong_size).ok());

  EXPECT_FALSE(ValidateHeapSimulatorResult(events.log(), good, /*alignment=*/8).ok());
}

}  // namespace
}  // namespace hmo
