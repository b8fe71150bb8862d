// ad-keeper's command line: what the dispatcher builds parses back to the
// same invocation, and bad usage is an error naming the option.

#include "runtime/keeper/keeper_args.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

result<parsed_keeper_args> parse(std::vector<std::string> args) {
  std::vector<std::string_view> views(args.begin(), args.end());
  return parse_keeper_args(views);
}

std::string error_of(std::vector<std::string> args) {
  auto r = parse(std::move(args));
  EXPECT_FALSE(r.is_ok());
  return r.is_ok() ? std::string() : r.error().message();
}

TEST(keeper_args, what_the_dispatcher_builds_parses_back) {
  keeper_invocation inv;
  inv.attempt_dir = "/state/runs/a1";
  inv.marker = "w1__t__p1__worker__a01__x";
  inv.cwd = "/ws";
  inv.env = {{"HOME", "/h"}, {"EMPTY", ""}, {"EQ", "a=b"}};
  inv.grace_ms = 250;
  inv.line_cap = 4096;
  inv.retention = {1000, 2000};
  inv.lease_file = "/run/lease";
  inv.lease_ms = 3000;
  inv.containment = containment_request::subreaper;
  inv.keep_alive = {"sccache", "gradle-daemon"};
  inv.agent_argv = {"codex", "exec", "--", "-x"};
  auto parsed = parse(keeper_arguments(inv));
  ASSERT_TRUE(parsed.is_ok()) << parsed.error().to_string();
  EXPECT_EQ(parsed->command, keeper_command::run);
  EXPECT_EQ(parsed->invocation, inv);

  keeper_invocation plain;
  plain.attempt_dir = "/a";
  plain.marker = "m";
  plain.agent_argv = {"agent"};
  EXPECT_EQ(keeper_arguments(plain),
            (std::vector<std::string>{"--attempt-dir", "/a", "--marker", "m", "--", "agent"}));
  parsed = parse(keeper_arguments(plain));
  ASSERT_TRUE(parsed.is_ok());
  EXPECT_EQ(parsed->invocation, plain);
  EXPECT_EQ(parsed->invocation.grace_ms, 5000);
  EXPECT_EQ(parsed->invocation.retention.head_bytes, uint64_t{8} << 20);
}

TEST(keeper_args, containment_and_keep_alive_are_checked) {
  EXPECT_NE(error_of({"--attempt-dir", "/a", "--marker", "m", "--containment", "jail", "--", "x"})
              .find("--containment: expected auto or subreaper, got 'jail'"),
            std::string::npos);
  EXPECT_NE(error_of({"--attempt-dir", "/a", "--marker", "m", "--keep-alive", "/usr/bin/x", "--", "x"})
              .find("--keep-alive: expected a process name"),
            std::string::npos);
  auto parsed = parse({"--attempt-dir", "/a", "--marker", "m", "--containment", "auto", "--", "x"});
  ASSERT_TRUE(parsed.is_ok());
  EXPECT_EQ(parsed->invocation.containment, containment_request::automatic);
}

TEST(keeper_args, the_equals_form_and_help) {
  auto parsed = parse({"--attempt-dir=/a", "--marker=m", "--grace-ms=0", "--", "x"});
  ASSERT_TRUE(parsed.is_ok()) << parsed.error().to_string();
  EXPECT_EQ(parsed->invocation.grace_ms, 0);
  parsed = parse({"--help"});
  ASSERT_TRUE(parsed.is_ok());
  EXPECT_EQ(parsed->command, keeper_command::help);
}

TEST(keeper_args, bad_usage_names_the_option) {
  const std::vector<std::string> ok = {"--attempt-dir", "/a", "--marker", "m"};
  auto with = [&](std::vector<std::string> extra, std::vector<std::string> agent = {"--", "x"}) {
    std::vector<std::string> all = ok;
    all.insert(all.end(), extra.begin(), extra.end());
    all.insert(all.end(), agent.begin(), agent.end());
    return all;
  };
  EXPECT_EQ(error_of(with({"--colour", "red"})), "unknown option --colour");
  EXPECT_EQ(error_of(with({"--grace-ms"})), "--grace-ms: needs a value");
  EXPECT_EQ(error_of(with({"--grace-ms", "soon"})),
            "--grace-ms: expected a number of milliseconds, got 'soon'");
  EXPECT_EQ(error_of(with({"--grace-ms", "-5"})), "--grace-ms: expected a number of milliseconds, got '-5'");
  EXPECT_EQ(error_of(with({"--line-cap", "0"})), "--line-cap: 0 is out of range (1 to 1125899906842624)");
  EXPECT_EQ(error_of(with({"--marker", "again"})), "--marker: given more than once");
  EXPECT_EQ(error_of(with({"--env", "NOVALUE"})), "--env: expected NAME=VALUE, got 'NOVALUE'");
  EXPECT_EQ(error_of(with({"--env", "=x"})), "--env: expected NAME=VALUE, got '=x'");
  EXPECT_EQ(error_of(with({"--lease-file", "/l"})), "--lease-file needs --lease-ms");
  EXPECT_EQ(error_of(with({"--lease-ms", "100"})), "--lease-ms needs --lease-file");
  EXPECT_EQ(error_of(with({"--lease-file", "/l", "--lease-ms", "0"})), "--lease-ms: 0 is out of range (1 to 1099511627776)");
  EXPECT_EQ(error_of(with({"stray"})), "unexpected argument 'stray' (the agent's command goes after --)");
  EXPECT_EQ(error_of(with({}, {})), "no agent command: give it after --");
  EXPECT_EQ(error_of(with({}, {"--"})), "no agent command: give it after --");
  EXPECT_EQ(error_of({"--marker", "m", "--", "x"}), "--attempt-dir is required");
  EXPECT_EQ(error_of({"--attempt-dir", "/a", "--", "x"}), "--marker is required");
  EXPECT_EQ(error_of({"--attempt-dir", "/a", "--marker", "", "--", "x"}), "--marker: must not be empty");
}

} // namespace
} // namespace ad::runtime
