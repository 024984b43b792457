// Collectives in the GPU executable, compile side (the attribute parsing
// is the framework's: tests/ir/collective_attributes_test.cc): the
// clique-of-one thunks of a single replica, CollectiveOpFor for several
// replicas, and the errors for cliques it cannot run. Replicated runs are
// in gpu_replicated_execution_test.cc.

#include <memory>
#include <string>

#include "gpu/compiler/gpu_collectives.h"
#include "gpu/compiler/gpu_compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

constexpr char kCliqueOfOne[] = R"(
HloModule collectives, is_scheduled=true

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8] parameter(0)
  ar = f32[8] all-reduce(x), replica_groups={}, to_apply=sum
  ag = f32[8] all-gather(ar), replica_groups={{0}}, dimensions={0}
  cp = f32[8] collective-permute(x), source_target_pairs={}
  n = f32[8] negate(ag)
  ROOT t = (f32[8], f32[8]) tuple(n, cp)
}
)";

TEST(GpuCollectivesTest, CliqueOfOneCollectivesAreThunks) {
  auto module = ParseHloModule(kCliqueOfOne);
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForGpu(**module, GpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = DescribeThunks((*executable)->plan().entry);
  EXPECT_THAT(plan, HasSubstr("collective ar 32 bytes"));
  EXPECT_THAT(plan, HasSubstr("collective ag 32 bytes"));
  EXPECT_THAT(plan, HasSubstr("collective cp 32 bytes"));
  EXPECT_THAT(plan, HasSubstr("kernel n"));
  EXPECT_TRUE((*executable)->plan().has_collectives);
  EXPECT_EQ((*executable)->kernels().kernels.size(), 1u);  // only the negate

  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4, 5, 6, 7, 8}));
  absl::StatusOr<Literal> result = (*executable)->Execute(arguments, nullptr);
  if (!CudaDeviceCount().ok()) {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status();
  const Literal& negated = result->tuple_elements()[0];
  const Literal& permuted = result->tuple_elements()[1];
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(negated.GetAsDouble(i), -(i + 1.0)) << i;
    EXPECT_EQ(permuted.GetAsDouble(i), 0.0) << i;  // no source: zeros
  }
}

// Groups that name more devices than the executable runs are refused when
// it is compiled, naming the instruction and the ids.
TEST(GpuCollectivesTest, GroupsPastTheDevicesAreRefusedAndNamed) {
  auto module = ParseHloModule(R"(
HloModule two, is_scheduled=true

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(x), replica_groups={{0,1}}, to_apply=sum
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForGpu(**module, GpuCompileOptions{});
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(executable.status().message()), HasSubstr("all-reduce ar"));
  EXPECT_THAT(std::string(executable.status().message()),
              HasSubstr("names 1; there are 1 replicas"));

  auto permute = ParseHloModule(R"(
HloModule permute, is_scheduled=true
ENTRY main {
  x = f32[8] parameter(0)
  ROOT cp = f32[8] collective-permute(x), source_target_pairs={{0,1},{1,0}}
}
)");
  ASSERT_TRUE(permute.ok()) << permute.status();
  auto permute_executable = CompileForGpu(**permute, GpuCompileOptions{});
  ASSERT_FALSE(permute_executable.ok());
  EXPECT_EQ(permute_executable.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(permute_executable.status().message()),
              HasSubstr("collective-permute cp: the pair {0,1} names an id past the 1 replicas"));
}

// CollectiveOpFor on the instructions of a parsed module, by name.
class CollectiveOpForTest : public ::testing::Test {
 protected:
  void Parse(const std::string& text) {
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = std::move(*module);
  }
  const HloInstruction& Find(const std::string& name) const {
    for (const HloInstruction* instruction : module_->entry_computation()->instructions()) {
      if (instruction->name() == name) return *instruction;
    }
    ADD_FAILURE() << "no instruction " << name;
    return *module_->entry_computation()->root_instruction();
  }
  std::unique_ptr<HloModule> module_;
};

TEST_F(CollectiveOpForTest, ReplicasChangeWhichCliquesAreSupported) {
  Parse(R"(
HloModule ops

mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}

ENTRY main {
  x = s32[4,2] parameter(0)
  all = s32[4,2] all-reduce(x), replica_groups={{0,1,2,3}}, to_apply=mx
  pairs = s32[4,2] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=mx
  ag = s32[16,2] all-gather(x), replica_groups={}, dimensions={0}
  rs = s32[1,2] reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=mx
  cp = s32[4,2] collective-permute(x), source_target_pairs={{3,0},{0,3}}
  ROOT t = (s32[4,2], s32[4,2], s32[16,2], s32[1,2], s32[4,2]) tuple(all, pairs, ag, rs, cp)
}
)");
  // One replica: only cliques of one.
  EXPECT_EQ(CollectiveOpFor(Find("all"), 1).status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(CollectiveOpFor(Find("cp"), 1).status().message()),
              HasSubstr("the pair {3,0} needs 4 devices; the GPU executable runs on one device"));
  // Four replicas.
  absl::StatusOr<CollectiveOp> all = CollectiveOpFor(Find("all"), 4);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(all->reduction, ReductionKind::kMax);
  EXPECT_EQ(all->element_type, HostElementType::kS32);
  EXPECT_EQ(all->send_elements, 8);
  EXPECT_THAT(std::string(CollectiveOpFor(Find("pairs"), 4).status().message()),
              HasSubstr("2 replica groups {{0,1},{2,3}}: not one operation of all 4 replicas"));
  absl::StatusOr<CollectiveOp> ag = CollectiveOpFor(Find("ag"), 4);
  ASSERT_TRUE(ag.ok()) << ag.status();
  EXPECT_EQ(ag->kind, CollectiveKind::kAllGather);
  absl::StatusOr<CollectiveOp> rs = CollectiveOpFor(Find("rs"), 4);
  ASSERT_TRUE(rs.ok()) << rs.status();
  EXPECT_EQ(rs->kind, CollectiveKind::kReduceScatter);
  EXPECT_EQ(rs->send_elements, 8);
  // The gathered dimension must be num_replicas times the operand's.
  EXPECT_EQ(CollectiveOpFor(Find("ag"), 2).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<CollectiveOp> cp = CollectiveOpFor(Find("cp"), 4);
  ASSERT_TRUE(cp.ok()) << cp.status();
  EXPECT_EQ(cp->source_target_pairs, (std::vector<std::pair<int, int>>{{3, 0}, {0, 3}}));
  EXPECT_EQ(CollectiveOpFor(Find("cp"), 3).status().code(), absl::StatusCode::kUnimplemented);
}

TEST_F(CollectiveOpForTest, RepeatedPermuteTargetIsInvalid) {
  Parse(R"(
HloModule repeated
ENTRY main {
  x = f32[4] parameter(0)
  ROOT cp = f32[4] collective-permute(x), source_target_pairs={{0,1},{2,1}}
}
)");
  const absl::Status status = CollectiveOpFor(Find("cp"), 3).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("collective-permute instruction cp"));
}

}  // namespace
}  // namespace hmo::gpu
