// End-to-end: `agent-dispatch policy check` and `policy show` on the claims
// section (docs/policy.md): its defaults are shown, a file's choice is
// shown, and a wrong value names the file and the JSON pointer.
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

} // namespace
} // namespace ad::test
