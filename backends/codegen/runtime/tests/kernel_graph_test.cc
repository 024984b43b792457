// __hmo_cpu_run_kernel_graph: every node runs once, never before all of its
// predecessors returned, and independent nodes may overlap; partitioned
// nodes run all their parts.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace {

constexpr int kMaxNodes = 64;

// What the kernels record: per node, the step at which it started and
// returned (a shared clock), and how many times (or parts) it ran.
struct Log {
  std::atomic<int64_t> clock{0};
  std::array<std::atomic<int64_t>, kMaxNodes> started{};
  std::array<std::atomic<int64_t>, kMaxNodes> finished{};
  std::array<std::atomic<int64_t>, kMaxNodes> runs{};
  std::array<std::atomic<bool>, kMaxNodes> on_caller{};
  std::atomic<int> running{0};
  std::atomic<int> most_running{0};
};

thread_local bool is_caller = false;

void Record(char** table, int node) {
  Log& log = *reinterpret_cast<Log*>(table[0]);
  log.on_caller[node] = is_caller;
  log.started[node] = log.clock.fetch_add(1);
  const int now = log.running.fetch_add(1) + 1;
  int most = log.most_running.load();
  while (now > most && !log.most_running.compare_exchange_weak(most, now)) {
  }
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  log.running.fetch_sub(1);
  log.runs[node].fetch_add(1);
  log.finished[node] = log.clock.fetch_add(1);
}

template <int I>
void Kernel(char** table) {
  Record(table, I);
}
template <int I>
void KernelPart(char** table, int64_t /*part*/, int64_t /*parts*/) {
  Record(table, I);
}

template <int... I>
std::array<void*, kMaxNodes> Kernels(std::integer_sequence<int, I...>) {
  return {reinterpret_cast<void*>(&Kernel<I>)...};
}
template <int... I>
std::array<void*, kMaxNodes> KernelParts(std::integer_sequence<int, I...>) {
  return {reinterpret_cast<void*>(&KernelPart<I>)...};
}

class KernelGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = hmo::codegen::IntraOpThreadCount();
    hmo::codegen::SetIntraOpThreadCount(4);
  }
  void TearDown() override { hmo::codegen::SetIntraOpThreadCount(previous_); }

 private:
  int previous_ = 1;
};

TEST_F(KernelGraphTest, EveryNodeRunsAfterItsPredecessors) {
  const auto kernels = Kernels(std::make_integer_sequence<int, kMaxNodes>());
  const auto parts = KernelParts(std::make_integer_sequence<int, kMaxNodes>());
  std::mt19937 random(3);
  for (int trial = 0; trial < 20; ++trial) {
    const int count = 2 + static_cast<int>(random() % (kMaxNodes - 1));
    // Edges i -> j (i < j) with probability 1/8; every 5th node
    // partitioned, every 7th kept on the calling thread.
    std::vector<std::vector<int64_t>> successors_of(count);
    std::vector<std::vector<int>> predecessors_of(count);
    for (int j = 0; j < count; ++j) {
      for (int i = 0; i < j; ++i) {
        if (random() % 8 == 0) {
          successors_of[i].push_back(j);
          predecessors_of[j].push_back(i);
        }
      }
    }
    std::vector<HmoCpuKernelNode> nodes;
    std::vector<int64_t> successors;
    for (int i = 0; i < count; ++i) {
      const bool partitioned = i % 5 == 4;
      nodes.push_back(HmoCpuKernelNode{
          partitioned ? parts[i] : kernels[i], partitioned ? 3 : 1,
          partitioned || i % 7 == 6 ? 1 : 0, static_cast<int64_t>(predecessors_of[i].size()),
          static_cast<int64_t>(successors.size()), static_cast<int64_t>(successors_of[i].size())});
      successors.insert(successors.end(), successors_of[i].begin(), successors_of[i].end());
    }
    Log log;
    char* table[] = {reinterpret_cast<char*>(&log)};
    is_caller = true;
    __hmo_cpu_run_kernel_graph(nodes.data(), count, successors.data(), table);
    is_caller = false;
    for (int j = 0; j < count; ++j) {
      // A node kept on the calling thread ran there.
      if (j % 7 == 6 && j % 5 != 4) {
        EXPECT_TRUE(log.on_caller[j].load()) << "node " << j;
      }
      // A partitioned node's parts: min(3, the 4 intra-op threads).
      ASSERT_EQ(log.runs[j].load(), j % 5 == 4 ? 3 : 1) << "trial " << trial << " node " << j;
      for (int i : predecessors_of[j]) {
        ASSERT_LT(log.finished[i].load(), log.started[j].load())
            << "trial " << trial << ": node " << j << " started before " << i << " returned";
      }
    }
  }
}

TEST_F(KernelGraphTest, IndependentNodesOverlap) {
  const auto kernels = Kernels(std::make_integer_sequence<int, kMaxNodes>());
  std::vector<HmoCpuKernelNode> nodes;
  for (int i = 0; i < 16; ++i) nodes.push_back(HmoCpuKernelNode{kernels[i], 1, 0, 0, 0, 0});
  Log log;
  char* table[] = {reinterpret_cast<char*>(&log)};
  __hmo_cpu_run_kernel_graph(nodes.data(), 16, nullptr, table);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(log.runs[i].load(), 1);
  EXPECT_GE(log.most_running.load(), 2);
}

TEST_F(KernelGraphTest, OneThreadRunsTheNodesInOrder) {
  hmo::codegen::SetIntraOpThreadCount(1);
  const auto kernels = Kernels(std::make_integer_sequence<int, kMaxNodes>());
  std::vector<HmoCpuKernelNode> nodes;
  for (int i = 0; i < 8; ++i) nodes.push_back(HmoCpuKernelNode{kernels[i], 1, 0, 0, 0, 0});
  Log log;
  char* table[] = {reinterpret_cast<char*>(&log)};
  __hmo_cpu_run_kernel_graph(nodes.data(), 8, nullptr, table);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(log.started[i].load(), 2 * i);
  EXPECT_EQ(log.most_running.load(), 1);
}

}  // namespace
