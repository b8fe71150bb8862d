#include "runtime/state/lock.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <unistd.h>

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

} // namespace
} // namespace ad::runtime
