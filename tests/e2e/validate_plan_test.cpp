// End-to-end: `agent-dispatch validate-plan` and the global options.
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_lines.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;

fs::path plan_basic_fixture() { return source_dir() / "tests/fixtures/workspace/basic"; }

TEST(cli, help_and_version_everywhere) {
  auto help = run_binary(agent_dispatch(), {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "validate-plan"));
  EXPECT_TRUE(contains(help.out, "run"));
  for (const auto& cmd : {"validate-plan", "run"}) {
    auto sub_help = run_binary(agent_dispatch(), {cmd, "--help"});
    EXPECT_EQ(sub_help.exit_code, 0) << cmd;
    EXPECT_TRUE(contains(sub_help.out, "--workspace")) << cmd;
    auto version = run_binary(agent_dispatch(), {cmd, "--version"});
    EXPECT_EQ(version.exit_code, 0) << cmd;
    EXPECT_TRUE(contains(version.out, AD_VERSION)) << cmd << ": " << version.out;
  }
  auto version = run_binary(agent_dispatch(), {"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(contains(version.out, AD_VERSION));
}

TEST(cli, bad_usage_exits_2_with_a_message) {
  auto none = run_binary(agent_dispatch(), {});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_FALSE(none.err.empty());
  auto unknown = run_binary(agent_dispatch(), {"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  auto bad_option = run_binary(agent_dispatch(), {"run", "--dry-run", "--bogus"});
  EXPECT_EQ(bad_option.exit_code, 2);
  EXPECT_TRUE(contains(bad_option.err, "--bogus"));
  auto no_path = run_binary(agent_dispatch(), {"validate-plan"});
  EXPECT_EQ(no_path.exit_code, 2);
  EXPECT_TRUE(contains(no_path.err, "PATH"));
}

TEST(validate_plan, prints_each_canonical_path) {
  auto plan = plan_basic_fixture() / "agent-task/alpha/02+01_ready/PLAN-local-G05.md";
  auto r = run_binary(agent_dispatch(), {"validate-plan", plan.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto root = fs::canonical(plan_basic_fixture());
  EXPECT_EQ(r.out, (root / "src/app/main.cpp").string() + "\n" +
                       (root / "src/app/new_file.cpp").string() + "\n");
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(validate_plan, prints_each_diagnostic_naming_the_row_and_exits_2) {
  temp_dir ws;
  ws.write("agent-task/g/01_x/PLAN-local-G01.md",
           "<!-- task=g/01_x plan=1 tag=t -->\n"
           "## Modified Files Summary\n"
           "| File | Change |\n"
           "|---|---|\n"
           "| `src/ok.cpp` | fine |\n"
           "| `src/<name>.cpp` | placeholder |\n"
           "| `../escape.cpp` | outside |\n"
           "| `src/*.cpp` | glob |\n"
           "| nothing quoted | no path |\n");
  auto plan = ws.path() / "agent-task/g/01_x/PLAN-local-G01.md";
  auto r = run_binary(agent_dispatch(), {"validate-plan", plan.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  for (const char* part : {":6: placeholder path: 'src/<name>.cpp'", ":7: path outside the workspace",
                           ":8: glob pattern", ":9: row has no backticked path"})
    EXPECT_TRUE(contains(r.err, part)) << part << "\n" << r.err;

  // An explicit --workspace wins over the nearest agent-task/ ancestor.
  auto inner = run_binary(agent_dispatch(),
                          {"validate-plan", plan.string(), "--workspace",
                           (ws.path() / "agent-task/g").string()});
  EXPECT_EQ(inner.exit_code, 2);
  EXPECT_TRUE(contains(inner.err, "resolves to " + (ws.path() / "agent-task/escape.cpp").string()))
      << inner.err;
}

TEST(validate_plan, bad_input_is_a_clear_error) {
  temp_dir dir;
  auto missing = run_binary(agent_dispatch(), {"validate-plan", (dir.path() / "nope.md").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "no such file"));

  auto folder = run_binary(agent_dispatch(), {"validate-plan", dir.path().string()});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_TRUE(contains(folder.err, "is a folder"));

  auto lonely = dir.write("lonely/PLAN.md", "## Modified Files Summary\n| `a.cpp` | x |\n");
  auto no_ws = run_binary(agent_dispatch(), {"validate-plan", lonely.string()});
  EXPECT_EQ(no_ws.exit_code, 2);
  EXPECT_TRUE(contains(no_ws.err, "--workspace")) << no_ws.err;
  auto with_ws = run_binary(agent_dispatch(),
                            {"validate-plan", lonely.string(), "--workspace", dir.path().string()});
  EXPECT_EQ(with_ws.exit_code, 0) << with_ws.err;
  EXPECT_EQ(with_ws.out, (dir.path() / "a.cpp").string() + "\n");

  auto huge = dir.write("ws/agent-task/g/01_x/PLAN-local-G01.md", "<!-- task=g/01_x plan=1 tag=t -->\n");
  fs::resize_file(huge, 50u << 20);
  auto big = run_binary(agent_dispatch(), {"validate-plan", huge.string()});
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_TRUE(contains(big.err, "more than the limit")) << big.err;

  auto binary = dir.write("ws/agent-task/g/02_y/PLAN-local-G01.md",
                          std::string("\xff\xfe\0\x80", 4) + "\n## Modified Files Summary\n| `b\xff.cpp` |\n");
  auto bin = run_binary(agent_dispatch(), {"validate-plan", binary.string()});
  EXPECT_EQ(bin.exit_code, 0) << bin.err;

  // /proc/self/mem is a regular file whose read() fails, even for root; the
  // symlink sits inside the workspace, so the workspace is found from it.
  fs::create_symlink("/proc/self/mem", dir.path() / "ws/unreadable.md");
  auto unreadable =
      run_binary(agent_dispatch(), {"validate-plan", (dir.path() / "ws/unreadable.md").string()});
  EXPECT_EQ(unreadable.exit_code, 2);
  EXPECT_TRUE(contains(unreadable.err, "cannot read the PLAN")) << unreadable.err;

  // A FIFO would block a plain open for ever; it is refused at once.
  auto fifo = dir.path() / "ws/agent-task/g/03_z/PLAN-local-G01.md";
  fs::create_directories(fifo.parent_path());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto blocked = run_binary(agent_dispatch(), {"validate-plan", fifo.string()});
  EXPECT_EQ(blocked.exit_code, 2);
  EXPECT_TRUE(contains(blocked.err, "is a FIFO, expected a regular file")) << blocked.err;
}

} // namespace
} // namespace ad::test
