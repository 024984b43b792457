// Collectives: the NCCL loader's errors, the clique-of-one rules, and the
// multi-rank semantics on the host fake (threads of this process), plus a
// clique of one on device memory when a GPU is present.

#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/cuda_device_query.h"
#include "gpu/nccl/collective_thunk.h"
#include "gpu/nccl/cuda_collective_transport.h"
#include "gpu/nccl/host_collective_transport.h"
#include "gpu/nccl/nccl_library.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

TEST(NcclLibraryTest, MissingLibraryIsUnavailableAndNamed) {
  absl::StatusOr<NcclLibrary> library = NcclLibrary::Load("libnccl-not-installed.so.2");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(library.status().message()), HasSubstr("libnccl-not-installed.so.2"));
}

TEST(NcclLibraryTest, DefaultLibraryLoadsOrIsUnavailableNamingIt) {
  absl::StatusOr<NcclLibrary> library = NcclLibrary::Load();
  if (library.ok()) {
    EXPECT_NE(library->functions().AllReduce, nullptr);
    EXPECT_NE(library->functions().GetErrorString, nullptr);
    return;
  }
  EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(library.status().message()), HasSubstr("libnccl.so.2"));
}

TEST(NcclLibraryTest, LibraryWithoutTheEntryPointsIsRejected) {
  // libc loads, but it is not NCCL.
  absl::StatusOr<NcclLibrary> library = NcclLibrary::Load("libc.so.6");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(library.status().message()), HasSubstr("no entry point ncclGetUniqueId"));
}

TEST(CollectiveOpTest, ReceiveSizes) {
  CollectiveOp op;
  op.send_elements = 12;
  op.kind = CollectiveKind::kAllGather;
  EXPECT_EQ(*ReceiveElements(op, 4), 48);
  op.kind = CollectiveKind::kReduceScatter;
  EXPECT_EQ(*ReceiveElements(op, 4), 3);
  EXPECT_EQ(ReceiveElements(op, 5).status().code(), absl::StatusCode::kInvalidArgument);
  op.kind = CollectiveKind::kAllReduce;
  EXPECT_EQ(*ReceiveElements(op, 4), 12);
}

// A clique of one on the host: results are the rank's own data.
TEST(CollectiveCliqueOfOneTest, AllReduceAllGatherReduceScatterAreCopies) {
  collectives::Rendezvous rendezvous;
  HostCollectiveTransport transport(rendezvous, "clique[0]", 0, 1);
  const std::vector<float> send = {1.5f, -2.0f, 3.25f, 4.0f};
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter}) {
    CollectiveOp op;
    op.kind = kind;
    op.reduction = ReductionKind::kMax;
    op.element_type = HostElementType::kF32;
    op.send_elements = 4;
    std::vector<float> receive(4, 99.0f);
    ASSERT_TRUE(RunCollective(op, send.data(), receive.data(), transport).ok());
    EXPECT_EQ(receive, send) << static_cast<int>(kind);
  }
}

TEST(CollectiveCliqueOfOneTest, PermuteCopiesForSelfPairAndZeroesOtherwise) {
  collectives::Rendezvous rendezvous;
  HostCollectiveTransport transport(rendezvous, "clique[0]", 0, 1);
  const std::vector<int32_t> send = {7, 8, 9};
  CollectiveOp op;
  op.kind = CollectiveKind::kCollectivePermute;
  op.element_type = HostElementType::kS32;
  op.send_elements = 3;
  op.source_target_pairs = {{0, 0}};
  std::vector<int32_t> receive(3, -1);
  ASSERT_TRUE(RunCollective(op, send.data(), receive.data(), transport).ok());
  EXPECT_EQ(receive, send);
  op.source_target_pairs = {};
  ASSERT_TRUE(RunCollective(op, send.data(), receive.data(), transport).ok());
  EXPECT_EQ(receive, (std::vector<int32_t>{0, 0, 0}));
  op.source_target_pairs = {{0, 1}};
  EXPECT_EQ(RunCollective(op, send.data(), receive.data(), transport).code(), absl::StatusCode::kInvalidArgument);
}

// Runs `body(rank, transport)` on `ranks` threads sharing one rendezvous.
void RunClique(int ranks, const std::function<void(int, HostCollectiveTransport&)>& body) {
  collectives::Rendezvous rendezvous;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      HostCollectiveTransport transport(rendezvous, "clique[0,1,2,3]", r, ranks, absl::Seconds(5));
      body(r, transport);
    });
  }
  for (std::thread& t : threads) t.join();
}

TEST(HostCollectivesTest, AllReduceSumsEveryRanksDataInPlace) {
  std::vector<std::vector<int32_t>> data(4);
  RunClique(4, [&](int rank, HostCollectiveTransport& transport) {
    data[rank] = {rank, 10 * rank, 1};
    CollectiveOp op;
    op.kind = CollectiveKind::kAllReduce;
    op.element_type = HostElementType::kS32;
    op.send_elements = 3;
    // In place: send and receive are the same buffer.
    EXPECT_TRUE(RunCollective(op, data[rank].data(), data[rank].data(), transport).ok());
  });
  for (int r = 0; r < 4; ++r) EXPECT_EQ(data[r], (std::vector<int32_t>{6, 60, 4})) << r;
}

TEST(HostCollectivesTest, AllGatherConcatenatesInRankOrder) {
  std::vector<std::vector<float>> out(3, std::vector<float>(6));
  RunClique(3, [&](int rank, HostCollectiveTransport& transport) {
    const std::vector<float> send = {static_cast<float>(rank), static_cast<float>(rank) + 0.5f};
    CollectiveOp op;
    op.kind = CollectiveKind::kAllGather;
    op.element_type = HostElementType::kF32;
    op.send_elements = 2;
    EXPECT_TRUE(RunCollective(op, send.data(), out[rank].data(), transport).ok());
  });
  for (int r = 0; r < 3; ++r) EXPECT_EQ(out[r], (std::vector<float>{0, 0.5f, 1, 1.5f, 2, 2.5f})) << r;
}

TEST(HostCollectivesTest, ReduceScatterGivesEachRankItsReducedBlock) {
  std::vector<std::vector<double>> out(2, std::vector<double>(2));
  RunClique(2, [&](int rank, HostCollectiveTransport& transport) {
    // rank 0: 1 2 3 4; rank 1: 4 3 2 1 -> max: 4 3 3 4
    const std::vector<double> send = rank == 0 ? std::vector<double>{1, 2, 3, 4} : std::vector<double>{4, 3, 2, 1};
    CollectiveOp op;
    op.kind = CollectiveKind::kReduceScatter;
    op.reduction = ReductionKind::kMax;
    op.element_type = HostElementType::kF64;
    op.send_elements = 4;
    EXPECT_TRUE(RunCollective(op, send.data(), out[rank].data(), transport).ok());
  });
  EXPECT_EQ(out[0], (std::vector<double>{4, 3}));
  EXPECT_EQ(out[1], (std::vector<double>{3, 4}));
}

TEST(HostCollectivesTest, PermuteShiftsAlongPairsAndZeroesRanksWithoutSource) {
  std::vector<std::vector<int64_t>> out(4, std::vector<int64_t>(2, -1));
  RunClique(4, [&](int rank, HostCollectiveTransport& transport) {
    const std::vector<int64_t> send = {100 + rank, 200 + rank};
    CollectiveOp op;
    op.kind = CollectiveKind::kCollectivePermute;
    op.element_type = HostElementType::kS64;
    op.send_elements = 2;
    op.source_target_pairs = {{0, 1}, {1, 2}, {2, 3}};  // rank 0 receives nothing
    EXPECT_TRUE(RunCollective(op, send.data(), out[rank].data(), transport).ok());
  });
  EXPECT_EQ(out[0], (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(out[1], (std::vector<int64_t>{100, 200}));
  EXPECT_EQ(out[2], (std::vector<int64_t>{101, 201}));
  EXPECT_EQ(out[3], (std::vector<int64_t>{102, 202}));
}

TEST(CudaCollectivesTest, NcclDataTypes) {
  EXPECT_EQ(*NcclDataType(HostElementType::kF32), nccl_abi::kFloat32);
  EXPECT_EQ(*NcclDataType(HostElementType::kBF16), nccl_abi::kBfloat16);
  EXPECT_EQ(*NcclDataType(HostElementType::kS64), nccl_abi::kInt64);
  EXPECT_EQ(NcclDataType(HostElementType::kPred).status().code(), absl::StatusCode::kUnimplemented);
}

TEST(CudaCollectivesTest, CliqueOfOneOnDeviceMemoryNeedsNoNccl) {
  absl::StatusOr<std::unique_ptr<CudaCollectiveTransport>> transport = CudaCollectiveTransport::CreateSingleRank(nullptr);
  if (!CudaDeviceCount().ok()) {
    ASSERT_FALSE(transport.ok());
    EXPECT_EQ(transport.status().code(), absl::StatusCode::kUnavailable);
    GTEST_SKIP() << "no CUDA device: " << transport.status();
  }
#if HMO_GPU_HAVE_CUDA_RUNTIME
  ASSERT_TRUE(transport.ok()) << transport.status();
  const std::vector<float> host = {1, 2, 3, 4, 5, 6, 7, 8};
  void* send = nullptr;
  void* receive = nullptr;
  ASSERT_EQ(cudaMalloc(&send, 32), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&receive, 32), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(send, host.data(), 32, cudaMemcpyHostToDevice), cudaSuccess);
  CollectiveOp op;
  op.kind = CollectiveKind::kAllReduce;
  op.element_type = HostElementType::kF32;
  op.send_elements = 8;
  ASSERT_TRUE(RunCollective(op, send, receive, **transport).ok());
  ASSERT_TRUE((*transport)->Synchronize().ok());
  std::vector<float> back(8);
  ASSERT_EQ(cudaMemcpy(back.data(), receive, 32, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  op.kind = CollectiveKind::kCollectivePermute;  // no pairs: zeros
  ASSERT_TRUE(RunCollective(op, send, receive, **transport).ok());
  ASSERT_TRUE((*transport)->Synchronize().ok());
  ASSERT_EQ(cudaMemcpy(back.data(), receive, 32, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, std::vector<float>(8, 0.0f));
  cudaFree(send);
  cudaFree(receive);
#endif
}

}  // namespace
}  // namespace hmo::gpu
