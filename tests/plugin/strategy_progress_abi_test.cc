// Progress reports of scheduler strategies across the C ABI (1.2:
// HmoScheduleRequest.report_progress / progress_data), from both sides of
// the minor-version rules: a strategy of this minor, built as C99, reports
// through the host to a ProgressSink; the host gives it NULL when nobody
// listens; hmoReportProgress() reads nothing past a shorter (1.1) request;
// and a strategy of minor 0, which knows nothing of progress, still runs
// with a sink given.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/base/progress_sink.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/plugin/scheduler_strategy_abi.h"
#include "hmo/strategy_host/scheduler_strategy_adapter.h"
#include "hmo/strategy_host/scheduling_view.h"
#include "hmo/text/hlo_parser.h"
#include "support/recording_progress.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

const fs::path kMinorDir = fs::path(HMO_BINARY_DIR) / "tests/fixtures/minor";

using test_support::RecordingProgress;

constexpr std::string_view kModule = R"(
HloModule progress

callee {
  cp = f32[4] parameter(0)
  ROOT cabs = f32[4] abs(cp)
}

ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  c = f32[4] call(n), to_apply=callee
  ROOT a = f32[4] add(c, p)
}
)";

TEST(StrategyProgressAbiTest, TheVersionNamesTheProgressFields) {
  EXPECT_GE(HMO_PLUGIN_ABI_MINOR, 2);
  // Appended after every ABI 1.0 field of the request.
  EXPECT_GT(offsetof(HmoScheduleRequest, report_progress),
            offsetof(HmoScheduleRequest, message_capacity));
  EXPECT_GT(offsetof(HmoScheduleRequest, progress_data),
            offsetof(HmoScheduleRequest, report_progress));
}

TEST(StrategyProgressAbiTest, AStrategyReportsThroughTheHostToTheSink) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(kMinorDir / "libhmo_fixture_abi_progress.so").ok());
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  RecordingProgress progress;
  auto schedule =
      ScheduleModuleWithStrategy(**module, host.registries().strategies, "fixture-progress-order",
                                 {}, nullptr, nullptr, &progress);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  // One task per computation, each step counted up, each task ended once
  // the strategy returned.
  EXPECT_THAT(progress.events,
              ElementsAre("fixture-progress-order scheduling callee 1/2 placed cp",
                          "fixture-progress-order scheduling callee 2/2 placed cabs", "done",
                          "fixture-progress-order scheduling main 1/4 placed p",
                          "fixture-progress-order scheduling main 2/4 placed n",
                          "fixture-progress-order scheduling main 3/4 placed c",
                          "fixture-progress-order scheduling main 4/4 placed a", "done"));
}

TEST(StrategyProgressAbiTest, NobodyListeningMeansNoCallback) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(kMinorDir / "libhmo_fixture_abi_progress.so").ok());
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  // The fixture asks hmoWantsProgress() before each report: with no sink
  // the host's request carries NULL, and scheduling is as before.
  auto schedule = ScheduleModuleWithStrategy(**module, host.registries().strategies,
                                             "fixture-progress-order", {});
  ASSERT_TRUE(schedule.ok()) << schedule.status();
}

// What a host of ABI 1.1 hands a 1.2 strategy: a request that ends before
// the progress fields. The strategy must not read them, whatever lies there.
struct Calls {
  int count = 0;
};

void CountCall(void* data, uint64_t, uint64_t, const char*) { ++static_cast<Calls*>(data)->count; }

TEST(StrategyProgressAbiTest, AShorterRequestIsNotReadPastItsEnd) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(kMinorDir / "libhmo_fixture_abi_progress.so").ok());
  const RegisteredSchedulerStrategy* strategy =
      host.registries().strategies.Find("fixture-progress-order");
  ASSERT_NE(strategy, nullptr);
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  auto view = BuildSchedulingView(*(*module)->entry_computation());
  ASSERT_TRUE(view.ok()) << view.status();
  std::vector<HmoInstructionId> order((*view)->size());
  char message[HMO_MESSAGE_CAPACITY] = {};
  Calls calls;
  HmoScheduleRequest request = {};
  request.view = &(*view)->view();
  request.order = order.data();
  request.message = message;
  request.message_capacity = sizeof(message);
  request.report_progress = &CountCall;
  request.progress_data = &calls;
  const HmoSchedulerStrategy& c = strategy->registration.strategy;

  request.struct_size = offsetof(HmoScheduleRequest, report_progress);  // ABI 1.1
  ASSERT_EQ(c.schedule(c.strategy_data, &request), kHmoOk) << message;
  EXPECT_EQ(request.order_length, order.size());
  EXPECT_EQ(calls.count, 0);
  // One field short of the pair is still too short.
  request.struct_size = offsetof(HmoScheduleRequest, progress_data);
  ASSERT_EQ(c.schedule(c.strategy_data, &request), kHmoOk) << message;
  EXPECT_EQ(calls.count, 0);
  // The whole 1.2 request: one call per instruction.
  request.struct_size = sizeof(HmoScheduleRequest);
  ASSERT_EQ(c.schedule(c.strategy_data, &request), kHmoOk) << message;
  EXPECT_EQ(calls.count, static_cast<int>(order.size()));
  // The C helpers agree.
  request.struct_size = offsetof(HmoScheduleRequest, report_progress);
  EXPECT_FALSE(hmoWantsProgress(&request));
  hmoReportProgress(&request, 1, 2, "ignored");
  EXPECT_EQ(calls.count, static_cast<int>(order.size()));
  request.struct_size = sizeof(HmoScheduleRequest);
  EXPECT_TRUE(hmoWantsProgress(&request));
  request.report_progress = nullptr;
  EXPECT_FALSE(hmoWantsProgress(&request));
  hmoReportProgress(&request, 1, 2, "nobody listens");
}

TEST(StrategyProgressAbiTest, AMinorZeroStrategyRunsWithASinkGiven) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(kMinorDir / "libhmo_fixture_abi_minor_zero.so").ok());
  ASSERT_TRUE(host.LoadPlugin(kMinorDir / "libhmo_fixture_abi_newer_minor.so").ok());
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  for (const char* strategy : {"fixture-minor-zero-order", "fixture-newer-minor-order"}) {
    RecordingProgress progress;
    auto schedule = ScheduleModuleWithStrategy(**module, host.registries().strategies, strategy, {},
                                               nullptr, nullptr, &progress);
    EXPECT_TRUE(schedule.ok()) << strategy << ": " << schedule.status();
    // It never reported, so the host ends no task either.
    EXPECT_TRUE(progress.events.empty()) << strategy;
  }
}

}  // namespace
}  // namespace hmo
