// End-to-end: every whole-number option of every sub-command answers a bad
// value with one plain sentence on stderr (the option, what it must be,
// what was given) and exit code 2, before anything runs; read in full.
#include <gtest/gtest.h>

#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test {
namespace {

const std::string hint = "Run with --help for more information.\n";

struct bad_value {
  std::vector<std::string> args;
  std::string sentence;
};

TEST(number_options, a_bad_value_is_named_in_plain_words) {
  temp_dir ws;  // never read: the parse stops first
  const std::vector<bad_value> cases = {
    {{"run", "--max-parallel", "-1"}, "--max-parallel must be 0 or more, got -1"},
    {{"run", "--max-parallel", "four"}, "--max-parallel must be a whole number, got \"four\""},
    {{"run", "--max-parallel", "1.5"}, "--max-parallel must be a whole number, got \"1.5\""},
    {{"run", "--max-parallel", "3x"}, "--max-parallel must be a whole number, got \"3x\""},
    {{"run", "--max-parallel", ""}, "--max-parallel must be a whole number, got \"\""},
    {{"run", "--max-parallel", "99999999999"},
     "--max-parallel must be at most 2147483647, got 99999999999"},
    {{"run", "--dry-run", "--max-parallel", "-2"}, "--max-parallel must be 0 or more, got -2"},
    {{"run", "--local-slots", "-1"}, "--local-slots must be 0 or more, got -1"},
    {{"run", "--lease-ms", "-5"}, "--lease-ms must be 0 or more, got -5"},
    {{"run", "--lease-ms", "99999999999999999999"},
     "--lease-ms must be at most 9223372036854775807, got 99999999999999999999"},
    {{"run", "--lease-margin-ms", "10s"}, "--lease-margin-ms must be a whole number, got \"10s\""},
    {{"node", "--listen", "127.0.0.1:0", "--slots", "0"}, "--slots must be 1 or more, got 0"},
    {{"node", "--listen", "127.0.0.1:0", "--slots", "many"},
     "--slots must be a whole number, got \"many\""},
    {{"node", "--listen", "127.0.0.1:0", "--lease-ms", "-1"}, "--lease-ms must be 0 or more, got -1"},
    {{"run", "--max-parallel"}, "--max-parallel needs a value"},
    {{"node", "--listen", "127.0.0.1:0", "--slots"}, "--slots needs a value"},
  };
  for (const auto& c : cases) {
    auto args = c.args;
    args.insert(args.begin() + 1, {"--workspace", ws.path().string()});
    if (args[0] == "node")
      args.erase(args.begin() + 1, args.begin() + 3);  // node has no --workspace
    auto r = run_binary(agent_dispatch(), args);
    EXPECT_EQ(r.exit_code, 2) << c.sentence;
    EXPECT_EQ(r.err, c.sentence + "\n" + hint);
    EXPECT_EQ(r.out, "");
  }
}

TEST(number_options, good_values_still_parse) {
  temp_dir ws;
  ws.write("agent-task/.keep", "");
  for (const std::string value : {"0", "+3", "007"}) {
    auto r = run_binary(agent_dispatch(), {"run", "--dry-run", "--workspace", ws.path().string(),
                                           "--max-parallel", value, "--json"});
    EXPECT_EQ(r.err, "") << value;
    EXPECT_NE(r.out.find("\"event\":\"summary\""), std::string::npos) << value << r.out;
  }
}

} // namespace
} // namespace ad::test
