// InProcessCollectives (hmo/collectives/in_process_collectives.h): plans run
// with one std::thread per device on host buffers. The values are chosen so
// that a wrong order, a wrong rank, a wrong split or a race shows.

#include "hmo/collectives/in_process_collectives.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::collectives {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr DeviceGrid kGrid2x2{.replica_count = 2, .partition_count = 2};
constexpr DeviceGrid kGrid4x1{.replica_count = 4, .partition_count = 1};

// A parsed module and the plans of its collectives; plans keep their
// addresses (the rendezvous keys use them).
class Plans {
 public:
  Plans(std::string_view text, DeviceGrid grid) : grid_(grid) {
    absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(text);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (parsed.ok()) module_ = *std::move(parsed);
  }
  const CollectivePlan* Get(std::string_view name) {
    if (module_ == nullptr) return nullptr;
    for (const HloInstruction* instruction : module_->entry_computation()->instructions()) {
      if (instruction->name() != name) continue;
      absl::StatusOr<CollectivePlan> plan = PlanCollective(*instruction, grid_);
      EXPECT_TRUE(plan.ok()) << name << ": " << plan.status();
      if (!plan.ok()) return nullptr;
      plans_.push_back(std::make_unique<CollectivePlan>(*std::move(plan)));
      return plans_.back().get();
    }
    ADD_FAILURE() << "no instruction " << name;
    return nullptr;
  }

 private:
  DeviceGrid grid_;
  std::unique_ptr<HloModule> module_;
  std::vector<std::unique_ptr<CollectivePlan>> plans_;
};

// Runs `body(device)` on one thread per device (started in reverse, so the
// last device tends to arrive first) and returns each device's status.
std::vector<absl::Status> OnEveryDevice(int64_t devices, const std::function<absl::Status(int64_t)>& body) {
  std::vector<absl::Status> statuses(static_cast<size_t>(devices));
  std::vector<std::thread> threads;
  for (int64_t device = devices - 1; device >= 0; --device) {
    threads.emplace_back([&, device] { statuses[static_cast<size_t>(device)] = body(device); });
  }
  for (std::thread& thread : threads) thread.join();
  return statuses;
}

void ExpectAllOk(const std::vector<absl::Status>& statuses) {
  for (size_t device = 0; device < statuses.size(); ++device) {
    EXPECT_TRUE(statuses[device].ok()) << "device " << device << ": " << statuses[device];
  }
}

// One send and one receive buffer per device, of T.
template <typename T>
struct Buffers {
  std::vector<std::vector<T>> send;
  std::vector<std::vector<T>> receive;
};

// Runs a one-send, one-receive `plan` on every device; receive buffers start
// as `fill` so a device that writes nothing shows.
template <typename T>
std::vector<absl::Status> RunOneToOne(const CollectivePlan& plan, Buffers<T>& buffers, T fill,
                                      InProcessCollectives& collectives) {
  const int64_t devices = plan.grid.device_count();
  buffers.receive.assign(static_cast<size_t>(devices),
                         std::vector<T>(static_cast<size_t>(plan.receive_bytes[0]) / sizeof(T), fill));
  return OnEveryDevice(devices, [&](int64_t device) {
    const void* send[] = {buffers.send[static_cast<size_t>(device)].data()};
    void* receive[] = {buffers.receive[static_cast<size_t>(device)].data()};
    return collectives.Run(plan, device, send, receive);
  });
}

constexpr char kSumF32[] = R"(
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(InProcessCollectivesTest, AllReduceF32SumsInRankOrderRoundingEachStep) {
  // Ranks 0..3 are devices 3, 1, 2, 0. Element 0 in rank order:
  // ((1e8 + 1) - 1e8) + 1 = 1 in f32 (1e8 + 1 rounds to 1e8); device order
  // gives 0 and an exact sum 2.
  Plans plans(std::string(R"(HloModule m, replica_count=2, num_partitions=2
)") + kSumF32 + R"(
ENTRY e {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), channel_id=1, replica_groups={{3,1,2,0}}, use_global_device_ids=true, to_apply=sum
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  Buffers<float> buffers;
  buffers.send = {{1.0f, 1.0f}, {1.0f, 2.0f}, {-1e8f, 3.0f}, {1e8f, 4.0f}};
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -7.0f, collectives));
  for (int device = 0; device < 4; ++device) {
    EXPECT_THAT(buffers.receive[device], ElementsAre(1.0f, 10.0f)) << "device " << device;
  }
}

// bf16 bit patterns.
constexpr uint16_t kBf16One = 0x3F80;
constexpr uint16_t kBf16Two = 0x4000;
constexpr uint16_t kBf16TwoToMinus8 = 0x3B80;
constexpr uint16_t kBf16Plus256 = 0x4380;
constexpr uint16_t kBf16Minus256 = 0xC380;

TEST(InProcessCollectivesTest, AllReduceBf16RoundsToBf16AfterEveryStep) {
  // bf16 keeps 8 significant bits: 256 + 1 is a tie that rounds to 256, so
  // ((256 + 1) + 1) - 256 = 0 rank by rank; in reverse, or summed wider
  // and rounded once, it is 2. Element 1: 1 + 2^-8 rounds to 1 each step
  // (exact: 1 + 2^-7, representable).
  Plans plans(R"(HloModule m, replica_count=4, num_partitions=1

sum {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}

ENTRY e {
  p = bf16[3] parameter(0)
  ROOT ar = bf16[3] all-reduce(p), replica_groups={{0,1,2,3}}, to_apply=sum
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(plan->element_type, PrimitiveType::BF16);
  Buffers<uint16_t> buffers;
  buffers.send = {{kBf16Plus256, kBf16One, kBf16One},
                  {kBf16One, kBf16TwoToMinus8, kBf16One},
                  {kBf16One, kBf16TwoToMinus8, 0},
                  {kBf16Minus256, 0, 0}};
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, uint16_t{0xFFFF}, collectives));
  for (int device = 0; device < 4; ++device) {
    EXPECT_THAT(buffers.receive[device], ElementsAre(uint16_t{0}, kBf16One, kBf16Two)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, AllReduceS32WrapsAround) {
  Plans plans(R"(HloModule m, replica_count=2, num_partitions=2

sum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

ENTRY e {
  p = s32[2] parameter(0)
  ROOT ar = s32[2] all-reduce(p), channel_id=1, replica_groups={}, use_global_device_ids=true, to_apply=sum
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  Buffers<int32_t> buffers;
  buffers.send = {{kMax, kMin}, {1, -1}, {0, -5}, {1, 2}};
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, int32_t{-99}, collectives));
  for (int device = 0; device < 4; ++device) {
    EXPECT_THAT(buffers.receive[device], ElementsAre(kMin + 1, kMax - 3)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, AllReducePredAddIsLogicalOr) {
  // Several trues give true (1), not their count.
  Plans plans(R"(HloModule m, replica_count=4, num_partitions=1

any {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT s = pred[] add(a, b)
}

ENTRY e {
  p = pred[4] parameter(0)
  ROOT ar = pred[4] all-reduce(p), replica_groups={}, to_apply=any
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  Buffers<uint8_t> buffers;
  buffers.send = {{0, 0, 1, 1}, {0, 0, 1, 0}, {1, 0, 1, 1}, {0, 0, 1, 0}};
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, uint8_t{7}, collectives));
  for (int device = 0; device < 4; ++device) {
    EXPECT_THAT(buffers.receive[device], ElementsAre(1, 0, 1, 1)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, AllGatherAlongDimension1InterleavesRows) {
  // No channel_id: the replicas of each partition gather, {0,2} and {1,3},
  // both groups at once.
  Plans plans(R"(HloModule m, replica_count=2, num_partitions=2

ENTRY e {
  p = f32[2,3] parameter(0)
  ROOT ag = f32[2,6] all-gather(p), replica_groups={{0,1}}, dimensions={1}
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("ag");
  ASSERT_NE(plan, nullptr);
  Buffers<float> buffers;
  for (int device = 0; device < 4; ++device) {
    buffers.send.push_back({});
    for (int e = 0; e < 6; ++e) buffers.send.back().push_back(100.0f * device + e);
  }
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -1.0f, collectives));
  const std::vector<float> group02 = {0, 1, 2, 200, 201, 202, 3, 4, 5, 203, 204, 205};
  const std::vector<float> group13 = {100, 101, 102, 300, 301, 302, 103, 104, 105, 303, 304, 305};
  EXPECT_THAT(buffers.receive[0], ElementsAreArray(group02));
  EXPECT_THAT(buffers.receive[2], ElementsAreArray(group02));
  EXPECT_THAT(buffers.receive[1], ElementsAreArray(group13));
  EXPECT_THAT(buffers.receive[3], ElementsAreArray(group13));
}

TEST(InProcessCollectivesTest, ReduceScatterGivesEachRankItsReducedChunk) {
  // f32[2,4] scattered along dimension 1 over ranks 0..3 = devices 3..0:
  // device d (rank 3 - d) keeps column 3 - d of the sum, one per row.
  Plans plans(std::string(R"(HloModule m, replica_count=4, num_partitions=1
)") + kSumF32 + R"(
ENTRY e {
  p = f32[2,4] parameter(0)
  ROOT rs = f32[2,1] reduce-scatter(p), replica_groups={{3,2,1,0}}, dimensions={1}, to_apply=sum
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("rs");
  ASSERT_NE(plan, nullptr);
  // Device d sends (d + 1) * (1 + e); the participants' factors add to 10.
  Buffers<float> buffers;
  for (int device = 0; device < 4; ++device) {
    buffers.send.push_back({});
    for (int e = 0; e < 8; ++e) buffers.send.back().push_back(static_cast<float>((device + 1) * (1 + e)));
  }
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -1.0f, collectives));
  for (int device = 0; device < 4; ++device) {
    const int rank = 3 - device;
    EXPECT_THAT(buffers.receive[device], ElementsAre(10.0f * (1 + rank), 10.0f * (1 + 4 + rank)))
        << "device " << device;
  }
}

TEST(InProcessCollectivesTest, AllToAllArrayAlongDimension0) {
  Plans plans(R"(HloModule m, replica_count=4, num_partitions=1

ENTRY e {
  p = f32[4,2] parameter(0)
  ROOT a2a = f32[4,2] all-to-all(p), replica_groups={{0,1,2,3}}, dimensions={0}
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("a2a");
  ASSERT_NE(plan, nullptr);
  // Device d's row k, column j: 100 d + 10 k + j; device d receives row d of
  // every device k at row k.
  Buffers<float> buffers;
  for (int device = 0; device < 4; ++device) {
    buffers.send.push_back({});
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < 2; ++j) buffers.send.back().push_back(100.0f * device + 10.0f * k + j);
    }
  }
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -1.0f, collectives));
  for (int device = 0; device < 4; ++device) {
    std::vector<float> expected;
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < 2; ++j) expected.push_back(100.0f * k + 10.0f * device + j);
    }
    EXPECT_THAT(buffers.receive[device], ElementsAreArray(expected)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, AllToAllArrayAlongDimension1) {
  // With a channel_id on 2x2: the partitions of each replica, {0,1} and
  // {2,3}, in the order written ({1,0}: device 1 is rank 0).
  Plans plans(R"(HloModule m, replica_count=2, num_partitions=2

ENTRY e {
  p = f32[3,2] parameter(0)
  ROOT a2a = f32[3,2] all-to-all(p), channel_id=1, replica_groups={{1,0}}, dimensions={1}
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("a2a");
  ASSERT_NE(plan, nullptr);
  // Device d's [o][k]: 100 d + 10 o + k. Rank r receives, at column k, rank
  // k's column r.
  Buffers<float> buffers;
  for (int device = 0; device < 4; ++device) {
    buffers.send.push_back({});
    for (int o = 0; o < 3; ++o) {
      for (int k = 0; k < 2; ++k) buffers.send.back().push_back(100.0f * device + 10.0f * o + k);
    }
  }
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -1.0f, collectives));
  const std::vector<std::vector<int>> groups = {{1, 0}, {1, 0}, {3, 2}, {3, 2}};
  for (int device = 0; device < 4; ++device) {
    const std::vector<int>& group = groups[device];
    const int rank = group[0] == device ? 0 : 1;
    std::vector<float> expected;
    for (int o = 0; o < 3; ++o) {
      for (int k = 0; k < 2; ++k) expected.push_back(100.0f * group[k] + 10.0f * o + rank);
    }
    EXPECT_THAT(buffers.receive[device], ElementsAreArray(expected)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, AllToAllTupleFormSwapsWholeBuffers) {
  Plans plans(R"(HloModule m, replica_count=4, num_partitions=1

ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  c = f32[2] parameter(2)
  d = f32[2] parameter(3)
  ROOT a2a = (f32[2], f32[2], f32[2], f32[2]) all-to-all(a, b, c, d), replica_groups={{0,1,2,3}}
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("a2a");
  ASSERT_NE(plan, nullptr);
  // send[d][i] = {100 d + 10 i, 100 d + 10 i + 1}; receive[d][k] = send[k][d].
  std::vector<std::vector<std::vector<float>>> send(4), receive(4);
  for (int device = 0; device < 4; ++device) {
    for (int i = 0; i < 4; ++i) {
      send[device].push_back({100.0f * device + 10.0f * i, 100.0f * device + 10.0f * i + 1});
      receive[device].push_back({-1.0f, -1.0f});
    }
  }
  InProcessCollectives collectives;
  ExpectAllOk(OnEveryDevice(4, [&](int64_t device) {
    std::vector<const void*> sends;
    std::vector<void*> receives;
    for (int i = 0; i < 4; ++i) {
      sends.push_back(send[device][i].data());
      receives.push_back(receive[device][i].data());
    }
    return collectives.Run(*plan, device, sends, receives);
  }));
  for (int device = 0; device < 4; ++device) {
    for (int k = 0; k < 4; ++k) {
      EXPECT_THAT(receive[device][k], ElementsAre(100.0f * k + 10.0f * device, 100.0f * k + 10.0f * device + 1))
          << "device " << device << ", result " << k;
    }
  }
}

TEST(InProcessCollectivesTest, VariadicAllReduceReducesEachBufferOnItsOwn) {
  Plans plans(R"(HloModule m, replica_count=4, num_partitions=1

max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}

ENTRY e {
  a = s32[2] parameter(0)
  b = s32[3] parameter(1)
  ROOT ar = (s32[2], s32[3]) all-reduce(a, b), replica_groups={}, to_apply=max
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  std::vector<std::vector<int32_t>> a = {{-4, 1}, {-3, 0}, {-9, 5}, {-8, 2}};
  std::vector<std::vector<int32_t>> b = {{7, -1, 0}, {8, -2, 0}, {9, -3, 0}, {6, -4, 1}};
  std::vector<std::vector<int32_t>> a_out(4, std::vector<int32_t>(2, 99)), b_out(4, std::vector<int32_t>(3, 99));
  InProcessCollectives collectives;
  ExpectAllOk(OnEveryDevice(4, [&](int64_t device) {
    const void* send[] = {a[device].data(), b[device].data()};
    void* receive[] = {a_out[device].data(), b_out[device].data()};
    return collectives.Run(*plan, device, send, receive);
  }));
  for (int device = 0; device < 4; ++device) {
    EXPECT_THAT(a_out[device], ElementsAre(-3, 5)) << "device " << device;
    EXPECT_THAT(b_out[device], ElementsAre(9, -1, 1)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, CollectivePermuteRing) {
  Plans plans(R"(HloModule m, replica_count=4, num_partitions=1

ENTRY e {
  p = f32[2] parameter(0)
  ROOT cp = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("cp");
  ASSERT_NE(plan, nullptr);
  Buffers<float> buffers;
  for (int device = 0; device < 4; ++device) buffers.send.push_back({10.0f * device, 10.0f * device + 1});
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -1.0f, collectives));
  for (int device = 0; device < 4; ++device) {
    const int source = (device + 3) % 4;
    EXPECT_THAT(buffers.receive[device], ElementsAre(10.0f * source, 10.0f * source + 1)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, CollectivePermuteWithoutSourceWritesZeros) {
  // channel_id: the pair {1,0} names partitions, in each replica: device 0
  // receives from 1, device 2 from 3; devices 1 and 3 have no source.
  Plans plans(R"(HloModule m, replica_count=2, num_partitions=2

ENTRY e {
  p = f32[2] parameter(0)
  ROOT cp = f32[2] collective-permute(p), channel_id=1, source_target_pairs={{1,0}}
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("cp");
  ASSERT_NE(plan, nullptr);
  Buffers<float> buffers;
  for (int device = 0; device < 4; ++device) buffers.send.push_back({10.0f * device + 1, 10.0f * device + 2});
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -1.0f, collectives));
  EXPECT_THAT(buffers.receive[0], ElementsAre(11.0f, 12.0f));
  EXPECT_THAT(buffers.receive[1], ElementsAre(0.0f, 0.0f));
  EXPECT_THAT(buffers.receive[2], ElementsAre(31.0f, 32.0f));
  EXPECT_THAT(buffers.receive[3], ElementsAre(0.0f, 0.0f));
}

TEST(InProcessCollectivesTest, CollectiveBroadcastSendsRankZerosBuffer) {
  // Partitions of each replica, rank 0 first: device 1 broadcasts to {1,0},
  // device 3 to {3,2}.
  Plans plans(R"(HloModule m, replica_count=2, num_partitions=2

ENTRY e {
  p = f32[2] parameter(0)
  ROOT bc = f32[2] collective-broadcast(p), channel_id=1, replica_groups={{1,0}}
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("bc");
  ASSERT_NE(plan, nullptr);
  Buffers<float> buffers;
  for (int device = 0; device < 4; ++device) buffers.send.push_back({10.0f * device + 1, 10.0f * device + 2});
  InProcessCollectives collectives;
  ExpectAllOk(RunOneToOne(*plan, buffers, -1.0f, collectives));
  EXPECT_THAT(buffers.receive[0], ElementsAre(11.0f, 12.0f));
  EXPECT_THAT(buffers.receive[1], ElementsAre(11.0f, 12.0f));
  EXPECT_THAT(buffers.receive[2], ElementsAre(31.0f, 32.0f));
  EXPECT_THAT(buffers.receive[3], ElementsAre(31.0f, 32.0f));
}

TEST(InProcessCollectivesTest, ReplicaIdAndPartitionIdOfEachDevice) {
  Plans plans(R"(HloModule m, replica_count=2, num_partitions=2

ENTRY e {
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  ROOT t = (u32[], u32[]) tuple(rid, pid)
}
)",
              kGrid2x2);
  const CollectivePlan* replica_id = plans.Get("rid");
  const CollectivePlan* partition_id = plans.Get("pid");
  ASSERT_NE(replica_id, nullptr);
  ASSERT_NE(partition_id, nullptr);
  std::vector<uint32_t> replicas(4, 0xFFFFFFFF), partitions(4, 0xFFFFFFFF);
  InProcessCollectives collectives;
  ExpectAllOk(OnEveryDevice(4, [&](int64_t device) {
    void* replica[] = {&replicas[device]};
    void* partition[] = {&partitions[device]};
    absl::Status status = collectives.Run(*replica_id, device, {}, replica);
    if (!status.ok()) return status;
    return collectives.Run(*partition_id, device, {}, partition);
  }));
  // device = replica * 2 + partition.
  EXPECT_THAT(replicas, ElementsAre(0u, 0u, 1u, 1u));
  EXPECT_THAT(partitions, ElementsAre(0u, 1u, 0u, 1u));
}

TEST(InProcessCollectivesTest, InPlaceAllReduceIsCorrectOnEveryDevice) {
  // receive == send: a device must not overwrite its buffer while a peer
  // still reads it. Large enough that an unguarded write would race.
  constexpr int kElements = 4096;
  Plans plans(std::string(R"(HloModule m, replica_count=2, num_partitions=2
)") + kSumF32 + R"(
ENTRY e {
  p = f32[4096] parameter(0)
  ROOT ar = f32[4096] all-reduce(p), channel_id=1, replica_groups={}, use_global_device_ids=true, to_apply=sum
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  InProcessCollectives collectives;
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<float>> buffers(4);
    for (int device = 0; device < 4; ++device) {
      for (int e = 0; e < kElements; ++e) buffers[device].push_back(1000.0f * device + e);
    }
    ExpectAllOk(OnEveryDevice(4, [&](int64_t device) {
      const void* send[] = {buffers[device].data()};
      void* receive[] = {buffers[device].data()};
      return collectives.Run(*plan, device, send, receive);
    }));
    for (int device = 0; device < 4; ++device) {
      for (int e = 0; e < kElements; ++e) {
        ASSERT_EQ(buffers[device][e], 6000.0f + 4.0f * e) << "round " << round << ", device " << device << ", " << e;
      }
    }
  }
}

TEST(InProcessCollectivesTest, InPlaceCollectivePermuteRing) {
  // Each device overwrites the buffer its target reads from.
  Plans plans(R"(HloModule m, replica_count=4, num_partitions=1

ENTRY e {
  p = s32[1024] parameter(0)
  ROOT cp = s32[1024] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("cp");
  ASSERT_NE(plan, nullptr);
  std::vector<std::vector<int32_t>> buffers(4);
  for (int device = 0; device < 4; ++device) {
    for (int e = 0; e < 1024; ++e) buffers[device].push_back(device * 10000 + e);
  }
  InProcessCollectives collectives;
  ExpectAllOk(OnEveryDevice(4, [&](int64_t device) {
    const void* send[] = {buffers[device].data()};
    void* receive[] = {buffers[device].data()};
    return collectives.Run(*plan, device, send, receive);
  }));
  for (int device = 0; device < 4; ++device) {
    const int source = (device + 3) % 4;
    for (int e = 0; e < 1024; ++e) {
      ASSERT_EQ(buffers[device][e], source * 10000 + e) << "device " << device << ", element " << e;
    }
  }
}

TEST(InProcessCollectivesTest, SamePlanInALoopPairsEachOccurrence) {
  // Each device runs the plan 3 times, feeding each result into the next
  // iteration plus its own id: x1 = sum(x0) + d, and so on. Pairing
  // iteration i of one device with j != i of another breaks the totals.
  Plans plans(std::string(R"(HloModule m, replica_count=2, num_partitions=2
)") + kSumF32 + R"(
ENTRY e {
  p = f32[1] parameter(0)
  ROOT ar = f32[1] all-reduce(p), channel_id=1, replica_groups={}, use_global_device_ids=true, to_apply=sum
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  InProcessCollectives collectives;
  std::vector<std::vector<float>> results(4);
  ExpectAllOk(OnEveryDevice(4, [&](int64_t device) {
    float x = static_cast<float>(device);
    for (int iteration = 0; iteration < 3; ++iteration) {
      // The late devices arrive last at every iteration.
      if (device >= 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      float sum = -1.0f;
      const void* send[] = {&x};
      void* receive[] = {&sum};
      absl::Status status = collectives.Run(*plan, device, send, receive);
      if (!status.ok()) return status;
      results[device].push_back(sum);
      x = sum + static_cast<float>(device);
    }
    return absl::OkStatus();
  }));
  // sum(x0) = 6; x1 = 6 + d, sum = 30; x2 = 30 + d, sum = 126.
  for (int device = 0; device < 4; ++device) {
    EXPECT_THAT(results[device], ElementsAre(6.0f, 30.0f, 126.0f)) << "device " << device;
  }
}

TEST(InProcessCollectivesTest, MissingDeviceFailsTheOthersWithDeadlineExceeded) {
  // Device 3 is rank 1: the error names the device, not the rank.
  Plans plans(std::string(R"(HloModule m, replica_count=2, num_partitions=2
)") + kSumF32 + R"(
ENTRY e {
  p = f32[1] parameter(0)
  ROOT ar = f32[1] all-reduce(p), channel_id=1, replica_groups={{1,3,0,2}}, use_global_device_ids=true, to_apply=sum
}
)",
              kGrid2x2);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  InProcessCollectives collectives(absl::Milliseconds(200));
  std::vector<float> values = {1, 2, 3, 4};
  std::vector<float> results(4, -1.0f);
  const std::vector<absl::Status> statuses = OnEveryDevice(4, [&](int64_t device) {
    if (device == 3) return absl::OkStatus();  // never arrives
    const void* send[] = {&values[device]};
    void* receive[] = {&results[device]};
    return collectives.Run(*plan, device, send, receive);
  });
  for (int device = 0; device < 3; ++device) {
    EXPECT_EQ(statuses[device].code(), absl::StatusCode::kDeadlineExceeded) << statuses[device];
    const std::string message(statuses[device].message());
    EXPECT_THAT(message, HasSubstr("missing: [device 3 (all-reduce ar)]")) << "device " << device;
    EXPECT_EQ(results[device], -1.0f) << "a failed collective writes nothing";
  }
}

}  // namespace
}  // namespace hmo::collectives
