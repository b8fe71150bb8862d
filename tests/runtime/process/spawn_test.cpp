#include "runtime/process/spawn.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

std::size_t count_prefix(const std::vector<std::string>& env, const std::string& prefix) {
  return static_cast<std::size_t>(std::count_if(env.begin(), env.end(), [&](const std::string& e) {
    return e.rfind(prefix, 0) == 0;
  }));
}

TEST(child_environment, adds_the_marker_and_overrides_inherited_values) {
  ::setenv("AGENT_DISPATCH_EXECUTION_ID", "inherited-marker", 1);
  ::setenv("AD_SPAWN_TEST_VAR", "old", 1);
  spawn_request req;
  req.marker = "fresh";
  req.env_additions = {{"AD_SPAWN_TEST_VAR", "new"}, {"AD_SPAWN_TEST_OTHER", "x"}};
  auto env = child_environment(req);
  ::unsetenv("AGENT_DISPATCH_EXECUTION_ID");
  ::unsetenv("AD_SPAWN_TEST_VAR");
  EXPECT_EQ(count_prefix(env, "AGENT_DISPATCH_EXECUTION_ID="), 1u);
  EXPECT_NE(std::find(env.begin(), env.end(), "AGENT_DISPATCH_EXECUTION_ID=fresh"), env.end());
  EXPECT_EQ(count_prefix(env, "AD_SPAWN_TEST_VAR="), 1u);
  EXPECT_NE(std::find(env.begin(), env.end(), "AD_SPAWN_TEST_VAR=new"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "AD_SPAWN_TEST_OTHER=x"), env.end());
  EXPECT_GT(count_prefix(env, "PATH="), 0u); // the parent's environment is kept
}

TEST(child_environment, without_a_marker_nothing_is_added) {
  spawn_request req;
  auto env = child_environment(req);
  EXPECT_EQ(count_prefix(env, "AGENT_DISPATCH_EXECUTION_ID="), 0u);
}

TEST(spawn_child, an_empty_argv_or_a_non_executable_file_is_a_launch_failure) {
  spawn_request req;
  req.cwd = "/";
  auto r = spawn_child(req);
  ASSERT_TRUE(std::holds_alternative<launch_failure>(r));
  test::temp_dir dir;
  auto plain = dir.write("plain.txt", "not a program\n"); // mode 0644: nobody may run it
  req.argv = {plain.string()};
  r = spawn_child(req);
  ASSERT_TRUE(std::holds_alternative<launch_failure>(r));
  EXPECT_NE(std::get<launch_failure>(r).reason.find("permission denied"), std::string::npos)
    << std::get<launch_failure>(r).reason;
}

} // namespace
} // namespace ad::runtime
