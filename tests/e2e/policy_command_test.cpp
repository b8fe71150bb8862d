// End-to-end: `agent-dispatch policy check` and `policy show` on the claims,
// prices, limits and notify sections (docs/policy.md): defaults are shown, a file's
// choice is shown and summed up, and a wrong value names the file and the
// JSON pointer.
#include <gtest/gtest.h>

#include "runtime/core/json.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test {
namespace {

TEST(policy_command, show_prints_the_claims_defaults) {
  temp_dir ws;
  auto r = run_binary(agent_dispatch(), {"policy", "show", "--workspace", ws.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = runtime::json::parse(r.out);
  EXPECT_EQ(doc.at("claims"), runtime::json::parse(R"({"on_violation": "warn", "watch": "auto"})"));
}

TEST(policy_command, a_file_choosing_block_and_snapshots_checks_and_shows) {
  temp_dir ws;
  auto file = ws.write("p.json", R"({"claims": {"on_violation": "block", "watch": "snapshots"}})");
  auto check = run_binary(agent_dispatch(), {"policy", "check", file.string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  auto show = run_binary(agent_dispatch(), {"policy", "show", "--policy", file.string()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  auto doc = runtime::json::parse(show.out);
  EXPECT_EQ(doc.at("claims").at("on_violation"), "block");
  EXPECT_EQ(doc.at("claims").at("watch"), "snapshots");
}

TEST(policy_command, check_refuses_an_unknown_claims_value_naming_the_pointer) {
  temp_dir ws;
  auto file = ws.write("p.json", R"({"claims": {"on_violation": "kill"}})");
  auto r = run_binary(agent_dispatch(), {"policy", "check", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(file.string() + ": /claims/on_violation: expected warn or block, found "
                                        "string \"kill\""),
            std::string::npos)
    << r.err;
}

TEST(policy_command, prices_and_ceilings_are_summed_up_by_check_and_shown) {
  temp_dir ws;
  auto file = ws.write("p.json", R"({
    "prices": {"codex-terra": {"input": 1.25, "output": 10, "cache_read": 0.125}},
    "limits": {"task": {"tokens": 2000000, "cost_usd": 5}, "run": {"cost_usd": 100}}})");
  auto check = run_binary(agent_dispatch(), {"policy", "check", file.string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("; prices for codex-terra; ceilings: task 2,000,000 tokens or $5.00, run $100.00)"),
            std::string::npos)
    << check.out;
  auto show = run_binary(agent_dispatch(), {"policy", "show", "--policy", file.string()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  auto doc = runtime::json::parse(show.out);
  EXPECT_EQ(doc.at("prices"), runtime::json::parse(R"({"codex-terra": {"input": 1.25, "output": 10.0,
      "cache_read": 0.125}})"));
  EXPECT_EQ(doc.at("limits"), runtime::json::parse(R"({"task": {"tokens": 2000000, "cost_usd": 5.0},
      "run": {"cost_usd": 100.0}})"));
  // Without them nothing is shown, and check says nothing of them.
  auto plain = run_binary(agent_dispatch(), {"policy", "show", "--workspace", ws.path().string()});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(runtime::json::parse(plain.out).contains("limits"));
}

TEST(policy_command, check_refuses_a_bad_ceiling_and_prices_of_an_unknown_target) {
  temp_dir ws;
  auto file = ws.write("p.json", R"({"limits": {"task": {"tokens": 0.5}}})");
  auto r = run_binary(agent_dispatch(), {"policy", "check", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(file.string() + ": /limits/task/tokens: expected a whole number of tokens, "
                                        "1..1,000,000,000,000,000 (input + output + cache reads + cache "
                                        "writes), found number 0.5"),
            std::string::npos)
    << r.err;
  auto prices = ws.write("q.json", R"({"prices": {"gpt-9": {"input": 1, "output": 2}}})");
  auto unknown = run_binary(agent_dispatch(), {"policy", "check", prices.string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find(prices.string() + ": /prices/gpt-9: expected a key naming a target in /targets, "
                                               "found key \"gpt-9\""),
            std::string::npos)
    << unknown.err;
}

TEST(policy_command, check_lists_the_notify_rules_and_refuses_a_bad_one_by_its_pointer) {
  temp_dir ws;
  auto file = ws.write("p.json", R"({"notify": {"rules": [
    {"id": "ops", "events": ["task_blocked", "run_finished"], "command": ["page-me", "--now"]},
    {"id": "waits", "events": ["quota_wait"], "quota_wait_minutes": 45, "url": "http://127.0.0.1:9000/q"}]}})");
  auto check = run_binary(agent_dispatch(), {"policy", "check", file.string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("\nnotify ops: task_blocked, run_finished -> run [\"page-me\",\"--now\"]\n"
                           "notify waits: quota_wait over 45 min -> POST to http://127.0.0.1:9000/q\n"),
            std::string::npos)
    << check.out;
  auto bad = ws.write("bad.json", R"({"notify": {"rules": [
    {"id": "ops", "events": ["task_blocked"], "url": "ftp://example.com/x"}]}})");
  auto r = run_binary(agent_dispatch(), {"policy", "check", bad.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad.string() + ": /notify/rules/0/url: expected an http:// or https:// URL"),
            std::string::npos)
    << r.err;
}

} // namespace
} // namespace ad::test
