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
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::collectives {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr DeviceGrid kGrid2x2{.replica_count = 2, .partition_count = 2};
constexpr DeviceGrid kGrid4x1{.replica_count = 4, .partition_count = 1};

// A reduction computation `name` whose root is `opcode`(a, b) of `type`
// scalars.
std::string Reducer(std::string_view name, std::string_view type, std::string_view opcode) {
  return fmt::format(
      "{0} {{\n  a = {1}[] parameter(0)\n  b = {1}[] parameter(1)\n"
      "  ROOT r = {1}[] {2}(a, b)\n}}\n\n",
      name, type, opcode);
}

// A module on `grid` of one collective: its entry computation takes p of
// shape `parameter` and its root is `root` ("name = shape opcode(p), ..."),
// which may call the `computations`.
struct OneCollective {
  DeviceGrid grid;
  std::string_view parameter;
  std::string_view root;
  std::string computations = "";

  std::string Text() const {
    return fmt::format(
        "HloModule m, replica_count={}, num_partitions={}\n\n{}"
        "ENTRY e {{\n  p = {} parameter(0)\n  ROOT {}\n}}\n",
        grid.replica_count, grid.partition_count, computations, parameter, root);
  }
  std::string_view Name() const { return root.substr(0, root.find(' ')); }
};

// A parsed module and the plans of its collectives; plans keep their
// addresses (the rendezvous keys use them).
class Plans {
 public:
  Plans(std::string_view text, DeviceGrid grid) : grid_(grid) {
    absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(text);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (parsed.ok()) module_ = *std::move(parsed);
  }
  explicit Plans(const OneCollective& collective) : Plans(collective.Text(), collective.grid) {}

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
  // The plan of the entry computation's root.
  const CollectivePlan* Root() {
    if (module_ == nullptr) return nullptr;
    return Get(module_->entry_computation()->root_instruction()->name());
  }

 private:
  DeviceGrid grid_;
  std::unique_ptr<HloModule> module_;
  std::vector<std::unique_ptr<CollectivePlan>> plans_;
};

// Runs `body(device)` on one thread per device (started in reverse, so the
// last device tends to arrive first) and returns each device's status.
std::vector<absl::Status> OnEveryDevice(int64_t devices,
                                        const std::function<absl::Status(int64_t)>& body) {
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

// Matches the buffers of 4 devices that each match `buffer`.
template <typename Matcher>
auto OnAllFourDevices(Matcher buffer) {
  return ElementsAre(buffer, buffer, buffer, buffer);
}

// One buffer of T per device.
template <typename T>
using PerDevice = std::vector<std::vector<T>>;

// One `rows` x `columns` buffer per device, row-major, of value(device, row,
// column).
template <typename T>
PerDevice<T> DeviceArrays(int devices, int rows, int columns,
                          const std::function<T(int, int, int)>& value) {
  PerDevice<T> arrays(static_cast<size_t>(devices));
  for (int device = 0; device < devices; ++device) {
    for (int row = 0; row < rows; ++row) {
      for (int column = 0; column < columns; ++column)
        arrays[device].push_back(value(device, row, column));
    }
  }
  return arrays;
}

// Runs `plan` on every device, device d sending send[d][i] as its buffer i,
// and returns what each device received in each buffer (sized by the plan);
// receive buffers start as `fill` so a device that writes nothing shows.
template <typename T>
std::vector<PerDevice<T>> RunBuffers(const CollectivePlan& plan,
                                     const std::vector<PerDevice<T>>& send, T fill,
                                     InProcessCollectives& collectives) {
  const int64_t devices = plan.grid.device_count();
  std::vector<PerDevice<T>> receive(static_cast<size_t>(devices));
  for (PerDevice<T>& buffers : receive) {
    for (int64_t bytes : plan.receive_bytes)
      buffers.emplace_back(static_cast<size_t>(bytes) / sizeof(T), fill);
  }
  ExpectAllOk(OnEveryDevice(devices, [&](int64_t device) {
    std::vector<const void*> sends;
    std::vector<void*> receives;
    for (const std::vector<T>& buffer : send[static_cast<size_t>(device)])
      sends.push_back(buffer.data());
    for (std::vector<T>& buffer : receive[static_cast<size_t>(device)])
      receives.push_back(buffer.data());
    return collectives.Run(plan, device, sends, receives);
  }));
  return receive;
}

// RunBuffers of a one-send, one-receive `plan`: device d sends send[d];
// returns each device's receive buffer.
template <typename T>
PerDevice<T> RunOneToOne(const CollectivePlan& plan, const PerDevice<T>& send, T fill,
                         InProcessCollectives& collectives) {
  std::vector<PerDevice<T>> sends;
  for (const std::vector<T>& buffer : send) sends.push_back({buffer});
  PerDevice<T> receive;
  for (PerDevice<T>& buffers : RunBuffers(plan, sends, fill, collectives)) {
    receive.push_back(buffers.empty() ? std::vector<T>() : std::move(buffers[0]));
  }
  return receive;
}

// Plans `collective` and runs it one-to-one on every device of its grid
// (RunOneToOne); one empty buffer per device where it does not plan (the
// test has failed then).
template <typename T>
PerDevice<T> RunOnEveryDevice(const OneCollective& collective, const PerDevice<T>& send, T fill) {
  Plans plans(collective);
  const CollectivePlan* plan = plans.Root();
  if (plan == nullptr) return PerDevice<T>(static_cast<size_t>(collective.grid.device_count()));
  InProcessCollectives collectives;
  return RunOneToOne(*plan, send, fill, collectives);
}

// Runs `plan` on every device with each device's one buffer as both its
// send and its receive buffer.
template <typename T>
void RunInPlace(const CollectivePlan& plan, PerDevice<T>& buffers,
                InProcessCollectives& collectives) {
  ExpectAllOk(OnEveryDevice(plan.grid.device_count(), [&](int64_t device) {
    const void* send[] = {buffers[device].data()};
    void* receive[] = {buffers[device].data()};
    return collectives.Run(plan, device, send, receive);
  }));
}

// A sum of f32s over devices of the 2x2 grid: the root `root` ("ar = ...
// to_apply=sum", with its groups) of p of shape `parameter`.
OneCollective SumOnGrid2x2(std::string_view parameter, std::string_view root) {
  return {kGrid2x2, parameter, root, Reducer("sum", "f32", "add")};
}

TEST(InProcessCollectivesTest, AllReduceF32SumsInRankOrderRoundingEachStep) {
  // Ranks 0..3 are devices 3, 1, 2, 0. Element 0 in rank order:
  // ((1e8 + 1) - 1e8) + 1 = 1 in f32 (1e8 + 1 rounds to 1e8); device order
  // gives 0 and an exact sum 2.
  const PerDevice<float> receive =
      RunOnEveryDevice(SumOnGrid2x2("f32[2]",
                                    "ar = f32[2] all-reduce(p), channel_id=1, "
                                    "replica_groups={{3,1,2,0}}, use_global_device_ids=true, "
                                    "to_apply=sum"),
                       {{1.0f, 1.0f}, {1.0f, 2.0f}, {-1e8f, 3.0f}, {1e8f, 4.0f}}, -7.0f);
  EXPECT_THAT(receive, OnAllFourDevices(ElementsAre(1.0f, 10.0f)));
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
  Plans plans(OneCollective{kGrid4x1, "bf16[3]",
                            "ar = bf16[3] all-reduce(p), replica_groups={{0,1,2,3}}, to_apply=sum",
                            Reducer("sum", "bf16", "add")});
  const CollectivePlan* plan = plans.Root();
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(plan->element_type, PrimitiveType::BF16);
  InProcessCollectives collectives;
  const PerDevice<uint16_t> receive = RunOneToOne(*plan,
                                                  {{kBf16Plus256, kBf16One, kBf16One},
                                                   {kBf16One, kBf16TwoToMinus8, kBf16One},
                                                   {kBf16One, kBf16TwoToMinus8, 0},
                                                   {kBf16Minus256, 0, 0}},
                                                  uint16_t{0xFFFF}, collectives);
  EXPECT_THAT(receive, OnAllFourDevices(ElementsAre(uint16_t{0}, kBf16One, kBf16Two)));
}

TEST(InProcessCollectivesTest, AllReduceS32WrapsAround) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  const PerDevice<int32_t> receive =
      RunOnEveryDevice({kGrid2x2, "s32[2]",
                        "ar = s32[2] all-reduce(p), channel_id=1, replica_groups={}, "
                        "use_global_device_ids=true, to_apply=sum",
                        Reducer("sum", "s32", "add")},
                       {{kMax, kMin}, {1, -1}, {0, -5}, {1, 2}}, int32_t{-99});
  EXPECT_THAT(receive, OnAllFourDevices(ElementsAre(kMin + 1, kMax - 3)));
}

TEST(InProcessCollectivesTest, AllReducePredAddIsLogicalOr) {
  // Several trues give true (1), not their count.
  const PerDevice<uint8_t> receive = RunOnEveryDevice(
      {kGrid4x1, "pred[4]", "ar = pred[4] all-reduce(p), replica_groups={}, to_apply=any",
       Reducer("any", "pred", "add")},
      {{0, 0, 1, 1}, {0, 0, 1, 0}, {1, 0, 1, 1}, {0, 0, 1, 0}}, uint8_t{7});
  EXPECT_THAT(receive, OnAllFourDevices(ElementsAre(1, 0, 1, 1)));
}

TEST(InProcessCollectivesTest, AllGatherAlongDimension1InterleavesRows) {
  // No channel_id: the replicas of each partition gather, {0,2} and {1,3},
  // both groups at once. Device d sends 100 d + e.
  const PerDevice<float> receive = RunOnEveryDevice(
      {kGrid2x2, "f32[2,3]", "ag = f32[2,6] all-gather(p), replica_groups={{0,1}}, dimensions={1}"},
      DeviceArrays<float>(4, 1, 6, [](int device, int, int e) { return 100.0f * device + e; }),
      -1.0f);
  const std::vector<float> group02 = {0, 1, 2, 200, 201, 202, 3, 4, 5, 203, 204, 205};
  const std::vector<float> group13 = {100, 101, 102, 300, 301, 302, 103, 104, 105, 303, 304, 305};
  EXPECT_EQ(receive, (PerDevice<float>{group02, group13, group02, group13}));
}

TEST(InProcessCollectivesTest, ReduceScatterGivesEachRankItsReducedChunk) {
  // f32[2,4] scattered along dimension 1 over ranks 0..3 = devices 3..0:
  // device d (rank 3 - d) keeps column 3 - d of the sum, one per row.
  // Device d sends (d + 1) * (1 + e); the participants' factors add to 10.
  const PerDevice<float> receive = RunOnEveryDevice(
      {kGrid4x1, "f32[2,4]",
       "rs = f32[2,1] reduce-scatter(p), replica_groups={{3,2,1,0}}, dimensions={1}, to_apply=sum",
       Reducer("sum", "f32", "add")},
      DeviceArrays<float>(
          4, 1, 8,
          [](int device, int, int e) { return static_cast<float>((device + 1) * (1 + e)); }),
      -1.0f);
  EXPECT_EQ(receive, DeviceArrays<float>(4, 2, 1, [](int device, int row, int) {
              const int rank = 3 - device;
              return 10.0f * (1 + 4 * row + rank);
            }));
}

// One `rows` x `columns` buffer per device of 4 that says where each value
// comes from: device d's [row][column] is 100 d + 10 row + column.
PerDevice<float> IndexedBuffers(int rows, int columns) {
  return DeviceArrays<float>(4, rows, columns, [](int device, int row, int column) {
    return 100.0f * device + 10.0f * row + column;
  });
}

TEST(InProcessCollectivesTest, AllToAllArrayAlongDimension0) {
  // Device d's row k, column j: 100 d + 10 k + j; device d receives row d of
  // every device k at row k.
  const PerDevice<float> receive =
      RunOnEveryDevice({kGrid4x1, "f32[4,2]",
                        "a2a = f32[4,2] all-to-all(p), replica_groups={{0,1,2,3}}, dimensions={0}"},
                       IndexedBuffers(4, 2), -1.0f);
  EXPECT_EQ(receive, DeviceArrays<float>(4, 4, 2, [](int device, int k, int j) {
              return 100.0f * k + 10.0f * device + j;
            }));
}

TEST(InProcessCollectivesTest, AllToAllArrayAlongDimension1) {
  // With a channel_id on 2x2: the partitions of each replica, {0,1} and
  // {2,3}, in the order written ({1,0}: device 1 is rank 0).
  // Device d's [o][k]: 100 d + 10 o + k. Rank r receives, at column k, rank
  // k's column r.
  const PerDevice<float> receive = RunOnEveryDevice(
      {kGrid2x2, "f32[3,2]",
       "a2a = f32[3,2] all-to-all(p), channel_id=1, replica_groups={{1,0}}, dimensions={1}"},
      IndexedBuffers(3, 2), -1.0f);
  const std::vector<std::vector<int>> groups = {{1, 0}, {1, 0}, {3, 2}, {3, 2}};
  EXPECT_EQ(receive, DeviceArrays<float>(4, 3, 2, [&](int device, int o, int k) {
              const std::vector<int>& group = groups[device];
              const int rank = group[0] == device ? 0 : 1;
              return 100.0f * group[k] + 10.0f * o + rank;
            }));
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
  const auto buffer = [](int device, int i) {
    return std::vector<float>{100.0f * device + 10.0f * i, 100.0f * device + 10.0f * i + 1};
  };
  std::vector<PerDevice<float>> send(4), expected(4);
  for (int device = 0; device < 4; ++device) {
    for (int i = 0; i < 4; ++i) {
      send[device].push_back(buffer(device, i));
      expected[device].push_back(buffer(i, device));
    }
  }
  InProcessCollectives collectives;
  EXPECT_EQ(RunBuffers(*plan, send, -1.0f, collectives), expected);
}

TEST(InProcessCollectivesTest, VariadicAllReduceReducesEachBufferOnItsOwn) {
  Plans plans("HloModule m, replica_count=4, num_partitions=1\n\n" +
                  Reducer("max", "s32", "maximum") + R"(ENTRY e {
  a = s32[2] parameter(0)
  b = s32[3] parameter(1)
  ROOT ar = (s32[2], s32[3]) all-reduce(a, b), replica_groups={}, to_apply=max
}
)",
              kGrid4x1);
  const CollectivePlan* plan = plans.Get("ar");
  ASSERT_NE(plan, nullptr);
  InProcessCollectives collectives;
  EXPECT_THAT(RunBuffers<int32_t>(*plan,
                                  {{{-4, 1}, {7, -1, 0}},
                                   {{-3, 0}, {8, -2, 0}},
                                   {{-9, 5}, {9, -3, 0}},
                                   {{-8, 2}, {6, -4, 1}}},
                                  99, collectives),
              OnAllFourDevices(ElementsAre(ElementsAre(-3, 5), ElementsAre(9, -1, 1))));
}

TEST(InProcessCollectivesTest, CollectivePermuteRing) {
  const PerDevice<float> receive = RunOnEveryDevice(
      {kGrid4x1, "f32[2]",
       "cp = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}"},
      DeviceArrays<float>(4, 1, 2, [](int device, int, int e) { return 10.0f * device + e; }),
      -1.0f);
  EXPECT_EQ(receive, DeviceArrays<float>(4, 1, 2, [](int device, int, int e) {
              const int source = (device + 3) % 4;
              return 10.0f * source + e;
            }));
}

// Runs `root` of p = f32[2] on the 2x2 grid (RunOnEveryDevice), device d
// sending {10 d + 1, 10 d + 2}.
PerDevice<float> RunOnTwoValuesOfEachDevice(std::string_view root) {
  return RunOnEveryDevice(
      {kGrid2x2, "f32[2]", root},
      DeviceArrays<float>(4, 1, 2, [](int device, int, int e) { return 10.0f * device + 1 + e; }),
      -1.0f);
}

TEST(InProcessCollectivesTest, CollectivePermuteWithoutSourceWritesZeros) {
  // channel_id: the pair {1,0} names partitions, in each replica: device 0
  // receives from 1, device 2 from 3; devices 1 and 3 have no source.
  const PerDevice<float> receive = RunOnTwoValuesOfEachDevice(
      "cp = f32[2] collective-permute(p), channel_id=1, source_target_pairs={{1,0}}");
  EXPECT_EQ(receive, (PerDevice<float>{{11, 12}, {0, 0}, {31, 32}, {0, 0}}));
}

TEST(InProcessCollectivesTest, CollectiveBroadcastSendsRankZerosBuffer) {
  // Partitions of each replica, rank 0 first: device 1 broadcasts to {1,0},
  // device 3 to {3,2}.
  const PerDevice<float> receive = RunOnTwoValuesOfEachDevice(
      "bc = f32[2] collective-broadcast(p), channel_id=1, replica_groups={{1,0}}");
  EXPECT_EQ(receive, (PerDevice<float>{{11, 12}, {11, 12}, {31, 32}, {31, 32}}));
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
  Plans plans(SumOnGrid2x2("f32[4096]",
                           "ar = f32[4096] all-reduce(p), channel_id=1, replica_groups={}, "
                           "use_global_device_ids=true, to_apply=sum"));
  const CollectivePlan* plan = plans.Root();
  ASSERT_NE(plan, nullptr);
  InProcessCollectives collectives;
  for (int round = 0; round < 20; ++round) {
    PerDevice<float> buffers = DeviceArrays<float>(
        4, 1, kElements, [](int device, int, int e) { return 1000.0f * device + e; });
    RunInPlace(*plan, buffers, collectives);
    for (int device = 0; device < 4; ++device) {
      for (int e = 0; e < kElements; ++e) {
        ASSERT_EQ(buffers[device][e], 6000.0f + 4.0f * e)
            << "round " << round << ", device " << device << ", " << e;
      }
    }
  }
}

TEST(InProcessCollectivesTest, InPlaceCollectivePermuteRing) {
  // Each device overwrites the buffer its target reads from.
  Plans plans(OneCollective{
      kGrid4x1, "s32[1024]",
      "cp = s32[1024] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}"});
  const CollectivePlan* plan = plans.Root();
  ASSERT_NE(plan, nullptr);
  PerDevice<int32_t> buffers =
      DeviceArrays<int32_t>(4, 1, 1024, [](int device, int, int e) { return device * 10000 + e; });
  InProcessCollectives collectives;
  RunInPlace(*plan, buffers, collectives);
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
  Plans plans(SumOnGrid2x2("f32[1]",
                           "ar = f32[1] all-reduce(p), channel_id=1, replica_groups={}, "
                           "use_global_device_ids=true, to_apply=sum"));
  const CollectivePlan* plan = plans.Root();
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
  EXPECT_THAT(results, OnAllFourDevices(ElementsAre(6.0f, 30.0f, 126.0f)));
}

TEST(InProcessCollectivesTest, MissingDeviceFailsTheOthersWithDeadlineExceeded) {
  // Device 3 is rank 1: the error names the device, not the rank.
  Plans plans(SumOnGrid2x2("f32[1]",
                           "ar = f32[1] all-reduce(p), channel_id=1, replica_groups={{1,3,0,2}}, "
                           "use_global_device_ids=true, to_apply=sum"));
  const CollectivePlan* plan = plans.Root();
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
