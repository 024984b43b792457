#include "gtest/gtest.h"
#include "hmo/analysis/best_fit_constrained_heap.h"
#include "hmo/analysis/heap_algorithm_with_fallback.h"
#include "hmo/analysis/heap_choose_best.h"
#include "hmo/analysis/heap_no_fragmentation_stats.h"
#include "hmo/analysis/heap_result_validator.h"
#include "hmo/analysis/tight_packing_heap.h"

namespace hmo {
namespace {
TEST(Smoke, Compiles) {
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  heap.Alloc(1, 10);
  heap.Free(1, 10);
  auto r = heap.Finish();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->heap_size, 10);
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> c(100, 1, PackingStrategy::kFastSplit);
  auto s = CreateHeapWithPackingSearch<int>(8);
  HeapEventLog<int> log;
  EXPECT_TRUE(ValidateHeapSimulatorResult(log, *r).ok() == false);
}
}  // namespace
}  // namespace hmo
