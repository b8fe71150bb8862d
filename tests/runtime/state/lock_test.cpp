#include "runtime/state/lock.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

#include "runtime/core/files.hpp"
#include "runtime/core/proc_stat.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(state_lock, start_token_is_field_22) {
  auto token = process_start_token(::getpid());
  ASSERT_TRUE(token);
  EXPECT_FALSE(token->empty());
  EXPECT_TRUE(std::all_of(token->begin(), token->end(), ::isdigit)) << *token;
  EXPECT_EQ(*process_start_token(::getpid()), *token);
  EXPECT_TRUE(process_start_token(999999999).error().is_not_found());
}

TEST(state_lock, second_holder_gets_a_conflict_naming_the_owner) {
  ad::test::temp_dir dir;
  manual_clock clk(1764421656000);
  auto me = current_lock_owner(clk);
  auto first = state_lock::acquire(dir.path(), me);
  ASSERT_TRUE(first) << first.error().to_string();
  auto second = state_lock::acquire(dir.path(), me);
  ASSERT_FALSE(second);
  EXPECT_TRUE(second.error().is_conflict());
  const auto& msg = second.error().message();
  EXPECT_NE(msg.find("pid " + std::to_string(::getpid())), std::string::npos) << msg;
  EXPECT_NE(msg.find(me.start_token), std::string::npos);
  EXPECT_NE(msg.find(format_utc_iso(me.started_at)), std::string::npos) << msg;
  EXPECT_NE(msg.find(AD_VERSION), std::string::npos);
}

TEST(state_lock, released_lock_can_be_taken_again) {
  ad::test::temp_dir dir;
  manual_clock clk;
  {
    auto first = state_lock::acquire(dir.path(), current_lock_owner(clk));
    ASSERT_TRUE(first);
  }
  EXPECT_TRUE(state_lock::acquire(dir.path(), current_lock_owner(clk)));
}

TEST(state_lock, stale_file_of_a_dead_owner_is_no_obstacle) {
  ad::test::temp_dir dir;
  dir.write("lock", R"({"pid":999999999,"start_token":"1","started_at":0,"version":"0.0.1"})");
  manual_clock clk(5);
  auto lock = state_lock::acquire(dir.path(), current_lock_owner(clk));
  ASSERT_TRUE(lock) << lock.error().to_string();
  auto text = read_file(dir.path() / "lock");
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("\"pid\":" + std::to_string(::getpid())), std::string::npos) << *text;
}

// A lock owner whose process has exited: a forked child, reaped.
lock_owner exited_owner() {
  pid_t pid = ::fork();
  if (pid == 0)
    ::_exit(0);
  lock_owner owner;
  owner.pid = pid;
  auto token = process_start_token(pid);
  owner.start_token = token ? *token : "1";
  owner.version = "0.0.1";
  int st = 0;
  ::waitpid(pid, &st, 0);
  return owner;
}

TEST(state_lock, a_lock_held_a_moment_after_its_owner_died_is_taken_once_released) {
  ad::test::temp_dir dir;
  manual_clock clk(5);
  auto dead = exited_owner();
  std::optional<state_lock> held;
  {
    auto first = state_lock::acquire(dir.path(), dead);
    ASSERT_TRUE(first) << first.error().to_string();
    held.emplace(std::move(*first));
  }
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    held.reset();
  });
  auto lock = state_lock::acquire(dir.path(), current_lock_owner(clk), std::chrono::seconds(30));
  release.join();
  ASSERT_TRUE(lock) << lock.error().to_string();
}

TEST(state_lock, a_dead_owner_whose_lock_stays_held_is_reported_after_the_settle_time) {
  ad::test::temp_dir dir;
  manual_clock clk(5);
  auto dead = exited_owner();
  auto first = state_lock::acquire(dir.path(), dead);
  ASSERT_TRUE(first);
  auto second = state_lock::acquire(dir.path(), current_lock_owner(clk),
                                    std::chrono::milliseconds(50));
  ASSERT_FALSE(second);
  EXPECT_TRUE(second.error().is_conflict());
  const auto& msg = second.error().message();
  EXPECT_NE(msg.find("pid " + std::to_string(dead.pid)), std::string::npos) << msg;
  EXPECT_NE(msg.find("no longer running, yet the lock stayed held for 50 ms"), std::string::npos)
    << msg;
}

TEST(state_lock, an_owner_recorded_without_a_start_token_is_judged_by_its_pid) {
  ad::test::temp_dir dir;
  manual_clock clk(5);
  auto me = current_lock_owner(clk);
  me.start_token.clear();
  auto first = state_lock::acquire(dir.path(), me);
  ASSERT_TRUE(first);
  auto second = state_lock::acquire(dir.path(), me, std::chrono::hours(1));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message().find("no longer running"), std::string::npos)
    << second.error().message();
}

TEST(state_lock, a_running_owner_is_reported_without_waiting_for_the_settle_time) {
  ad::test::temp_dir dir;
  manual_clock clk(5);
  auto me = current_lock_owner(clk);
  auto first = state_lock::acquire(dir.path(), me);
  ASSERT_TRUE(first);
  auto begun = std::chrono::steady_clock::now();
  auto second = state_lock::acquire(dir.path(), me, std::chrono::hours(1));
  ASSERT_FALSE(second);
  EXPECT_TRUE(second.error().is_conflict());
  EXPECT_EQ(second.error().message().find("no longer running"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - begun, std::chrono::minutes(1));
}

} // namespace
} // namespace ad::runtime
