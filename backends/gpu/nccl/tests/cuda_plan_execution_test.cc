// CudaCollectiveTransport::RunPlan without a GPU: a fake NCCL function table
// records the calls (and, for all-gather, fakes the peers' data), and the
// device memory is host memory (a DeviceMemoryOps recording strided
// copies). What is checked: which communicator each collective uses (the
// splits: once per new group, with the right color and key, reused after),
// the NCCL calls of sub-group collectives with their counts and peers
// (ranks within the group's communicator), and the staging of
// [outer][ranks][chunk] splits. Moving bytes between real GPUs needs a
// multi-GPU machine (tests/gpu/run_gpu_checks.sh); the strided copies on one
// real device are checked at the end, skipped without a GPU.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gpu/nccl/cuda_collective_transport.h"
#include "gpu/nccl/device_memory_ops.h"
#include "gpu/nccl/nccl_library.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/gpu/cuda_device_query.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

namespace hmo::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using PlanKind = collectives::CollectiveKind;

struct NcclCall {
  std::string name;
  size_t count = 0;
  int type = -1;
  int op_or_peer = -1;  // the reduction, the peer or the root
  nccl_abi::Comm comm = nullptr;
};
struct SplitCall {
  nccl_abi::Comm parent;
  int color;
  int key;
};

// What the fake NCCL saw (one test at a time).
struct FakeNccl {
  std::vector<NcclCall> calls;
  std::vector<SplitCall> splits;
  std::vector<nccl_abi::Comm> destroyed;
  uintptr_t next_comm = 0x1000;
  // all-gather fakes peer k's send as the rank's own plus 10 * k per byte.
  int gather_ranks = 1;
};
FakeNccl* fake = nullptr;

std::string Names(const std::vector<NcclCall>& calls) {
  std::string names;
  for (const NcclCall& call : calls) names += (names.empty() ? "" : " ") + call.name;
  return names;
}

nccl_abi::Result FakeGetUniqueId(nccl_abi::UniqueId*) { return 0; }
nccl_abi::Result FakeCommInitRank(nccl_abi::Comm*, int, nccl_abi::UniqueId, int) { return 0; }
nccl_abi::Result FakeCommDestroy(nccl_abi::Comm comm) {
  fake->destroyed.push_back(comm);
  return 0;
}
nccl_abi::Result FakeAllReduce(const void*, void*, size_t count, int type, int op,
                               nccl_abi::Comm comm, nccl_abi::Stream) {
  fake->calls.push_back({"AllReduce", count, type, op, comm});
  return 0;
}
nccl_abi::Result FakeAllGather(const void* send, void* receive, size_t count, int type,
                               nccl_abi::Comm comm, nccl_abi::Stream) {
  fake->calls.push_back({"AllGather", count, type, -1, comm});
  for (int k = 0; k < fake->gather_ranks; ++k) {
    for (size_t b = 0; b < count; ++b) {
      static_cast<uint8_t*>(receive)[k * count + b] = static_cast<const uint8_t*>(send)[b] + 10 * k;
    }
  }
  return 0;
}
nccl_abi::Result FakeReduceScatter(const void*, void*, size_t count, int type, int op,
                                   nccl_abi::Comm comm, nccl_abi::Stream) {
  fake->calls.push_back({"ReduceScatter", count, type, op, comm});
  return 0;
}
nccl_abi::Result FakeSend(const void*, size_t count, int type, int peer, nccl_abi::Comm comm,
                          nccl_abi::Stream) {
  fake->calls.push_back({"Send", count, type, peer, comm});
  return 0;
}
nccl_abi::Result FakeRecv(void*, size_t count, int type, int peer, nccl_abi::Comm comm,
                          nccl_abi::Stream) {
  fake->calls.push_back({"Recv", count, type, peer, comm});
  return 0;
}
nccl_abi::Result FakeGroupStart() {
  fake->calls.push_back({"GroupStart"});
  return 0;
}
nccl_abi::Result FakeGroupEnd() {
  fake->calls.push_back({"GroupEnd"});
  return 0;
}
const char* FakeGetErrorString(nccl_abi::Result) { return "fake error"; }
nccl_abi::Result FakeCommSplit(nccl_abi::Comm parent, int color, int key, nccl_abi::Comm* split,
                               void*) {
  fake->splits.push_back({parent, color, key});
  *split = color == nccl_abi::kSplitNoColor ? nullptr
                                            : reinterpret_cast<nccl_abi::Comm>(fake->next_comm++);
  return 0;
}
nccl_abi::Result FakeBroadcast(const void*, void*, size_t count, int type, int root,
                               nccl_abi::Comm comm, nccl_abi::Stream) {
  fake->calls.push_back({"Broadcast", count, type, root, comm});
  return 0;
}

NcclFunctions FakeFunctions() {
  NcclFunctions f;
  f.GetUniqueId = FakeGetUniqueId;
  f.CommInitRank = FakeCommInitRank;
  f.CommDestroy = FakeCommDestroy;
  f.AllReduce = FakeAllReduce;
  f.AllGather = FakeAllGather;
  f.ReduceScatter = FakeReduceScatter;
  f.Send = FakeSend;
  f.Recv = FakeRecv;
  f.GroupStart = FakeGroupStart;
  f.GroupEnd = FakeGroupEnd;
  f.GetErrorString = FakeGetErrorString;
  f.CommSplit = FakeCommSplit;
  f.Broadcast = FakeBroadcast;
  return f;
}

struct StridedCopy {
  size_t destination_pitch, source_pitch, width, rows;
};

// Device memory that is host memory.
class HostMemoryOps final : public DeviceMemoryOps {
 public:
  explicit HostMemoryOps(std::vector<StridedCopy>* strided, int* zeros)
      : strided_(strided), zeros_(zeros) {}
  absl::Status Copy(void* destination, const void* source, size_t bytes) override {
    if (destination != source) std::memcpy(destination, source, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyStrided(void* destination, size_t destination_pitch, const void* source,
                           size_t source_pitch, size_t width, size_t rows) override {
    strided_->push_back({destination_pitch, source_pitch, width, rows});
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(static_cast<char*>(destination) + r * destination_pitch,
                  static_cast<const char*>(source) + r * source_pitch, width);
    }
    return absl::OkStatus();
  }
  absl::Status Zero(void* destination, size_t bytes) override {
    ++*zeros_;
    std::memset(destination, 0, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyFromHost(void* destination, const void* source, size_t bytes) override {
    return Copy(destination, source, bytes);
  }
  absl::Status Synchronize() override { return absl::OkStatus(); }
  absl::StatusOr<void*> Allocate(size_t bytes) override {
    return static_cast<void*>(new char[bytes]);
  }
  void Free(void* pointer) override { delete[] static_cast<char*>(pointer); }

 private:
  std::vector<StridedCopy>* strided_;
  int* zeros_;
};

const nccl_abi::Comm kClique = reinterpret_cast<nccl_abi::Comm>(0xC11);

// A plan over `devices` replicas in which every device takes part in
// `groups`.
collectives::CollectivePlan PlanOf(PlanKind kind, const std::vector<std::vector<int64_t>>& groups,
                                   int devices, std::vector<int64_t> send_bytes,
                                   std::vector<int64_t> receive_bytes) {
  collectives::CollectivePlan plan;
  plan.kind = kind;
  plan.description = "test collective";
  plan.element_type = PrimitiveType::F32;
  plan.grid.replica_count = devices;
  plan.send_bytes = std::move(send_bytes);
  plan.receive_bytes = std::move(receive_bytes);
  plan.participants.resize(static_cast<size_t>(devices));
  for (const std::vector<int64_t>& group : groups) {
    for (int64_t device : group) plan.participants[static_cast<size_t>(device)] = group;
  }
  return plan;
}

class CudaPlanExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = &state_; }
  void TearDown() override {
    transport_.reset();
    fake = nullptr;
  }

  // Device `rank` of `num_ranks`, on the fake clique.
  CudaCollectiveTransport& Transport(int rank, int num_ranks,
                                     NcclFunctions functions = FakeFunctions()) {
    library_ = std::make_unique<NcclLibrary>(NcclLibrary::ForTesting("fake-nccl", functions));
    transport_ = CudaCollectiveTransport::CreateForTesting(
        *library_, kClique, rank, num_ranks, std::make_unique<HostMemoryOps>(&strided_, &zeros_));
    return *transport_;
  }

  FakeNccl state_;
  std::vector<StridedCopy> strided_;
  int zeros_ = 0;
  std::unique_ptr<NcclLibrary> library_;
  std::unique_ptr<CudaCollectiveTransport> transport_;
};

TEST_F(CudaPlanExecutionTest, TransportWithACommunicatorRunsPlans) {
  EXPECT_TRUE(Transport(0, 2).RunsPlans());
}

TEST_F(CudaPlanExecutionTest, SubGroupAllReduceSplitsOnceThenReusesTheCommunicator) {
  CudaCollectiveTransport& transport = Transport(2, 4);
  const collectives::CollectivePlan plan = PlanOf(PlanKind::kAllReduce, {{0, 1}, {2, 3}}, 4,
                                                  {8, 16}, {8, 16});  // variadic: two f32 operands
  std::vector<float> a(2), b(4), ra(2), rb(4);
  const std::vector<const void*> send = {a.data(), b.data()};
  const std::vector<void*> receive = {ra.data(), rb.data()};
  ASSERT_TRUE(transport.RunPlan(plan, send, receive).ok());
  ASSERT_EQ(state_.splits.size(), 1u);
  EXPECT_EQ(state_.splits[0].parent, kClique);
  EXPECT_EQ(state_.splits[0].color, 1);  // the second group
  EXPECT_EQ(state_.splits[0].key, 0);    // device 2 is its rank 0
  EXPECT_EQ(Names(state_.calls), "GroupStart AllReduce AllReduce GroupEnd");
  const nccl_abi::Comm group = state_.calls[1].comm;
  EXPECT_NE(group, kClique);
  EXPECT_EQ(state_.calls[1].count, 2u);
  EXPECT_EQ(state_.calls[2].count, 4u);
  EXPECT_EQ(state_.calls[1].type, nccl_abi::kFloat32);
  EXPECT_EQ(state_.calls[1].op_or_peer, nccl_abi::kSum);

  // The same groups again (another instruction too): no new split.
  state_.calls.clear();
  ASSERT_TRUE(transport.RunPlan(plan, send, receive).ok());
  const collectives::CollectivePlan other =
      PlanOf(PlanKind::kAllReduce, {{0, 1}, {2, 3}}, 4, {8}, {8});
  ASSERT_TRUE(transport.RunPlan(other, {a.data()}, {ra.data()}).ok());
  EXPECT_EQ(state_.splits.size(), 1u);
  for (const NcclCall& call : state_.calls) {
    if (call.name == "AllReduce") {
      EXPECT_EQ(call.comm, group);
    }
  }

  // Other groups: one more split; device 2 is rank 1 of the first group.
  const collectives::CollectivePlan across =
      PlanOf(PlanKind::kAllReduce, {{0, 2}, {1, 3}}, 4, {8}, {8});
  ASSERT_TRUE(transport.RunPlan(across, {a.data()}, {ra.data()}).ok());
  ASSERT_EQ(state_.splits.size(), 2u);
  EXPECT_EQ(state_.splits[1].color, 0);
  EXPECT_EQ(state_.splits[1].key, 1);
  EXPECT_NE(state_.calls.back().comm, group);

  transport_.reset();  // destroys the two split communicators, not the clique's
  EXPECT_EQ(state_.destroyed.size(), 2u);
}

TEST_F(CudaPlanExecutionTest, OneGroupOfAllDevicesInOrderIsTheClique) {
  CudaCollectiveTransport& transport = Transport(1, 4);
  const collectives::CollectivePlan plan =
      PlanOf(PlanKind::kAllReduce, {{0, 1, 2, 3}}, 4, {8}, {8});
  std::vector<float> a(2), r(2);
  ASSERT_TRUE(transport.RunPlan(plan, {a.data()}, {r.data()}).ok());
  EXPECT_TRUE(state_.splits.empty());
  EXPECT_EQ(state_.calls[1].comm, kClique);
  // Another rank order needs its own communicator: key = position.
  const collectives::CollectivePlan reordered =
      PlanOf(PlanKind::kAllReduce, {{3, 2, 1, 0}}, 4, {8}, {8});
  ASSERT_TRUE(transport.RunPlan(reordered, {a.data()}, {r.data()}).ok());
  ASSERT_EQ(state_.splits.size(), 1u);
  EXPECT_EQ(state_.splits[0].color, 0);
  EXPECT_EQ(state_.splits[0].key, 2);
}

TEST_F(CudaPlanExecutionTest, ADeviceAloneInItsGroupStillTakesPartInTheSplitAndCopies) {
  CudaCollectiveTransport& transport = Transport(2, 4);
  const collectives::CollectivePlan plan =
      PlanOf(PlanKind::kAllReduce, {{0, 1}, {2}, {3}}, 4, {8}, {8});
  const std::vector<float> a = {1.5f, 2.5f};
  std::vector<float> r(2);
  ASSERT_TRUE(transport.RunPlan(plan, {a.data()}, {r.data()}).ok());
  ASSERT_EQ(state_.splits.size(), 1u);
  EXPECT_EQ(state_.splits[0].color, nccl_abi::kSplitNoColor);
  EXPECT_TRUE(state_.calls.empty());
  EXPECT_EQ(r, a);
  // Only groups of one: nobody splits.
  const collectives::CollectivePlan singletons =
      PlanOf(PlanKind::kAllGather, {{0}, {1}, {2}, {3}}, 4, {8}, {8});
  collectives::CollectivePlan gather = singletons;
  gather.splits = {{1, 8}};
  ASSERT_TRUE(transport.RunPlan(gather, {a.data()}, {r.data()}).ok());
  EXPECT_EQ(state_.splits.size(), 1u);
  EXPECT_TRUE(state_.calls.empty());
}

TEST_F(CudaPlanExecutionTest, WithoutCommSplitSubGroupsAreUnimplementedNamingTheNcclVersion) {
  NcclFunctions functions = FakeFunctions();
  functions.CommSplit = nullptr;
  CudaCollectiveTransport& transport = Transport(0, 4, functions);
  std::vector<float> a(2), r(2);
  const absl::Status status = transport.RunPlan(
      PlanOf(PlanKind::kAllReduce, {{0, 1}, {2, 3}}, 4, {8}, {8}), {a.data()}, {r.data()});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(status.message()), HasSubstr("ncclCommSplit (NCCL >= 2.18)"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("fake-nccl"));
  // One group of all still runs on the clique.
  EXPECT_TRUE(transport
                  .RunPlan(PlanOf(PlanKind::kAllReduce, {{0, 1, 2, 3}}, 4, {8}, {8}), {a.data()},
                           {r.data()})
                  .ok());
}

TEST_F(CudaPlanExecutionTest, AllGatherOfTheOutermostDimensionIsOneCall) {
  CudaCollectiveTransport& transport = Transport(2, 4);
  collectives::CollectivePlan plan = PlanOf(PlanKind::kAllGather, {{0, 2}, {1, 3}}, 4, {8}, {16});
  plan.splits = {{1, 8}};
  std::vector<uint8_t> send = {1, 2, 3, 4, 5, 6, 7, 8}, receive(16);
  state_.gather_ranks = 2;
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  ASSERT_EQ(state_.splits.size(), 1u);
  EXPECT_EQ(state_.splits[0].color, 0);
  EXPECT_EQ(state_.splits[0].key, 1);
  EXPECT_EQ(Names(state_.calls), "GroupStart AllGather GroupEnd");
  EXPECT_EQ(state_.calls[1].count, 8u);  // bytes
  EXPECT_EQ(state_.calls[1].type, nccl_abi::kUint8);
  EXPECT_TRUE(strided_.empty());
  EXPECT_EQ(receive[8], 11);  // the fake peer's first byte
}

TEST_F(CudaPlanExecutionTest, AllGatherOfAnInnerDimensionIsStagedAndSpread) {
  CudaCollectiveTransport& transport = Transport(2, 4);
  // send [outer 2][chunk 4 bytes], receive [2][ranks 2][4].
  collectives::CollectivePlan plan = PlanOf(PlanKind::kAllGather, {{0, 1}, {2, 3}}, 4, {8}, {16});
  plan.splits = {{2, 4}};
  std::vector<uint8_t> send = {1, 2, 3, 4, 5, 6, 7, 8}, receive(16);
  state_.gather_ranks = 2;
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  EXPECT_EQ(Names(state_.calls), "GroupStart AllGather GroupEnd");
  EXPECT_EQ(state_.calls[1].count, 8u);
  // Rank k's rows land at [o][k]: own chunk, then the peer's (+10).
  EXPECT_EQ(receive,
            (std::vector<uint8_t>{1, 2, 3, 4, 11, 12, 13, 14, 5, 6, 7, 8, 15, 16, 17, 18}));
  ASSERT_EQ(strided_.size(), 2u);  // one per rank
  EXPECT_EQ(strided_[0].destination_pitch, 8u);
  EXPECT_EQ(strided_[0].source_pitch, 4u);
  EXPECT_EQ(strided_[0].width, 4u);
  EXPECT_EQ(strided_[0].rows, 2u);
}

TEST_F(CudaPlanExecutionTest, ReduceScatterOfAnInnerDimensionRegroupsTheSendRankMajor) {
  CudaCollectiveTransport& transport = Transport(3, 4);
  // send [outer 2][ranks 2][chunk 8 bytes = 2 f32], receive [2][8 bytes].
  collectives::CollectivePlan plan =
      PlanOf(PlanKind::kReduceScatter, {{0, 1}, {2, 3}}, 4, {32}, {16});
  plan.splits = {{2, 8}};
  plan.reduction = collectives::ReductionKind::kMax;
  std::vector<float> send(8), receive(4);
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  EXPECT_EQ(state_.splits[0].key, 1);
  EXPECT_EQ(Names(state_.calls), "GroupStart ReduceScatter GroupEnd");
  EXPECT_EQ(state_.calls[1].count, 4u);  // elements per rank: outer x chunk
  EXPECT_EQ(state_.calls[1].op_or_peer, nccl_abi::kMax);
  ASSERT_EQ(strided_.size(), 2u);
  EXPECT_EQ(strided_[0].destination_pitch, 8u);
  EXPECT_EQ(strided_[0].source_pitch, 16u);
}

TEST_F(CudaPlanExecutionTest, SubGroupAllToAllSendsToGroupRanks) {
  CudaCollectiveTransport& transport = Transport(2, 4);
  // Devices 2 and 3 are ranks 0 and 1 of their communicator.
  collectives::CollectivePlan plan = PlanOf(PlanKind::kAllToAll, {{0, 1}, {2, 3}}, 4, {8}, {8});
  plan.splits = {{1, 4}};
  std::vector<uint8_t> send(8), receive(8);
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  EXPECT_EQ(Names(state_.calls), "GroupStart Send Recv Send Recv GroupEnd");
  std::vector<int> peers;
  for (const NcclCall& call : state_.calls) {
    if (call.name == "Send" || call.name == "Recv") {
      peers.push_back(call.op_or_peer);
      EXPECT_EQ(call.count, 4u);
    }
  }
  EXPECT_THAT(peers, ElementsAre(0, 0, 1, 1));
  EXPECT_TRUE(strided_.empty());

  // An inner dimension: [outer 2][ranks 2][chunk 4], staged both ways.
  state_.calls.clear();
  plan.splits = {{2, 4}};
  plan.send_bytes = {16};
  plan.receive_bytes = {16};
  std::vector<uint8_t> send16(16), receive16(16);
  ASSERT_TRUE(transport.RunPlan(plan, {send16.data()}, {receive16.data()}).ok());
  EXPECT_EQ(state_.calls[1].count, 8u);  // outer x chunk per peer
  EXPECT_EQ(strided_.size(), 4u);
  EXPECT_EQ(state_.splits.size(), 1u);
}

TEST_F(CudaPlanExecutionTest, TupleAllToAllSendsBufferKToRankK) {
  CudaCollectiveTransport& transport = Transport(1, 2);
  collectives::CollectivePlan plan = PlanOf(PlanKind::kAllToAll, {{0, 1}}, 2, {4, 12}, {4, 12});
  std::vector<uint8_t> s0(4), s1(12), r0(4), r1(12);
  ASSERT_TRUE(transport.RunPlan(plan, {s0.data(), s1.data()}, {r0.data(), r1.data()}).ok());
  EXPECT_TRUE(state_.splits.empty());
  EXPECT_EQ(Names(state_.calls), "GroupStart Send Recv Send Recv GroupEnd");
  EXPECT_EQ(state_.calls[3].count, 12u);
  EXPECT_EQ(state_.calls[3].op_or_peer, 1);
}

TEST_F(CudaPlanExecutionTest, CollectivePermuteUsesThePeersOnTheClique) {
  CudaCollectiveTransport& transport = Transport(2, 4);
  collectives::CollectivePlan plan = PlanOf(PlanKind::kCollectivePermute, {}, 4, {8}, {8});
  plan.participants.clear();
  plan.peers.resize(4);
  plan.peers[2] = {/*source=*/1, /*target=*/3};
  std::vector<uint8_t> send(8), receive(8, 7);
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  EXPECT_TRUE(state_.splits.empty());
  EXPECT_EQ(Names(state_.calls), "GroupStart Send Recv GroupEnd");
  EXPECT_EQ(state_.calls[1].op_or_peer, 3);
  EXPECT_EQ(state_.calls[2].op_or_peer, 1);
  EXPECT_EQ(state_.calls[1].comm, kClique);
  EXPECT_EQ(zeros_, 0);
  // A target without a source gets zeros, as in XLA.
  state_.calls.clear();
  plan.peers[2] = {-1, 0};
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  EXPECT_EQ(Names(state_.calls), "GroupStart Send GroupEnd");
  EXPECT_EQ(zeros_, 1);
  EXPECT_EQ(receive, std::vector<uint8_t>(8, 0));
}

TEST_F(CudaPlanExecutionTest, BroadcastIsFromTheGroupsRankZero) {
  CudaCollectiveTransport& transport = Transport(3, 4);
  const collectives::CollectivePlan plan =
      PlanOf(PlanKind::kCollectiveBroadcast, {{0, 1}, {2, 3}}, 4, {8}, {8});
  std::vector<uint8_t> send(8), receive(8);
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  EXPECT_EQ(Names(state_.calls), "GroupStart Broadcast GroupEnd");
  EXPECT_EQ(state_.calls[1].op_or_peer, 0);
  EXPECT_EQ(state_.calls[1].count, 8u);
}

TEST_F(CudaPlanExecutionTest, BroadcastWithoutNcclBroadcastIsUnimplemented) {
  NcclFunctions functions = FakeFunctions();
  functions.Broadcast = nullptr;
  CudaCollectiveTransport& transport = Transport(3, 4, functions);
  std::vector<uint8_t> send(8), receive(8);
  const absl::Status status =
      transport.RunPlan(PlanOf(PlanKind::kCollectiveBroadcast, {{0, 1, 2, 3}}, 4, {8}, {8}),
                        {send.data()}, {receive.data()});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(status.message()), HasSubstr("ncclBroadcast"));
}

TEST_F(CudaPlanExecutionTest, ReplicaAndPartitionIdsAreWrittenWithoutNccl) {
  CudaCollectiveTransport& transport = Transport(3, 4);
  collectives::CollectivePlan plan = PlanOf(PlanKind::kReplicaId, {}, 4, {}, {4});
  plan.participants.clear();
  plan.grid.replica_count = 2;
  plan.grid.partition_count = 2;
  uint32_t id = 99;
  ASSERT_TRUE(transport.RunPlan(plan, {}, {&id}).ok());
  EXPECT_EQ(id, 1u);
  plan.kind = PlanKind::kPartitionId;
  plan.grid.replica_count = 1;
  plan.grid.partition_count = 4;
  ASSERT_TRUE(transport.RunPlan(plan, {}, {&id}).ok());
  EXPECT_EQ(id, 3u);
  EXPECT_TRUE(state_.calls.empty());
}

TEST_F(CudaPlanExecutionTest, ReductionTypes) {
  CudaCollectiveTransport& transport = Transport(0, 2);
  collectives::CollectivePlan plan = PlanOf(PlanKind::kAllReduce, {{0, 1}}, 2, {4}, {4});
  std::vector<uint8_t> send(4), receive(4);
  plan.element_type = PrimitiveType::PRED;
  plan.reduction = collectives::ReductionKind::kAnd;
  ASSERT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
  EXPECT_EQ(state_.calls[1].type, nccl_abi::kUint8);
  EXPECT_EQ(state_.calls[1].op_or_peer, nccl_abi::kMin);
  plan.element_type = PrimitiveType::S16;
  plan.reduction = collectives::ReductionKind::kSum;
  const absl::Status s16 = transport.RunPlan(plan, {send.data()}, {receive.data()});
  EXPECT_EQ(s16.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s16.message()), HasSubstr("s16"));
  // Moving bytes needs no NCCL type.
  plan.kind = PlanKind::kCollectiveBroadcast;
  EXPECT_TRUE(transport.RunPlan(plan, {send.data()}, {receive.data()}).ok());
}

TEST_F(CudaPlanExecutionTest, OverlappingReceiveIsStagedAndCopiedIn) {
  CudaCollectiveTransport& transport = Transport(0, 2);
  collectives::CollectivePlan plan = PlanOf(PlanKind::kAllGather, {{0, 1}}, 2, {4}, {8});
  plan.splits = {{1, 4}};
  state_.gather_ranks = 2;
  // The send is the second half of the receive.
  std::vector<uint8_t> buffer = {0, 0, 0, 0, 1, 2, 3, 4};
  ASSERT_TRUE(transport.RunPlan(plan, {buffer.data() + 4}, {buffer.data()}).ok());
  EXPECT_EQ(buffer, (std::vector<uint8_t>{1, 2, 3, 4, 11, 12, 13, 14}));
}

// The strided copies on one real device (no NCCL needed).
TEST(CudaStreamMemoryOpsTest, StridedCopyOnADevice) {
  if (!CudaDeviceCount().ok()) GTEST_SKIP() << "no CUDA device: " << CudaDeviceCount().status();
#if HMO_GPU_HAVE_CUDA_RUNTIME
  std::unique_ptr<DeviceMemoryOps> memory = CreateCudaStreamMemoryOps(nullptr);
  absl::StatusOr<void*> device = memory->Allocate(16);
  ASSERT_TRUE(device.ok()) << device.status();
  const std::vector<uint8_t> host = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ASSERT_TRUE(memory->Zero(*device, 16).ok());
  // Rows of 2 bytes every 4 bytes, packed.
  ASSERT_TRUE(memory->CopyStrided(*device, 2, host.data(), 4, 2, 4).ok());
  ASSERT_TRUE(memory->Synchronize().ok());
  std::vector<uint8_t> back(16);
  ASSERT_EQ(cudaMemcpy(back.data(), *device, 16, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, (std::vector<uint8_t>{1, 2, 5, 6, 9, 10, 13, 14, 0, 0, 0, 0, 0, 0, 0, 0}));
  memory->Free(*device);
#endif
}

}  // namespace
}  // namespace hmo::gpu
