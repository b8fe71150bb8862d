#include "runtime/core/parallel.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

TEST(parallel_for, calls_the_work_once_for_every_index) {
  for (std::size_t count : {0u, 1u, 2u, 7u, 1000u}) {
    std::vector<std::atomic<int>> calls(count);
    parallel_for(count, 4, [&](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < count; ++i)
      EXPECT_EQ(calls[i].load(), 1) << "index " << i << " of " << count;
  }
}

TEST(parallel_for, one_thread_runs_everything_on_the_caller_in_order) {
  std::vector<std::size_t> order;
  std::vector<std::thread::id> ran_on;
  parallel_for(5, 1, [&](std::size_t i) {
    order.push_back(i);
    ran_on.push_back(std::this_thread::get_id());
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  for (auto id : ran_on)
    EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(parallel_for, two_threads_run_two_calls_at_the_same_time) {
  // Each of the two calls waits for the other to begin: run one after the
  // other, the first would wait out its bound alone.
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::atomic<int> met{0};
  parallel_for(2, 2, [&](std::size_t) {
    std::unique_lock lock(m);
    ++arrived;
    cv.notify_all();
    if (cv.wait_for(lock, std::chrono::seconds(10), [&] { return arrived == 2; }))
      ++met;
  });
  EXPECT_EQ(met.load(), 2);
}

TEST(parallel_for, the_first_exception_reaches_the_caller_after_the_threads_stop) {
  std::atomic<int> running{0};
  std::atomic<int> started{0};
  try {
    // Every other call takes a millisecond: all 2,000 would take half a
    // second on four threads, so the failure has long stopped them by then.
    parallel_for(2000, 4, [&](std::size_t i) {
      ++running;
      ++started;
      if (i == 3)
        throw std::runtime_error("index 3 failed");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      --running;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 3 failed");
  }
  // Only the throwing call never finished; nothing runs any more, and the
  // failure stopped new calls well before the end.
  EXPECT_EQ(running.load(), 1);
  EXPECT_LT(started.load(), 2000);
}

// The work runs on a thread of its own while the caller goes on: it waits
// for the caller's word, which comes only after start_beside returned.
TEST(start_beside, runs_the_work_beside_the_caller) {
  std::promise<void> go;
  auto word = go.get_future();
  auto caller = std::this_thread::get_id();
  auto result = start_beside([&] {
    bool told = word.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    return std::pair{told, std::this_thread::get_id() != caller};
  });
  go.set_value();
  auto [told, elsewhere] = result.get();
  EXPECT_TRUE(told);
  EXPECT_TRUE(elsewhere);
}

} // namespace
} // namespace ad::runtime
