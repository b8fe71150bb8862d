#include "runtime/report/logging.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(logging, console_level_follows_verbosity) {
  EXPECT_EQ(console_level(0), spdlog::level::warn);
  EXPECT_EQ(console_level(1), spdlog::level::info);
  EXPECT_EQ(console_level(2), spdlog::level::debug);
  EXPECT_EQ(console_level(5), spdlog::level::debug);
}

TEST(logging, debug_lines_reach_the_file_in_the_state_root) {
  test::temp_dir dir;
  ASSERT_TRUE(setup_logging(dir.path(), logging_options{}));
  spdlog::debug("debug line {}", 42);
  spdlog::default_logger()->flush();
  auto text = read_file(log_file_path(dir.path()), 1 << 20);
  ASSERT_TRUE(text) << text.error().to_string();
  EXPECT_NE(text->find("debug line 42"), std::string::npos);
  EXPECT_EQ(log_file_path(dir.path()), dir.path() / "logs" / "agent-dispatch.log");
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
}

TEST(logging, rotates_at_the_size_limit) {
  test::temp_dir dir;
  logging_options opts;
  opts.max_file_bytes = 2000;
  opts.max_files = 2;
  ASSERT_TRUE(setup_logging(dir.path(), opts));
  for (int i = 0; i < 100; ++i)
    spdlog::debug("line {} {}", i, std::string(50, 'x'));
  spdlog::default_logger()->flush();
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "logs" / "agent-dispatch.1.log"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "logs" / "agent-dispatch.3.log"));
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
}

TEST(logging, unusable_root_is_reported_and_console_still_works) {
  test::temp_dir dir;
  dir.write("file", "x");
  auto st = setup_logging(dir.path() / "file", logging_options{});
  EXPECT_TRUE(st.is_io_error());
  EXPECT_NE(spdlog::default_logger(), nullptr);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
}

TEST(logging, a_held_console_keeps_its_messages_for_the_board_and_the_file_gets_them) {
  test::temp_dir dir;
  ASSERT_TRUE(setup_logging(dir.path(), logging_options{}));
  hold_console(true);
  testing::internal::CaptureStderr();
  spdlog::warn("node {}: not reachable", "n1");
  spdlog::info("below the console level");
  for (std::size_t i = 0; i < max_held_console_lines + 5; ++i)
    spdlog::error("line {}", i);
  auto held = take_held_console_lines();
  spdlog::warn("after the last frame");
  hold_console(false);
  spdlog::warn("let through");
  auto written = testing::internal::GetCapturedStderr();
  ASSERT_EQ(held.size(), max_held_console_lines) << "the oldest are dropped";
  EXPECT_EQ(held.front(), "error: line 5");
  EXPECT_EQ(held.back(), "error: line " + std::to_string(max_held_console_lines + 4));
  EXPECT_TRUE(take_held_console_lines().empty());
  EXPECT_EQ(written, "agent-dispatch: warning: after the last frame\n"
                     "agent-dispatch: warning: let through\n")
    << "nothing held reached stderr; what was left when the hold ended did";
  spdlog::default_logger()->flush();
  auto text = read_file(log_file_path(dir.path()), 1 << 20);
  ASSERT_TRUE(text) << text.error().to_string();
  EXPECT_NE(text->find("node n1: not reachable"), std::string::npos);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
}

} // namespace
} // namespace ad::runtime
