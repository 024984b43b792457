// BufferAssigner and CompiledMemoryStats on small modules, worked out by hand
// from XLA's assignment rules (buffer_assignment.h).

#include "hmo/analysis/buffer_assignment.h"

#include "analysis_test_util.h"
#include "gtest/gtest.h"
#include "hmo/analysis/compiled_memory_stats.h"

namespace hmo {
namespace {

using ::hmo::testing::Find;
using ::hmo::testing::ParseOrDie;

struct Assigned {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<BufferAssignment> assignment;
  CompiledMemoryStats stats;
};

Assigned Assign(std::string_view text, BufferAssigner::Options options = {},
                int64_t alignment = 1) {
  Assigned a;
  a.module = ParseOrDie(text);
  auto assignment = BufferAssigner::Run(
      a.module.get(), a.module->schedule(), ByteSizeOfValue(8),
      [alignment](int64_t) { return alignment; }, options);
  EXPECT_TRUE(assignment.ok()) << assignment.status();
  a.assignment = std::move(*assignment);
  auto stats = ComputeCompiledMemoryStats(*a.assignment);
  EXPECT_TRUE(stats.ok()) << stats.status();
  a.stats = *stats;
  return a;
}

const BufferAllocation& AllocationOf(const Assigned& a, std::string_view name,
                                     ShapeIndex index = {}) {
  const HloValue& value =
      a.assignment->dataflow_analysis().GetValueDefinedAt(Find(*a.module, name), index);
  return a.assignment->GetAssignedAllocation(value);
}

TEST(BufferAssignmentTest, TemporariesMoveIntoTheOutputAllocationWhenLiveRangesAllow) {
  Assigned a = Assign(R"(
HloModule chain, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(a)
  ROOT c = f32[4] add(b, p)
}
)");
  // Buffers biggest first, live-out first: c gets allocation 0 (output); p
  // allocation 1 (parameter); a [1,2] fits in c's allocation ([3,4]); b takes
  // over a (an elementwise user) and ends where c starts. No temp at all.
  ASSERT_EQ(a.assignment->Allocations().size(), 2u);
  EXPECT_EQ(AllocationOf(a, "c").index(), 0);
  EXPECT_EQ(AllocationOf(a, "a").index(), 0);
  EXPECT_EQ(AllocationOf(a, "b").index(), 0);
  EXPECT_EQ(AllocationOf(a, "p").index(), 1);
  EXPECT_TRUE(AllocationOf(a, "c").maybe_live_out());
  EXPECT_TRUE(AllocationOf(a, "p").is_entry_computation_parameter());
  EXPECT_EQ(a.stats.argument_size_in_bytes, 16);
  EXPECT_EQ(a.stats.output_size_in_bytes, 16);
  EXPECT_EQ(a.stats.alias_size_in_bytes, 0);
  EXPECT_EQ(a.stats.temp_size_in_bytes, 0);
  EXPECT_EQ(a.stats.PeakEstimateBytes(), 32);
  EXPECT_EQ(a.stats.peak_memory_in_bytes, 32);
  EXPECT_TRUE(a.assignment->temp_heaps().empty());
}

constexpr char kTempsModule[] = R"(
HloModule temps, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[8] concatenate(a, a), dimensions={0}
  c = f32[8] exponential(b)
  ROOT r = f32[4] slice(c), slice={[0:4]}
}
)";

TEST(BufferAssignmentTest, TemporariesArePackedByTheHeapSimulator) {
  Assigned a = Assign(kTempsModule);
  // b [2,3] and c [3,4] (32 bytes each) are temps: c takes over b, one
  // 32-byte chunk. a joins the output allocation of r.
  const BufferAllocation& temp = AllocationOf(a, "b");
  EXPECT_TRUE(temp.IsPreallocatedTempBuffer());
  EXPECT_EQ(temp.size(), 32);
  EXPECT_EQ(&AllocationOf(a, "c"), &temp);
  EXPECT_EQ(temp.assigned_buffers().at(
                &a.assignment->dataflow_analysis().GetValueDefinedAt(Find(*a.module, "c")))
                .offset,
            0);
  EXPECT_EQ(&AllocationOf(a, "a"), &AllocationOf(a, "r"));
  EXPECT_EQ(a.stats.argument_size_in_bytes, 16);
  EXPECT_EQ(a.stats.output_size_in_bytes, 16);
  EXPECT_EQ(a.stats.temp_size_in_bytes, 32);
  EXPECT_EQ(a.stats.PeakEstimateBytes(), 64);
  // Static 16 (p) + 16 (output's largest value) + the 32-byte temp peak.
  EXPECT_EQ(a.stats.peak_memory_in_bytes, 64);
  ASSERT_EQ(a.assignment->temp_heaps().size(), 1u);
  EXPECT_EQ(a.assignment->temp_heaps()[0].heap_size, 32);
  EXPECT_EQ(a.assignment->temp_heaps()[0].lower_bound, 32);
  EXPECT_EQ(a.assignment->temp_heaps()[0].xla_heap_size, 32);
  EXPECT_EQ(a.assignment->temp_heaps()[0].algorithm, "best-fit-spatial");
  const BufferAssignment::Stats& stats = a.assignment->GetStats();
  EXPECT_EQ(stats.preallocated_temp_allocation_bytes, 32);
  EXPECT_EQ(stats.preallocated_temp_fragmentation_bytes, 0);
  EXPECT_EQ(stats.total_allocation_bytes, 64);
}

TEST(BufferAssignmentTest, AliasedParameterAndOutputShareAnAllocation) {
  Assigned a = Assign(R"(
HloModule alias, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_EQ(a.assignment->Allocations().size(), 1u);
  const BufferAllocation& allocation = AllocationOf(a, "p");
  EXPECT_EQ(&allocation, &AllocationOf(a, "n"));
  EXPECT_TRUE(allocation.is_parameter_aliased_with_output());
  EXPECT_TRUE(allocation.maybe_live_out());
  EXPECT_EQ(a.stats.argument_size_in_bytes, 16);
  EXPECT_EQ(a.stats.output_size_in_bytes, 16);
  EXPECT_EQ(a.stats.alias_size_in_bytes, 16);
  EXPECT_EQ(a.stats.PeakEstimateBytes(), 16);
}

TEST(BufferAssignmentTest, HostMemorySpaceCountsOnTheHostSide) {
  Assigned a = Assign(R"(
HloModule host, is_scheduled=true
ENTRY e {
  p = f32[4]{0:S(5)} parameter(0)
  h = f32[4]{0:S(5)} negate(p)
  ROOT n = f32[4]{0} negate(h)
}
)");
  EXPECT_EQ(a.stats.host_argument_size_in_bytes, 16);
  EXPECT_EQ(a.stats.argument_size_in_bytes, 0);
  EXPECT_EQ(a.stats.output_size_in_bytes, 16);
  // h is a host temp (color 5), alone in its heap.
  EXPECT_EQ(a.stats.host_temp_size_in_bytes, 16);
  EXPECT_EQ(a.stats.temp_size_in_bytes, 0);
  EXPECT_EQ(AllocationOf(a, "h").color(), 5);
  EXPECT_EQ(a.stats.HostPeakEstimateBytes(), 32);
}

TEST(BufferAssignmentTest, TupleResultGetsItsOwnTableAllocation) {
  Assigned a = Assign(R"(
HloModule tuple_out, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(p)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}
)");
  // Outputs: the 16-byte pointer table plus a and b (16 each).
  EXPECT_TRUE(AllocationOf(a, "t").is_tuple());
  EXPECT_EQ(AllocationOf(a, "t").size(), 16);
  EXPECT_EQ(a.stats.output_size_in_bytes, 48);
  EXPECT_EQ(a.stats.temp_size_in_bytes, 0);
}

constexpr char kReduceModule[] = R"(
HloModule reduce, is_scheduled=true
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
)";

TEST(BufferAssignmentTest, ThreadLocalComputationsGetThreadLocalAllocations) {
  Assigned a = Assign(kReduceModule);
  EXPECT_TRUE(AllocationOf(a, "s").is_thread_local());
  EXPECT_TRUE(AllocationOf(a, "x").is_thread_local());
  // Thread-local memory is in none of the PJRT counters.
  EXPECT_EQ(a.stats.argument_size_in_bytes, 16);
  EXPECT_EQ(a.stats.output_size_in_bytes, 4);
  EXPECT_EQ(a.stats.temp_size_in_bytes, 0);
  // The constant gets no allocation by default.
  EXPECT_FALSE(a.assignment->HasAllocation(
      a.assignment->dataflow_analysis().GetValueDefinedAt(Find(*a.module, "z"))));
  BufferAssigner::Options with_constants;
  with_constants.allocate_buffers_for_constants = true;
  Assigned b = Assign(kReduceModule, with_constants);
  EXPECT_TRUE(AllocationOf(b, "z").is_constant());
  EXPECT_EQ(b.assignment->GetStats().constant_allocation_bytes, 4);
}

TEST(BufferAssignmentTest, BestHeapNeverLosesToXla) {
  BufferAssigner::Options best;
  best.heap_algorithm = TempHeapAlgorithm::kBest;
  Assigned xla = Assign(kTempsModule);
  Assigned hmo = Assign(kTempsModule, best);
  EXPECT_LE(hmo.stats.temp_size_in_bytes, xla.stats.temp_size_in_bytes);
  ASSERT_EQ(hmo.assignment->temp_heaps().size(), 1u);
  // Equal sizes keep XLA's placement (the first candidate).
  EXPECT_EQ(hmo.assignment->temp_heaps()[0].algorithm, "best-fit-spatial");
}

TEST(BufferAssignmentTest, AlignmentRoundsCombinedTempAllocations) {
  // Two temp heaps of one color cannot arise with an unconstrained heap, but
  // a tuple-table temp and a heap temp are combined end to end, aligned.
  Assigned a = Assign(R"(
HloModule combine, is_scheduled=true
ENTRY e {
  p = f32[3] parameter(0)
  a = f32[3] negate(p)
  t = (f32[3], f32[3]) tuple(a, p)
  g = f32[3] get-tuple-element(t), index=0
  b = f32[6] concatenate(g, g), dimensions={0}
  ROOT r = f32[6] exponential(b)
}
)",
                      {}, /*alignment=*/64);
  // b moves into the output allocation of r (an elementwise user whose live
  // range starts where b's ends). a cannot (its last position g feeds b, of
  // another shape), so it is a heap temp. The tuple table (16 bytes) is its
  // own temp allocation; the heap (a, 12 bytes) is appended at offset 64.
  const BufferAllocation& temp = AllocationOf(a, "t");
  EXPECT_TRUE(temp.IsPreallocatedTempBuffer());
  EXPECT_EQ(&temp, &AllocationOf(a, "a"));
  const HloValue& value_a = a.assignment->dataflow_analysis().GetValueDefinedAt(Find(*a.module, "a"));
  EXPECT_EQ(temp.assigned_buffers().at(&value_a).offset, 64);
  EXPECT_EQ(temp.size(), 64 + 12);
}

}  // namespace
}  // namespace hmo
