// Running a C-ABI scheduler strategy: a valid order becomes a schedule; every
// kind of invalid answer is an error naming the strategy, its plugin and the
// computation.

#include "hmo/strategy_host/scheduler_strategy_adapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kModule = R"(
HloModule sched

fused {
  fp0 = f32[4] parameter(0)
  ROOT fneg = f32[4] negate(fp0)
}

callee {
  cp0 = f32[4] parameter(0)
  ROOT cabs = f32[4] abs(cp0)
}

ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  add = f32[4] add(p0, p1)
  fusion = f32[4] fusion(add), kind=kLoop, calls=fused
  call = f32[4] call(fusion), to_apply=callee
  ROOT mul = f32[4] multiply(call, p1), control-predecessors={p0}
}
)";

// What a scripted strategy answers: an order per instruction count (or the
// reverse of the text order when none is given), and a status.
struct Script {
  std::vector<HmoInstructionId> order;
  bool reverse_text_order = false;
  HmoStatusCode code = kHmoOk;
  const char* message = "";
  std::vector<std::string> seen_options;
};

HmoStatusCode ScriptedSchedule(const void* data, HmoScheduleRequest* request) {
  auto* script = const_cast<Script*>(static_cast<const Script*>(data));
  for (size_t i = 0; i < request->option_count; ++i) {
    script->seen_options.push_back(std::string(request->options[i].key) + "=" +
                                   request->options[i].value);
  }
  if (script->code != kHmoOk) {
    return hmoSetMessage(script->code, script->message, request->message,
                         request->message_capacity);
  }
  const size_t n = request->view->instruction_count;
  if (script->order.empty()) {
    // Text order, which the parser gives in definition order: always valid.
    for (size_t i = 0; i < n; ++i) request->order[i] = static_cast<HmoInstructionId>(i);
    if (script->reverse_text_order) std::reverse(request->order, request->order + n);
    request->order_length = n;
    return kHmoOk;
  }
  for (size_t i = 0; i < script->order.size() && i < n; ++i) request->order[i] = script->order[i];
  request->order_length = script->order.size();
  return kHmoOk;
}

class SchedulerStrategyAdapterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto module = ParseHloModule(kModule);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
    HmoSchedulerStrategy strategy = {sizeof(HmoSchedulerStrategy),
                                     "scripted",
                                     "for tests",
                                     &ScriptedSchedule,
                                     &script_,
                                     nullptr,
                                     0};
    ASSERT_TRUE(strategies_.Register(strategy, "test-plugin").ok());
  }

  absl::StatusOr<std::vector<HloInstruction*>> ScheduleEntry(const StrategyOptions& options = {}) {
    return ScheduleComputationWithStrategy(*strategies_.Find("scripted"),
                                           *module_->entry_computation(), options);
  }

  std::string ErrorFor(std::vector<HmoInstructionId> order) {
    script_.order = std::move(order);
    auto result = ScheduleEntry();
    EXPECT_FALSE(result.ok());
    return result.ok() ? "" : std::string(result.status().message());
  }

  static std::vector<std::string> Names(const std::vector<HloInstruction*>& sequence) {
    std::vector<std::string> names;
    for (const HloInstruction* instruction : sequence) names.push_back(instruction->name());
    return names;
  }

  Script script_;
  SchedulerStrategyRegistry strategies_;
  std::unique_ptr<HloModule> module_;
};

TEST_F(SchedulerStrategyAdapterTest, ValidOrderBecomesTheInstructionSequence) {
  // p1, p0, add, fusion, call, mul: respects operands and p0 -> mul.
  script_.order = {1, 0, 2, 3, 4, 5};
  auto sequence = ScheduleEntry({{"seed", "7"}, {"mode", "fast"}});
  ASSERT_TRUE(sequence.ok()) << sequence.status();
  EXPECT_THAT(Names(*sequence), ElementsAre("p1", "p0", "add", "fusion", "call", "mul"));
  EXPECT_THAT(script_.seen_options, ElementsAre("seed=7", "mode=fast"));
}

TEST_F(SchedulerStrategyAdapterTest, WrongLength) {
  EXPECT_EQ(ErrorFor({0, 1, 2}),
            "scheduler strategy 'scripted' (plugin 'test-plugin') returned an invalid order for "
            "computation 'main': it returned 3 instruction ids for 6 instructions");
}

TEST_F(SchedulerStrategyAdapterTest, IdOutOfRange) {
  EXPECT_THAT(ErrorFor({0, 1, 2, 3, 4, 60}),
              HasSubstr("position 5 holds id 60, out of range (the computation has 6 "
                        "instructions)"));
}

TEST_F(SchedulerStrategyAdapterTest, IdTwice) {
  EXPECT_THAT(ErrorFor({0, 1, 2, 3, 4, 2}),
              HasSubstr("instruction 'add' (id 2) appears twice, at positions 2 and 5"));
}

TEST_F(SchedulerStrategyAdapterTest, UserBeforeOperand) {
  EXPECT_THAT(ErrorFor({0, 1, 3, 2, 4, 5}),
              HasSubstr("instruction 'fusion' (position 2) comes before its operand 'add' "
                        "(position 3)"));
}

TEST_F(SchedulerStrategyAdapterTest, ControlSuccessorBeforePredecessor) {
  // a is only a control predecessor of n, so only the control edge is broken.
  auto module = ParseHloModule(R"(
HloModule control
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT n = f32[2] negate(b), control-predecessors={a}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  script_.order = {1, 2, 0};
  auto result = ScheduleComputationWithStrategy(*strategies_.Find("scripted"),
                                                *(*module)->entry_computation(), {});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("instruction 'n' (position 1) comes before its control predecessor 'a' "
                        "(position 2)"));
}

TEST_F(SchedulerStrategyAdapterTest, StrategyFailureKeepsItsCodeAndMessage) {
  script_.code = kHmoFailedPrecondition;
  script_.message = "needs a seed";
  auto result = ScheduleEntry();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(result.status().message(),
            "scheduler strategy 'scripted' (plugin 'test-plugin') failed on computation 'main': "
            "needs a seed");
}

TEST_F(SchedulerStrategyAdapterTest, SchedulesEveryNonFusionComputation) {
  auto schedule = ScheduleModuleWithStrategy(*module_, strategies_, "scripted", {});
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_EQ(schedule->num_sequences(), 2);  // main and callee, not the fusion body
  EXPECT_TRUE(schedule->is_computation_scheduled(module_->entry_computation()));
  EXPECT_FALSE(schedule->is_computation_scheduled(module_->GetComputationWithName("fused")));
  ASSERT_TRUE(module_->set_schedule(*std::move(schedule)).ok());
  EXPECT_TRUE(module_->schedule().Verify().ok());
}

TEST_F(SchedulerStrategyAdapterTest, InvalidOrderInACalledComputationNamesIt) {
  script_.reverse_text_order = true;
  auto schedule = ScheduleModuleWithStrategy(*module_, strategies_, "scripted", {});
  ASSERT_FALSE(schedule.ok());
  EXPECT_THAT(schedule.status().message(), HasSubstr("invalid order for computation 'callee'"));
}

TEST_F(SchedulerStrategyAdapterTest, UnknownStrategySuggestsAndListsTheRegisteredOnes) {
  auto schedule = ScheduleModuleWithStrategy(*module_, strategies_, "scriptd", {});
  ASSERT_FALSE(schedule.ok());
  EXPECT_EQ(schedule.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(schedule.status().message(),
            "unknown scheduler strategy 'scriptd' (did you mean 'scripted'?); registered: "
            "scripted");
}

TEST(SchedulerStrategyRegistryTest, RejectsMalformedAndDuplicateStrategies) {
  SchedulerStrategyRegistry registry;
  HmoSchedulerStrategy strategy = {
      sizeof(HmoSchedulerStrategy), "good-name", "", &ScriptedSchedule, nullptr, nullptr, 0};
  ASSERT_TRUE(registry.Register(strategy, "a").ok());
  EXPECT_EQ(registry.Register(strategy, "b").message(),
            "scheduler strategy 'good-name' from plugin 'b' is already registered by plugin 'a'");
  HmoSchedulerStrategy small = strategy;
  small.struct_size = 8;
  EXPECT_THAT(registry.Register(small, "c").message(), HasSubstr("has struct_size 8"));
  HmoSchedulerStrategy no_function = {
      sizeof(HmoSchedulerStrategy), "other", "", nullptr, nullptr, nullptr, 0};
  EXPECT_THAT(registry.Register(no_function, "c").message(),
              HasSubstr("has a null schedule function ('other')"));
  HmoSchedulerStrategy bad_name = {
      sizeof(HmoSchedulerStrategy), "Bad Name", "", &ScriptedSchedule, nullptr, nullptr, 0};
  EXPECT_THAT(registry.Register(bad_name, "c").message(), HasSubstr("is not kebab-case"));
}

// ABI 1.3: a strategy's option declarations become its schema; a malformed
// one refuses the strategy, naming it, its plugin and the fault.
TEST(SchedulerStrategyRegistryTest, DeclaredOptionsBecomeASchema) {
  SchedulerStrategyRegistry registry;
  const HmoPassOptionDecl depth = {
      sizeof(HmoPassOptionDecl), "depth", kHmoPassOptionInt, "4", "how deep", nullptr, 0};
  const HmoPassOptionDecl* const good[] = {&depth};
  HmoSchedulerStrategy strategy = {
      sizeof(HmoSchedulerStrategy), "declared", "", &ScriptedSchedule, nullptr, good, 1};
  ASSERT_TRUE(registry.Register(strategy, "a").ok());
  const RegisteredSchedulerStrategy* registered = registry.Find("declared");
  ASSERT_TRUE(registered->registration.options.has_value());
  ASSERT_EQ(registered->registration.options->specs().size(), 1u);
  EXPECT_EQ(registered->registration.options->specs()[0].default_value,
            PassOptionValue(int64_t{4}));
  absl::StatusOr<StrategyOptions> resolved = ResolveStrategyOptions(*registered, {});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, (StrategyOptions{{"depth", "4"}}));
  EXPECT_THAT(
      std::string(ResolveStrategyOptions(*registered, {{"depth", "deep"}}).status().message()),
      HasSubstr("scheduler strategy 'declared' (plugin 'a'):"));

  const HmoPassOptionDecl bad = {
      sizeof(HmoPassOptionDecl), "Bad_Key", kHmoPassOptionBool, "true", "", nullptr, 0};
  const HmoPassOptionDecl* const bad_list[] = {&bad};
  HmoSchedulerStrategy malformed = {
      sizeof(HmoSchedulerStrategy), "malformed", "", &ScriptedSchedule, nullptr, bad_list, 1};
  EXPECT_EQ(registry.Register(malformed, "b").message(),
            "scheduler strategy 'malformed' of plugin 'b' option key 'Bad_Key' is not kebab-case");
  EXPECT_EQ(registry.Find("malformed"), nullptr);
  // Without declarations, what is forwarded passes as it is.
  HmoSchedulerStrategy undeclared = {
      sizeof(HmoSchedulerStrategy), "undeclared", "", &ScriptedSchedule, nullptr, nullptr, 0};
  ASSERT_TRUE(registry.Register(undeclared, "a").ok());
  EXPECT_FALSE(registry.Find("undeclared")->registration.options.has_value());
  resolved = ResolveStrategyOptions(*registry.Find("undeclared"), {{"anything", "x"}});
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(*resolved, (StrategyOptions{{"anything", "x"}}));
}

}  // namespace
}  // namespace hmo
