// XLA's scheduling algorithms on small modules: the orders and heap-simulated
// module peaks they give, worked out by hand in the comments (as XLA's own
// hlo_memory_scheduler_test does). Sizes: f32[42] = 168 bytes, f32[4] = 16,
// f32[2] = 8, s32[1000] = 4000, a tuple = 8 bytes per element.

#include <gtest/gtest.h>

#include "core/bfs_scheduler.h"
#include "core/dfs_scheduler.h"
#include "core/list_scheduler.h"
#include "core/post_order_scheduler.h"
#include "test_modules.h"
#include "test_support.h"

namespace hmo::scheduler {
namespace {

using testing::kLastUse;
using testing::kWeakness;

using testing::AnalyzedModule;
using testing::Names;

std::unique_ptr<AnalyzedModule> Parse(std::string_view text) {
  absl::StatusOr<std::unique_ptr<AnalyzedModule>> module = AnalyzedModule::Parse(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

std::vector<int> Dfs(const SchedulingGraph& graph) {
  absl::StatusOr<std::vector<int>> order = DfsSchedule(graph);
  EXPECT_TRUE(order.ok()) << order.status();
  return order.ok() ? *order : std::vector<int>{};
}

TEST(XlaListScheduler, BreaksTiesLastInFirstOut) {
  // param first (only ready). ab (-168, 1 user) and exp (-168, 2 users): exp.
  // Then negate becomes ready with (-168, 1), equal to ab's key but queued
  // later, so it wins; ab, add (frees ab and exp: +168), sub follow.
  auto m = Parse(kLastUse);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, ListSchedule(graph)), "param exp negate ab add sub");
  // Peak at ab: param (live to the end), exp, negate, ab = 4 x 168. add takes
  // over ab's buffer, sub add's.
  EXPECT_EQ(m->Peak(m->Schedule(ListSchedule)), 672);
}

TEST(XlaDfsScheduler, VisitsOperandsByExtraUsersThenSize) {
  // Stats (post order param ab exp add negate sub): exp has 1 extra user;
  // add: extra 1, size 504; negate: extra 1, size 336. From sub: add before
  // negate (same extra users, larger size); from add: exp (1 extra user)
  // before ab (0).
  auto m = Parse(kLastUse);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, Dfs(graph)), "param exp ab add negate sub");
  // param, exp, ab live at ab (504); add reuses ab, negate exp, sub add.
  EXPECT_EQ(m->Peak(m->Schedule(Dfs)), 504);
}

TEST(XlaPostOrderScheduler, IsTheInstructionPostOrder) {
  auto m = Parse(kLastUse);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, PostOrderSchedule(graph)), "param ab exp add negate sub");
  EXPECT_EQ(m->Peak(m->Schedule(PostOrderSchedule)), 504);
}

TEST(XlaBfsScheduler, IsKahnOrderWithAFifo) {
  auto m = Parse(kLastUse);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, BfsSchedule(graph)), "param ab exp add negate sub");
}

// A tuple read back through get-tuple-element: a GTE uses every value of its
// tuple operand, and the tuple itself defines only its 16-byte index table.
constexpr std::string_view kTupleAliasing = R"(
HloModule tuple_aliasing

ENTRY root {
  param = s32[1000] parameter(0)
  p0 = s32[1000] copy(param)
  p1 = s32[1000] copy(param)
  t = (s32[1000], s32[1000]) tuple(p0, p1)
  a = s32[1000] get-tuple-element(t), index=0
  b = s32[1000] get-tuple-element(t), index=1
  c = s32[1000] add(a, b)
  d = s32[1000] add(c, b)
  e = s32[1000] add(c, c)
  f = s32[1000] add(e, e)
  ROOT result = (s32[1000], s32[1000], s32[1000]) tuple(d, e, f)
}
)";

TEST(XlaListScheduler, CountsValuesThroughTuples) {
  // p0, p1 tie at (-4000, 1): p1 (queued last). t: (-16, 2). a and b read
  // {t, p0, p1}: (0, 1) and (0, 2): b; b leaves t's table with one use, so a
  // is re-prioritized to (16, 1). c (0, 2). Then d (frees p1's value:
  // 4000 - 4000 = 0) beats e (-4000): d before e. e, f, result.
  auto m = Parse(kTupleAliasing);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, ListSchedule(graph)), "param p1 p0 t b a c d e f result");
  // Peak: param, d, e, f (4 x 4000) plus the result's table (24) at result.
  EXPECT_EQ(m->Peak(m->Schedule(ListSchedule)), 16024);
}

TEST(XlaListScheduler, GreedyDeferralRaisesThePeak) {
  // After a: b (-16, 1), d (-8, 1), e (-8, 1): e, then d. d leaves a with one
  // use, so b is re-prioritized to (0, 1) and, queued after f (0, 1), wins.
  // b: a, d, e, b live = 48 bytes. Scheduling b and c first peaks at 40.
  auto m = Parse(kWeakness);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, ListSchedule(graph)), "a e d b c f h g");
  EXPECT_EQ(m->Peak(m->Schedule(ListSchedule)), 48);
}

TEST(XlaDfsScheduler, WeaknessGraph) {
  // g: c (extra 2, size 40) and h (extra 4, size 72): h first; f's operands
  // d and e tie on both stats and go by name.
  auto m = Parse(kWeakness);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, Dfs(graph)), "a d e f h b c g");
  EXPECT_EQ(m->Peak(m->Schedule(Dfs)), 48);
}

TEST(XlaPostOrderScheduler, WeaknessGraph) {
  auto m = Parse(kWeakness);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, PostOrderSchedule(graph)), "a b c d e f h g");
  EXPECT_EQ(m->Peak(m->Schedule(PostOrderSchedule)), 40);
}

TEST(XlaBfsScheduler, WeaknessGraph) {
  auto m = Parse(kWeakness);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, BfsSchedule(graph)), "a b d e c f h g");
}

// x and y are ready together; the list scheduler would take y (queued last),
// the control edge forces x first.
constexpr std::string_view kControl = R"(
HloModule control

ENTRY entry {
  p = f32[4] parameter(0)
  x = f32[4] negate(p)
  y = f32[4] exponential(p), control-predecessors={x}
  ROOT z = f32[4] add(x, y)
}
)";

constexpr std::string_view kNoControl = R"(
HloModule no_control

ENTRY entry {
  p = f32[4] parameter(0)
  x = f32[4] negate(p)
  y = f32[4] exponential(p)
  ROOT z = f32[4] add(x, y)
}
)";

TEST(XlaSchedulers, RespectControlDependencies) {
  auto free = Parse(kNoControl);
  SchedulingGraph free_graph = free->Graph();
  EXPECT_EQ(Names(free_graph, ListSchedule(free_graph)), "p y x z");

  auto m = Parse(kControl);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, ListSchedule(graph)), "p x y z");
  EXPECT_EQ(Names(graph, Dfs(graph)), "p x y z");
  EXPECT_EQ(Names(graph, PostOrderSchedule(graph)), "p x y z");
  EXPECT_EQ(Names(graph, BfsSchedule(graph)), "p x y z");
}

// Scalars go first: the list scheduler's (INT64_MAX, INT64_MAX) priority.
constexpr std::string_view kScalars = R"(
HloModule scalars

ENTRY entry {
  p = f32[8] parameter(0)
  s = f32[] parameter(1)
  big = f32[8] negate(p)
  small = f32[] negate(s)
  ROOT t = (f32[8], f32[]) tuple(big, small)
}
)";

TEST(XlaListScheduler, SchedulesEffectiveScalarsFirst) {
  // p (0, 1) then s: s is a scalar, (MAX, MAX), taken first. Then p; big
  // (-32, 1) and small (MAX): small first.
  auto m = Parse(kScalars);
  SchedulingGraph graph = m->Graph();
  EXPECT_EQ(Names(graph, ListSchedule(graph)), "s small p big t");
}

// A while loop carrying (counter, vector), with a temporary in the body.
constexpr std::string_view kWhile = R"(
HloModule while_loop

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[4] multiply(x, x)
  z = f32[4] exponential(y)
  ROOT t = (s32[], f32[4]) tuple(next, z)
}

ENTRY entry {
  a = f32[4] parameter(0)
  zero = s32[] constant(0)
  b = f32[4] negate(a)
  init = (s32[], f32[4]) tuple(zero, b)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  r = f32[4] get-tuple-element(w), index=1
  ROOT out = f32[4] add(r, a)
}
)";

TEST(XlaListScheduler, SchedulesWhileBodiesConditionsAndTheirCaller) {
  auto m = Parse(kWhile);
  // cond: the constant n is a scalar (first), then p, i, lt (scalars).
  SchedulingGraph cond = m->Graph("cond");
  EXPECT_EQ(Names(cond, ListSchedule(cond)), "n p i lt");
  // body: scalars one, then p (0, 2 users), i and next (scalars), x (reads
  // only the parameter's values: (0, 1)), y (-16), z (frees y: 0), t.
  SchedulingGraph body = m->Graph("body");
  EXPECT_EQ(Names(body, ListSchedule(body)), "one p i next x y z t");
  // entry: zero, a, b (-16), init (frees b's last use but one... (0, 1)),
  // w (frees init's table and b, defines the loop's values), r, out.
  SchedulingGraph entry = m->Graph();
  EXPECT_EQ(Names(entry, ListSchedule(entry)), "zero a b init w r out");
  // The loop flattens into the entry: cond (n p i lt), then body, before w.
  // The carried state is one buffer per index (table 16, counter 4, vector
  // 16), but each parameter defines its own phi values in it, and the
  // no-fragmentation heap counts every value of a shared buffer: at the body's
  // p, the cond's p values (36 bytes, ending there) and the body's (36,
  // starting there) are both counted, with a (16) and lt (1): 89.
  EXPECT_EQ(m->Peak(m->Schedule(ListSchedule)), 89);
}

TEST(XlaDfsScheduler, SchedulesWhileBodies) {
  // Post order p i one next x y z t; t's operands: z (subtree size 32)
  // before next (4); next's: i before one, by name.
  auto m = Parse(kWhile);
  SchedulingGraph body = m->Graph("body");
  EXPECT_EQ(Names(body, Dfs(body)), "p x y z i one next t");
  EXPECT_EQ(Names(body, PostOrderSchedule(body)), "p i one next x y z t");
}

}  // namespace
}  // namespace hmo::scheduler
