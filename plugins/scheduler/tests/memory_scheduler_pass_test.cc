// The memory-scheduler pass with its strategies loaded as plugins through the
// host loader: which candidate `default` keeps and what it measured, which
// computations get scheduled, option forwarding and errors, and the pass
// plugin itself run from a textual pipeline.

#include <algorithm>
#include "pass/memory_scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "hmo/ir/hlo_module.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/pipeline/pass_manager.h"
#include "hmo/pipeline/pipeline_text_parser.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/strategy_host/scheduler_strategy_adapter.h"
#include "hmo/text/hlo_parser.h"
#include "test_modules.h"
#include "test_support.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using test_support::ParseTestModule;

using scheduler::testing::kAllXlaStrategiesMiss;
using scheduler::testing::kLastUse;

// Loads the strategy plugins (and, when asked, the pass plugin) of this build.
void LoadSchedulerPlugins(PluginHost& host, bool pass_plugin = false) {
  const std::filesystem::path dir = HMO_TEST_PLUGIN_DIR;
  for (const char* name : {"list", "dfs", "post_order", "bfs", "local_search", "exact"}) {
    absl::Status status = host.LoadPlugin(dir / fmt::format("libhmo_{}_strategy.so", name));
    ASSERT_TRUE(status.ok()) << status;
  }
  if (pass_plugin) {
    absl::Status status = host.LoadPlugin(dir / "libhmo_scheduler.so");
    ASSERT_TRUE(status.ok()) << status;
  }
}

// Runs the pass (compiled into this test) with `options`
// (`key=value`, lists as `a,b`), strategies from the plugins.
absl::StatusOr<MemorySchedulerMetrics> RunPass(
    HloModule& module, const PluginHost& host,
    std::vector<std::pair<std::string, std::variant<std::string, std::vector<std::string>>>>
        options = {},
    bool* changed_out = nullptr) {
  std::vector<PassOptionAssignment> assignments;
  for (auto& [key, value] : options) assignments.push_back({key, value});
  absl::StatusOr<PassOptions> bound = MemorySchedulerPass::OptionSchema().Bind(assignments);
  if (!bound.ok()) return bound.status();
  absl::StatusOr<std::unique_ptr<MemorySchedulerPass>> pass = MemorySchedulerPass::Create(*bound);
  if (!pass.ok()) return pass.status();
  AnalysisManager analyses(module, &host.registries().analyses);
  PassContext context(analyses, host.registries());
  absl::StatusOr<bool> changed = (*pass)->Run(module, context);
  if (!changed.ok()) return changed.status();
  if (changed_out != nullptr) *changed_out = *changed;
  return (*pass)->metrics();
}

TEST(MemorySchedulerPass, DefaultWithXlaCandidatesIsXlasDefaultScheduler) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kLastUse);
  absl::StatusOr<MemorySchedulerMetrics> metrics =
      RunPass(*module, host,
              {{"candidates", std::vector<std::string>{"list", "dfs", "post-order"}}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  // Peaks worked out in xla_strategies_test: list 672, dfs 504, post-order
  // 504; the tie goes to dfs, the earlier candidate.
  ASSERT_EQ(metrics->candidates.size(), 3u);
  EXPECT_EQ(metrics->candidates[0].peak_memory, 672);
  EXPECT_EQ(metrics->candidates[1].peak_memory, 504);
  EXPECT_EQ(metrics->candidates[2].peak_memory, 504);
  EXPECT_EQ(metrics->selected, 1);
  ASSERT_TRUE(module->has_schedule());
  EXPECT_EQ(scheduler::testing::Names(module->schedule(), *module->entry_computation()),
            "param exp ab add negate sub");
  // Printed in schedule order, marked scheduled.
  const std::string text = module->ToString();
  EXPECT_NE(text.find("is_scheduled=true"), std::string::npos);
  EXPECT_LT(text.find("ab = "), text.find("negate = "));
}

TEST(MemorySchedulerPass, AScheduledModuleKeepsItsOrderUnlessACandidateBeatsIt) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kLastUse);
  // dfs's order (504 bytes) becomes the module's own.
  ASSERT_TRUE(RunPass(*module, host, {{"strategy", std::string("dfs")}}).ok());
  const std::string dfs_order = scheduler::testing::Names(module->schedule(), *module->entry_computation());

  // list alone reaches 672: the input order wins, and is kept; the module
  // is unchanged.
  bool changed = true;
  absl::StatusOr<MemorySchedulerMetrics> metrics =
      RunPass(*module, host, {{"candidates", std::vector<std::string>{"list"}}}, &changed);
  EXPECT_FALSE(changed);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->candidates.size(), 2u);
  EXPECT_EQ(metrics->candidates[0].peak_memory, 672);
  EXPECT_EQ(metrics->candidates[1].strategy, "input");
  EXPECT_EQ(metrics->candidates[1].peak_memory, 504);
  EXPECT_EQ(metrics->selected, 1);
  EXPECT_EQ(scheduler::testing::Names(module->schedule(), *module->entry_computation()), dfs_order);

  // A candidate that only ties it does not replace it: the order stays and
  // the pass reports no change (so fixed-point{memory-scheduler} converges).
  absl::StatusOr<MemorySchedulerMetrics> tie = RunPass(
      *module, host, {{"candidates", std::vector<std::string>{"list", "post-order"}}}, &changed);
  ASSERT_TRUE(tie.ok()) << tie.status();
  ASSERT_EQ(tie->candidates.size(), 3u);
  EXPECT_EQ(tie->candidates[1].peak_memory, tie->candidates[2].peak_memory);
  EXPECT_EQ(tie->candidates[tie->selected].strategy, "input");
  EXPECT_FALSE(changed);
  EXPECT_EQ(scheduler::testing::Names(module->schedule(), *module->entry_computation()), dfs_order);
}

// The default objective is what buffer assignment then lays out, not the
// heap peak: on this module local-search's order peaks lower (40 bytes
// against 48) but, with 64-byte offsets, costs no fewer device bytes than
// dfs's, so the earlier dfs is kept.
TEST(MemorySchedulerPass, DefaultComparesDeviceBytesAfterBufferAssignment) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kAllXlaStrategiesMiss);
  absl::StatusOr<MemorySchedulerMetrics> metrics = RunPass(*module, host);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->candidates.size(), 5u);
  EXPECT_EQ(metrics->objective, SchedulingObjective::kDeviceBytes);
  int64_t lowest = metrics->candidates[0].device_bytes;
  for (const auto& candidate : metrics->candidates) {
    EXPECT_GT(candidate.device_bytes, 0) << candidate.strategy;
    lowest = std::min(lowest, candidate.device_bytes);
  }
  EXPECT_EQ(metrics->candidates[metrics->selected].device_bytes, lowest);
  EXPECT_EQ(metrics->candidates[3].peak_memory, 40);
  EXPECT_LT(metrics->candidates[3].peak_memory, metrics->candidates[metrics->selected].peak_memory);
  EXPECT_NE(metrics->ToString().find("selected: dfs (by device-bytes)"), std::string::npos) << metrics->ToString();
  // An unknown objective is refused when the pass is created.
  EXPECT_FALSE(RunPass(*module, host, {{"objective", std::string("bytes")}}).ok());
}

// Buffer assignment costs far more than a heap simulation, so device bytes
// are measured in increasing heap peak, and a candidate whose peak is above
// the best device bytes by more than device-bytes-slack is not assigned. The
// module arrives in an order that keeps all four 4 KiB temporaries live at
// once; list's order keeps one.
constexpr std::string_view kFanOutArrivedScheduled = R"(
HloModule fan_out, is_scheduled=true

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY entry {
  p = f32[1024] parameter(0)
  zero = f32[] constant(0)
  a1 = f32[1024] negate(p)
  a2 = f32[1024] exponential(p)
  a3 = f32[1024] sine(p)
  a4 = f32[1024] cosine(p)
  r1 = f32[] reduce(a1, zero), dimensions={0}, to_apply=add
  r2 = f32[] reduce(a2, zero), dimensions={0}, to_apply=add
  r3 = f32[] reduce(a3, zero), dimensions={0}, to_apply=add
  r4 = f32[] reduce(a4, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[], f32[], f32[]) tuple(r1, r2, r3, r4)
}
)";

TEST(MemorySchedulerPass, CandidatesFarAboveTheBestDeviceBytesAreNotAssigned) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kFanOutArrivedScheduled);
  absl::StatusOr<MemorySchedulerMetrics> metrics =
      RunPass(*module, host, {{"candidates", std::vector<std::string>{"list", "bfs"}}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->candidates.size(), 3u);
  ASSERT_EQ(metrics->candidates[1].strategy, "bfs");
  ASSERT_EQ(metrics->candidates[2].strategy, "input");
  const MemorySchedulerMetrics::Candidate& list = metrics->candidates[0];
  const MemorySchedulerMetrics::Candidate& bfs = metrics->candidates[1];
  const MemorySchedulerMetrics::Candidate& input = metrics->candidates[2];
  EXPECT_GT(list.device_bytes, 0);
  // BFS keeps the four temporaries live at once, as the arrived order does.
  EXPECT_GT(static_cast<double>(bfs.peak_memory), 1.5 * static_cast<double>(list.device_bytes));
  EXPECT_EQ(bfs.device_bytes, -1);
  EXPECT_NE(metrics->ToString().find("bfs: " + std::to_string(bfs.peak_memory) +
                                     " bytes, device not assigned"),
            std::string::npos)
      << metrics->ToString();
  // The arrived order is measured whatever its peak: a pass before may have
  // fitted it to a limit, and only a candidate measured better replaces it.
  EXPECT_GT(static_cast<double>(input.peak_memory), 1.5 * static_cast<double>(list.device_bytes));
  EXPECT_GT(input.device_bytes, list.device_bytes);
  EXPECT_EQ(metrics->selected, 0);

  // With a slack wide enough every candidate is assigned, and list still wins.
  auto again = ParseTestModule(kFanOutArrivedScheduled);
  absl::StatusOr<MemorySchedulerMetrics> all = RunPass(
      *again, host,
      {{"candidates", std::vector<std::string>{"list"}}, {"device-bytes-slack", std::string("100")}});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_GT(all->candidates[1].device_bytes, all->candidates[0].device_bytes);
  EXPECT_EQ(all->selected, 0);
  EXPECT_FALSE(RunPass(*again, host, {{"device-bytes-slack", std::string("-1")}}).ok());
}

TEST(MemorySchedulerPass, DefaultKeepsOurStrategyWhenItIsBetter) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kAllXlaStrategiesMiss);
  absl::StatusOr<MemorySchedulerMetrics> metrics =
      RunPass(*module, host, {{"objective", std::string("heap-peak")}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->candidates.size(), 5u);
  const char* names[] = {"list", "dfs", "post-order", "local-search", "exact"};
  const int64_t peaks[] = {48, 48, 48, 40, 40};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(metrics->candidates[i].strategy, names[i]);
    EXPECT_TRUE(metrics->candidates[i].valid_schedule);
    EXPECT_EQ(metrics->candidates[i].peak_memory, peaks[i]) << names[i];
  }
  EXPECT_EQ(metrics->selected, 3);
  // b and c run right after a (d and e may come in either order).
  EXPECT_EQ(scheduler::testing::Names(module->schedule(), *module->entry_computation())
                .substr(0, 5),
            "a b c");
  EXPECT_NE(metrics->ToString().find("selected: local-search"), std::string::npos);

  // The exact strategy as a candidate of its own finds the same optimum.
  auto again = ParseTestModule(kAllXlaStrategiesMiss);
  absl::StatusOr<MemorySchedulerMetrics> exact = RunPass(
      *again, host,
      {{"candidates", std::vector<std::string>{"list", "dfs", "post-order", "exact"}},
       {"objective", std::string("heap-peak")}});
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(exact->candidates[3].peak_memory, 40);
  EXPECT_EQ(exact->selected, 3);
}

// Control flow of every kind, and a fusion.
constexpr std::string_view kControlFlow = R"(
HloModule control_flow

fused {
  fp = f32[4] parameter(0)
  ROOT fn = f32[4] negate(fp)
}

callee {
  cp = f32[4] parameter(0)
  ROOT ce = f32[4] exponential(cp)
}

then_branch {
  tp = f32[4] parameter(0)
  ROOT tn = f32[4] negate(tp)
}

else_branch {
  ep = f32[4] parameter(0)
  ROOT ea = f32[4] abs(ep)
}

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
  z = f32[4] call(y), to_apply=callee
  ROOT t = (s32[], f32[4]) tuple(next, z)
}

ENTRY entry {
  a = f32[4] parameter(0)
  flag = pred[] parameter(1)
  zero = s32[] constant(0)
  b = f32[4] fusion(a), kind=kLoop, calls=fused
  init = (s32[], f32[4]) tuple(zero, b)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  r = f32[4] get-tuple-element(w), index=1
  ROOT out = f32[4] conditional(flag, r, a), true_computation=then_branch, false_computation=else_branch
}
)";

TEST(MemorySchedulerPass, SchedulesEveryNonFusionComputation) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  for (const char* strategy :
       {"default", "list", "dfs", "post-order", "bfs", "local-search", "exact"}) {
    auto module = ParseTestModule(kControlFlow);
    absl::StatusOr<MemorySchedulerMetrics> metrics =
        RunPass(*module, host, {{"strategy", std::string(strategy)}});
    ASSERT_TRUE(metrics.ok()) << strategy << ": " << metrics.status();
    const HloSchedule& schedule = module->schedule();
    EXPECT_TRUE(schedule.Verify().ok());
    for (const char* name : {"entry", "body", "cond", "callee", "then_branch", "else_branch"}) {
      EXPECT_TRUE(schedule.is_computation_scheduled(module->GetComputationWithName(name)))
          << strategy << " " << name;
    }
    EXPECT_FALSE(schedule.is_computation_scheduled(module->GetComputationWithName("fused")))
        << strategy;
    EXPECT_EQ(schedule.num_sequences(), 6) << strategy;
  }
}

TEST(MemorySchedulerPass, ForwardsStrategyOptions) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kAllXlaStrategiesMiss);
  // Without windows or the exact search, local search cannot move b and c
  // together.
  absl::StatusOr<MemorySchedulerMetrics> metrics = RunPass(
      *module, host,
      {{"strategy", std::string("local-search")},
       {"strategy-options", std::vector<std::string>{"local-search.window=0",
                                                     "local-search.exact-instructions=0"}}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(metrics->candidates[0].peak_memory, 48);

  auto again = ParseTestModule(kAllXlaStrategiesMiss);
  absl::StatusOr<MemorySchedulerMetrics> unknown =
      RunPass(*again, host,
              {{"strategy", std::string("local-search")},
               {"strategy-options", std::vector<std::string>{"local-search.windows=3"}}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown option 'windows'"), std::string::npos)
      << unknown.status();
}

// Strategies declare their options (ABI 1.3): what strategy-options forwards
// is checked against the declarations before any candidate runs, including
// options for a strategy this run does not use.
TEST(MemorySchedulerPass, ChecksForwardedOptionsAgainstTheStrategysDeclarations) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"local-search.window=many",
       "strategy-options: scheduler strategy 'local-search' (plugin 'local-search-strategy'):"},
      {"exact.max-state=5", "unknown option 'max-state'"},
      {"list.window=3", "scheduler strategy 'list' (plugin 'list-strategy')"},
      {"loca-search.window=3",
       "strategy-options names strategy 'loca-search', which no plugin registered (did you mean "
       "'local-search'?)"}};
  for (const auto& [entry, expected] : cases) {
    auto module = ParseTestModule(kAllXlaStrategiesMiss);
    absl::StatusOr<MemorySchedulerMetrics> metrics = RunPass(
        *module, host,
        {{"strategy", std::string("dfs")}, {"strategy-options", std::vector<std::string>{entry}}});
    ASSERT_FALSE(metrics.ok()) << entry;
    EXPECT_EQ(metrics.status().code(), absl::StatusCode::kInvalidArgument) << entry;
    EXPECT_THAT(std::string(metrics.status().message()), ::testing::HasSubstr(expected))
        << metrics.status();
  }
}

// The request holds every declared option, in declaration order, the
// default where the pipeline gave none; a strategy declaring none gets what
// is forwarded.
TEST(MemorySchedulerPass, AStrategyReceivesEveryDeclaredOptionWithItsDefault) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  const RegisteredSchedulerStrategy* exact = host.registries().strategies.Find("exact");
  ASSERT_NE(exact, nullptr);
  ASSERT_TRUE(exact->registration.options.has_value());
  absl::StatusOr<StrategyOptions> resolved = ResolveStrategyOptions(*exact, {{"max-states", "17"}});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, (StrategyOptions{{"max-instructions", "128"},
                                        {"max-states", "17"},
                                        {"move-radius", "48"},
                                        {"max-move-distance", "1024"},
                                        {"window", "20"},
                                        {"window-states", "20000"},
                                        {"max-evaluations", "20000000"}}));
  const RegisteredSchedulerStrategy* list = host.registries().strategies.Find("list");
  ASSERT_TRUE(list->registration.options.has_value());
  EXPECT_TRUE(list->registration.options->specs().empty());
}

// A value offloaded to host memory (S(5)) and brought back: under the
// device-memory objective the move out comes right after its producer (the
// device copy dies, the host copy is free) and the move back right before
// its reader; counting every memory space, the host copy costs as much as
// the device one and the device peak stays higher.
constexpr char kOffloaded[] = R"(
HloModule offloaded

ENTRY entry {
  p = f32[256] parameter(0)
  a = f32[256] negate(p)
  b = f32[256] exponential(a)
  h = f32[256]{0:S(5)} copy(a)
  c = f32[256] sine(b)
  e = f32[256] add(c, b)
  d = f32[256] copy(h)
  ROOT r = f32[256] add(e, d)
}
)";

TEST(MemorySchedulerPass, DeviceMemoryObjectiveMovesOffloadedValuesOutEarlyAndBackLate) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kOffloaded);
  absl::StatusOr<MemorySchedulerMetrics> device = RunPass(*module, host);
  ASSERT_TRUE(device.ok()) << device.status();
  std::vector<std::string> order;
  for (const HloInstruction* instruction : module->schedule().sequence(module->entry_computation()).instructions()) {
    order.push_back(instruction->name());
  }
  auto position = [&](const std::string& name) { return std::find(order.begin(), order.end(), name) - order.begin(); };
  EXPECT_LT(position("h"), position("c")) << fmt::format("{}", fmt::join(order, " "));
  EXPECT_GT(position("d"), position("e")) << fmt::format("{}", fmt::join(order, " "));
  // p, a, b; then p, b, c; then p, e, d: 3 x 1 KiB of device memory.
  EXPECT_EQ(device->candidates[device->selected].peak_memory, 3 * 1024);

  auto again = ParseTestModule(kOffloaded);
  absl::StatusOr<MemorySchedulerMetrics> all = RunPass(*again, host, {{"memory-spaces", std::string("all")}});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_GT(all->candidates[all->selected].peak_memory, 3 * 1024);

  absl::StatusOr<MemorySchedulerMetrics> bad =
      RunPass(*ParseTestModule(kOffloaded), host, {{"memory-spaces", std::string("host")}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("must be one of device, all, not 'host'"),
            std::string::npos)
      << bad.status();
}

TEST(MemorySchedulerPass, RejectsUnknownStrategiesAndMalformedOptions) {
  PluginHost host;
  LoadSchedulerPlugins(host);
  auto module = ParseTestModule(kLastUse);
  absl::StatusOr<MemorySchedulerMetrics> unknown =
      RunPass(*module, host, {{"strategy", std::string("lists")}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("did you mean"), std::string::npos)
      << unknown.status();

  absl::StatusOr<MemorySchedulerMetrics> malformed = RunPass(
      *module, host, {{"strategy-options", std::vector<std::string>{"window=3"}}});
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.status().message().find("strategy.key=value"), std::string::npos);
}

TEST(MemorySchedulerPass, RunsFromATextualPipelineAsAPlugin) {
  PluginHost host;
  LoadSchedulerPlugins(host, /*pass_plugin=*/true);
  absl::StatusOr<PipelineSpec> spec =
      ParsePipelineText("memory-scheduler{strategy=list}", "<test>");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<ResolvedPipeline> pipeline = ResolvePipeline(*spec, host.registries().passes);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto module = ParseTestModule(kLastUse);
  PassManager manager(*pipeline, host.registries());
  absl::StatusOr<PipelineRunSummary> summary = manager.Run(*module);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ASSERT_TRUE(module->has_schedule());
  EXPECT_EQ(scheduler::testing::Names(module->schedule(), *module->entry_computation()),
            "param exp negate ab add sub");
}

}  // namespace
}  // namespace hmo
