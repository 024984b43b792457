// The byte format GatherDeviceResults exchanges between the processes of an
// MPI launch (hmo/collectives/launch_results.h): every device's result comes
// back whole, tuples included; a failed device is ABORTED naming it; bytes of
// another shape are refused; and the process-count rule. The gather itself
// runs across processes in tests/corpus/jax_corpus_spmd_test.cc (mpirun).

#include "hmo/collectives/launch_results.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::collectives {
namespace {

using ::testing::HasSubstr;

// (f32[2], (s32[3], pred[])): a nested tuple with leaves of three widths.
Shape ResultShape() {
  return ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(PrimitiveType::F32, {2}),
       ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(PrimitiveType::S32, {3}),
                                  ShapeUtil::MakeShape(PrimitiveType::PRED, {})})});
}

Literal DeviceResult(int64_t device) {
  std::vector<Literal> inner;
  inner.push_back(Literal::CreateR1FromInts(PrimitiveType::S32, {device, -device, 100 + device}));
  inner.push_back(Literal::CreateR0Pred(device % 2 == 1));
  std::vector<Literal> outer;
  outer.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {0.5 * device, -1.25}));
  outer.push_back(Literal::MakeTuple(std::move(inner)));
  return Literal::MakeTuple(std::move(outer));
}

TEST(LaunchResultsTest, EveryDeviceResultComesBackWhole) {
  const Shape shape = ResultShape();
  std::vector<std::vector<char>> gathered;
  for (int64_t d = 0; d < 3; ++d) {
    gathered.push_back(SerializeDeviceResult(absl::StatusOr<Literal>(DeviceResult(d)), shape));
    // A flag, then 8 + 12 + 1 bytes of leaves.
    EXPECT_EQ(gathered.back().size(), 1u + 8 + 12 + 1);
  }
  absl::StatusOr<std::vector<Literal>> results = DeviceResultsFromBytes(gathered, shape);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 3u);
  for (int64_t d = 0; d < 3; ++d) EXPECT_TRUE((*results)[d] == DeviceResult(d)) << d;
}

TEST(LaunchResultsTest, AFailedDeviceIsNamed) {
  const Shape shape = ResultShape();
  std::vector<std::vector<char>> gathered;
  gathered.push_back(SerializeDeviceResult(absl::StatusOr<Literal>(DeviceResult(0)), shape));
  gathered.push_back(SerializeDeviceResult(absl::InternalError("boom"), shape));
  gathered.push_back(SerializeDeviceResult(absl::StatusOr<Literal>(DeviceResult(2)), shape));
  // A failed device sends as many bytes as the others (MPI gathers equal counts).
  EXPECT_EQ(gathered[1].size(), gathered[0].size());
  absl::StatusOr<std::vector<Literal>> results = DeviceResultsFromBytes(gathered, shape);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(
      std::string(results.status().message()),
      HasSubstr("device 1 (process 1 of the MPI launch) failed; its error is in its own output"));
}

TEST(LaunchResultsTest, BytesOfAnotherShapeAreRefused) {
  std::vector<std::vector<char>> gathered = {
      SerializeDeviceResult(absl::StatusOr<Literal>(DeviceResult(0)), ResultShape())};
  absl::StatusOr<std::vector<Literal>> results =
      DeviceResultsFromBytes(gathered, ShapeUtil::MakeShape(PrimitiveType::F32, {2}));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("device 0 sent 22 bytes"));
}

TEST(LaunchResultsTest, OneProcessPerDevice) {
  EXPECT_TRUE(CheckOneProcessPerDevice(4, "m", 4).ok());
  absl::Status refused = CheckOneProcessPerDevice(2, "m", 4);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("module 'm' runs on 4 devices, one per process of an MPI launch, but this "
                        "launch has 2 processes (mpirun -n 4)"));
}

}  // namespace
}  // namespace hmo::collectives
