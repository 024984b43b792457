// Collectives in the single-device GPU executable: attribute parsing, the
// clique-of-one thunks, and the errors for cliques it cannot run.

#include <memory>
#include <string>

#include "compiler/gpu_collectives.h"
#include "compiler/gpu_compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

TEST(GpuCollectivesTest, ReplicaGroupSizes) {
  EXPECT_EQ(*ReplicaGroupSize("{}"), 1);
  EXPECT_EQ(*ReplicaGroupSize("{{0}}"), 1);
  EXPECT_EQ(*ReplicaGroupSize("{{0,1},{2,3}}"), 2);
  EXPECT_EQ(*ReplicaGroupSize("{{0,1,2,3}}"), 4);
  EXPECT_EQ(*ReplicaGroupSize("[2,4]<=[8]"), 4);
  EXPECT_EQ(*ReplicaGroupSize("[1,1]<=[1]"), 1);
  EXPECT_FALSE(ReplicaGroupSize("{{0,1}").ok());
}

TEST(GpuCollectivesTest, SourceTargetPairs) {
  auto pairs = ParseSourceTargetPairs("{{0,1},{1,2},{2,0}}");
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(*pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_FALSE(ParseSourceTargetPairs("{{0,1},{2}}").ok());
}

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

TEST(GpuCollectivesTest, LargerCliquesAreUnimplementedAndNamed) {
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
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(executable.status().message()), HasSubstr("all-reduce instruction ar"));
  EXPECT_THAT(std::string(executable.status().message()), HasSubstr("replica groups of 2 devices"));

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
  EXPECT_THAT(std::string(permute_executable.status().message()), HasSubstr("the pair {0,1} needs 2 devices"));
}

}  // namespace
}  // namespace hmo::gpu
