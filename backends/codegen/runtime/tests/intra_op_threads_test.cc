#include "hmo/codegen/runtime/intra_op_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace hmo::codegen {
namespace {

class IntraOpThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override { previous_ = IntraOpThreadCount(); }
  void TearDown() override { SetIntraOpThreadCount(previous_); }
  int previous_ = 1;
};

TEST_F(IntraOpThreadsTest, EveryPartRunsOnce) {
  SetIntraOpThreadCount(4);
  std::mutex mutex;
  std::multiset<int64_t> seen;
  int64_t parts_seen = -1;
  ForEachIntraOpPart(100, [&](int64_t part, int64_t parts) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(part);
    parts_seen = parts;
  });
  EXPECT_EQ(parts_seen, 4);
  EXPECT_EQ(seen, (std::multiset<int64_t>{0, 1, 2, 3}));

  seen.clear();
  ForEachIntraOpPart(1, [&](int64_t part, int64_t parts) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(part);
    parts_seen = parts;
  });
  EXPECT_EQ(parts_seen, 1);
  EXPECT_EQ(seen, (std::multiset<int64_t>{0}));
}

// With one pool thread held by another caller's long part, a second caller
// runs all of its own parts itself instead of waiting for the pool.
TEST_F(IntraOpThreadsTest, ACallerRunsThePartsNoPoolThreadStarted) {
  SetIntraOpThreadCount(2);  // the caller and one pool thread
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> pool_thread_held{false};
  std::thread first([&] {
    ForEachIntraOpPart(2, [&](int64_t part, int64_t) {
      if (part == 0) {
        // The caller's own part: keep the pool's thread on part 1.
        while (!pool_thread_held.load()) std::this_thread::yield();
        return;
      }
      pool_thread_held.store(true);
      released.wait();
    });
  });
  // The first caller stays in part 0 until part 1 started, so part 1 is on
  // the pool's only thread: wait until it is held there.
  while (!pool_thread_held.load()) std::this_thread::yield();

  std::atomic<int> parts_run{0};
  std::thread second(
      [&] { ForEachIntraOpPart(2, [&](int64_t, int64_t) { parts_run.fetch_add(1); }); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (parts_run.load() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(parts_run.load(), 2) << "the second caller waited for the busy pool thread";
  release.set_value();
  first.join();
  second.join();
}

}  // namespace
}  // namespace hmo::codegen
