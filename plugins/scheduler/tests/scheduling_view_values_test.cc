// The value table a scheduling view carries (ABI 1.1): what XLA's schedulers
// count, read off the dataflow analysis.

#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.h"

namespace hmo::scheduler {
namespace {

constexpr std::string_view kTuples = R"(
HloModule tuples, input_output_alias={ {1}: (1, {}, may-alias) }

ENTRY entry {
  p = f32[4] parameter(0)
  donated = f32[4] parameter(1)
  one = f32[] constant(1)
  a = f32[4] negate(p)
  b = f32[] reduce(a, one), dimensions={0}, to_apply=add
  t = (f32[4], f32[]) tuple(a, b)
  g = f32[4] get-tuple-element(t), index=0
  c = f32[4] bitcast(g)
  d = f32[4] add(c, donated)
  ROOT out = (f32[4], f32[4]) tuple(c, d)
}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

int Find(const SchedulingGraph& graph, std::string_view name) {
  for (int i = 0; i < graph.instruction_count(); ++i) {
    if (graph.instruction(i).name == name) return i;
  }
  return -1;
}

int64_t Bytes(const SchedulingGraph& graph, const std::vector<int>& values) {
  int64_t bytes = 0;
  for (int v : values) bytes += graph.value(v).size;
  return bytes;
}

TEST(SchedulingViewValues, CountValuesTheWayXlasSchedulersDo) {
  absl::StatusOr<std::unique_ptr<testing::AnalyzedModule>> m =
      testing::AnalyzedModule::Parse(kTuples);
  ASSERT_TRUE(m.ok()) << m.status();
  SchedulingGraph graph = (*m)->Graph();
  const SchedulingInstruction& t = graph.instruction(Find(graph, "t"));
  const SchedulingInstruction& g = graph.instruction(Find(graph, "g"));
  const SchedulingInstruction& c = graph.instruction(Find(graph, "c"));
  // A tuple defines only its index table (2 pointers); a get-tuple-element and
  // a bitcast define nothing.
  EXPECT_EQ(Bytes(graph, t.defined_values), 16);
  EXPECT_TRUE(g.defined_values.empty());
  EXPECT_TRUE(c.defined_values.empty());
  // The get-tuple-element reads every value of its tuple operand: the table,
  // a and b.
  EXPECT_EQ(g.used_values.size(), 3u);
  EXPECT_EQ(Bytes(graph, g.used_values), 16 + 16 + 4);
  // The bitcast reads what the get-tuple-element forwards: a.
  ASSERT_EQ(c.used_values.size(), 1u);
  EXPECT_EQ(graph.value(c.used_values[0]).defining_instruction, Find(graph, "a"));
  // Live out: the root's table, a (through c) and d.
  int live_out = 0;
  for (int v = 0; v < graph.value_count(); ++v) live_out += graph.value(v).live_out;
  EXPECT_EQ(live_out, 3);
  // Flags: b is a scalar; parameters and constants are marked, and the
  // donated parameter is freed after its last use.
  EXPECT_TRUE(graph.instruction(Find(graph, "b")).effective_scalar);
  EXPECT_FALSE(graph.instruction(Find(graph, "a")).effective_scalar);
  for (int v = 0; v < graph.value_count(); ++v) {
    const int def = graph.value(v).defining_instruction;
    const std::string& name = graph.instruction(def).name;
    EXPECT_EQ(graph.value(v).defined_by_parameter_or_constant,
              name == "p" || name == "donated" || name == "one")
        << name;
    EXPECT_EQ(graph.value(v).freed_after_last_use, name == "donated") << name;
  }
}

// For the device-bytes objective the view marks what lives outside the temp
// arena: values whose buffer holds an entry parameter or an entry output. The
// live-byte model then counts only the arena, so its peak drops by exactly
// those bytes here (at the peak step every one of them is live).
TEST(SchedulingViewValues, MarksValuesOutsideTheTempArenaWhenAsked) {
  absl::StatusOr<std::unique_ptr<testing::AnalyzedModule>> m =
      testing::AnalyzedModule::Parse(kTuples);
  ASSERT_TRUE(m.ok()) << m.status();
  SchedulingInputs arena = (*m)->inputs();
  arena.values.mark_outside_temp_arena = true;
  absl::StatusOr<SchedulingGraph> marked = GraphOfComputation((*m)->computation(), arena);
  ASSERT_TRUE(marked.ok()) << marked.status();
  const SchedulingGraph unmarked = (*m)->Graph();
  ASSERT_EQ(marked->value_count(), unmarked.value_count());
  for (int v = 0; v < marked->value_count(); ++v) {
    const std::string& name = marked->instruction(marked->value(v).defining_instruction).name;
    // p, donated: parameters; a reaches the root through c; d and out's table
    // are outputs. b and t's table are temporaries.
    const bool outside = name == "p" || name == "donated" || name == "a" || name == "d" || name == "out";
    EXPECT_EQ(marked->value(v).outside_temp_arena, outside) << name;
    EXPECT_FALSE(unmarked.value(v).outside_temp_arena) << name;
  }
  MemoryModel with_outputs(unmarked), arena_only(*marked);
  std::vector<int> order;
  for (std::string_view name : {"p", "donated", "one", "a", "b", "t", "g", "c", "d", "out"}) {
    order.push_back(Find(unmarked, name));
  }
  // Temporaries only: at b's step, b (4) and nothing else; at t's step, t's
  // table (16) while b is still read by t.
  EXPECT_EQ(arena_only.Peak(order), 16 + 4);
  EXPECT_GT(with_outputs.Peak(order), arena_only.Peak(order));
}

constexpr std::string_view kLoop = R"(
HloModule loop

cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  big = f32[64,64] broadcast(x), dimensions={0}
  x0 = f32[] constant(0)
  r = f32[64] reduce(big, x0), dimensions={1}, to_apply=add
  ROOT t = (s32[], f32[64]) tuple(next, r)
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY entry {
  v = f32[64] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64]) tuple(zero, v)
  ROOT w = (s32[], f32[64]) while(init), condition=cond, body=body
}
)";

TEST(ModuleViews, WhileCarriesItsBodysTemporariesAsTransientBytes) {
  absl::StatusOr<std::unique_ptr<testing::AnalyzedModule>> m =
      testing::AnalyzedModule::Parse(kLoop);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::vector<ComputationView>> built =
      BuildModuleViews((*m)->module(), (*m)->inputs());
  ASSERT_TRUE(built.ok()) << built.status();
  std::vector<ComputationView>& views = *built;
  // Callees come first; the entry last.
  ASSERT_EQ(views.back().computation, &(*m)->computation());
  absl::StatusOr<SchedulingGraph> entry = SchedulingGraph::FromView(views.back().view->view());
  ASSERT_TRUE(entry.ok()) << entry.status();
  // What the body holds beyond its parameter's values and its results (the
  // loop's own buffers, counted by the entry): big, 16 KiB.
  EXPECT_EQ(entry->instruction(Find(*entry, "w")).transient_bytes, 64 * 64 * 4);
  EXPECT_EQ(entry->instruction(Find(*entry, "init")).transient_bytes, 0);
}

}  // namespace
}  // namespace hmo::scheduler
