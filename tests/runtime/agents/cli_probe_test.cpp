#include "runtime/agents/cli_probe.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/agents/cli_doctor.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

// The public pi 0.73.1's --help lists neither --approve nor --session-id.
constexpr std::string_view public_pi_help = R"(Options:
  --provider <name>              Provider name (default: google)
  --session <path|id>            Use specific session file or partial UUID
  --session-dir <dir>            Directory for session storage and lookup
  --no-session                   Don't save session (ephemeral)
)";

TEST(cli_probe, public_pi_takes_neither_approve_nor_session_id) {
  auto caps = capabilities_from_output(adapter_kind::pi, "0.73.1\n", public_pi_help);
  EXPECT_TRUE(caps.detected);
  EXPECT_EQ(caps.version, "0.73.1");
  EXPECT_FALSE(caps.pi_approve);
  EXPECT_FALSE(caps.pi_session_id);
}

TEST(cli_probe, the_original_dispatchers_pi_takes_both) {
  std::string help = std::string(public_pi_help) +
                     "  --approve                      Approve tool calls\n"
                     "  --session-id <uuid>            Session id\n";
  auto caps = capabilities_from_output(adapter_kind::pi, "0.9.0\n", help);
  EXPECT_TRUE(caps.pi_approve);
  EXPECT_TRUE(caps.pi_session_id);
  // "--session" is not "--session-id", nor is "--approve-all" "--approve".
  auto other = capabilities_from_output(adapter_kind::pi, "1", "--approve-all --session-idx");
  EXPECT_FALSE(other.pi_approve);
  EXPECT_FALSE(other.pi_session_id);
}

TEST(cli_probe, version_is_the_first_line_printed) {
  EXPECT_EQ(capabilities_from_output(adapter_kind::codex, "codex-cli 0.171.0\n", "").version,
            "codex-cli 0.171.0");
  EXPECT_EQ(capabilities_from_output(adapter_kind::claude, "\n2.1.332 (Claude Code)\nmore", "")
              .version,
            "2.1.332 (Claude Code)");
}

TEST(cli_probe, executables_resolve_like_posix_spawn) {
  test::temp_dir tmp;
  fs::create_directories(tmp.path() / "a");
  fs::create_directories(tmp.path() / "b");
  auto tool = tmp.write("b/codex", "#!/bin/sh\necho codex-cli 9.9.9\n");
  ::chmod(tool.c_str(), 0755);
  tmp.write("a/codex", "not executable");
  std::string path = (tmp.path() / "a").string() + ":" + (tmp.path() / "b").string();
  EXPECT_EQ(resolve_executable("codex", path), tool);
  EXPECT_TRUE(resolve_executable("claude", path).empty());
  EXPECT_EQ(resolve_executable(tool.string(), ""), tool);

  probe_options options;
  options.env_additions = {{"PATH", path + ":/usr/bin:/bin"}};
  auto probe = probe_cli(adapter_kind::codex, "codex", options);
  EXPECT_TRUE(probe.found);
  EXPECT_EQ(probe.caps.version, "codex-cli 9.9.9");
  EXPECT_TRUE(probe.problems.empty());
  auto missing = probe_cli(adapter_kind::claude, "claude", options);
  EXPECT_FALSE(missing.found);
  ASSERT_EQ(missing.problems.size(), 1u);
}

TEST(cli_probe, each_executable_is_probed_once) {
  test::temp_dir tmp;
  auto counter = tmp.path() / "count";
  auto tool = tmp.write("bin/pi", "#!/bin/sh\necho x >> " + counter.string() + "\necho 0.73.1\n");
  ::chmod(tool.c_str(), 0755);
  auto probes = probe_clis({{adapter_kind::pi, tool.string()}, {adapter_kind::pi, tool.string()}});
  EXPECT_EQ(probes.size(), 1u);
  std::ifstream in(counter);
  int lines = 0;
  for (std::string l; std::getline(in, l);)
    ++lines;
  EXPECT_EQ(lines, 2); // --version and --help, once
}

// The CLIs are probed at the same time, and pi's --help beside its
// --version: each of these answers only once all four runs have started
// (or after 8 s), and the probes give up after 4: probed in turn, the first
// would wait for the others and fail.
TEST(cli_probe, clis_are_probed_at_the_same_time) {
  test::temp_dir tmp;
  auto started = tmp.path() / "started";
  fs::create_directories(started);
  auto script = [&](const std::string& name, const std::string& version) {
    auto tool = tmp.write("bin/" + name,
                          "#!/bin/sh\n"
                          "touch " + (started / name).string() + "$1\n"
                          "i=0\n"
                          "while [ $i -lt 80 ]; do\n"
                          "  [ $(ls " + started.string() + " | wc -l) -ge 4 ] && break\n"
                          "  sleep 0.1; i=$((i+1))\n"
                          "done\n"
                          "[ $i -lt 80 ] && echo " + version + "\n");
    ::chmod(tool.c_str(), 0755);
    return tool.string();
  };
  std::vector<std::pair<adapter_kind, std::string>> wanted = {
    {adapter_kind::codex, script("codex", "codex-cli 0.50.0")},
    {adapter_kind::claude, script("claude", "2.0.14")},
    {adapter_kind::pi, script("pi", "0.73.1")},
  };
  wanted.push_back(wanted.front());  // asked twice, probed once
  probe_options options;
  options.timeout = std::chrono::seconds(4);
  auto probes = probe_clis(wanted, options);
  ASSERT_EQ(probes.size(), 3u);
  EXPECT_EQ(probes.at(wanted[0]).caps.version, "codex-cli 0.50.0");
  EXPECT_EQ(probes.at(wanted[1]).caps.version, "2.0.14");
  EXPECT_EQ(probes.at(wanted[2]).caps.version, "0.73.1");
  for (const auto& [key, probe] : probes)
    EXPECT_TRUE(probe.problems.empty()) << key.second << ": " << probe.problems.front();
}

cli_probe_result found(adapter_kind kind, std::string version) {
  cli_probe_result p;
  p.kind = kind;
  p.found = true;
  p.resolved = "/usr/bin/" + std::string(to_string(kind));
  p.caps.detected = true;
  p.caps.version = std::move(version);
  return p;
}

TEST(cli_doctor, names_what_will_not_work_with_the_fix) {
  std::vector<doctor_target> targets = {
    {"codex-a", "codex", "gpt-5", "", {}},
    {"claude-a", "claude", "claude-opus-4-8", "", {}},
    {"claude-sandboxed", "claude", "claude-opus-4-8", "", {{"IS_SANDBOX", "1"}}},
    {"pi-a", "pi", "laguna-s", "", {}},
    {"pi-b", "pi", "nope", "", {}},
    {"agy-a", "agy", "gemini", "", {}},
  };
  std::map<std::string, cli_probe_result> probes{
    {"codex", found(adapter_kind::codex, "codex-cli 0.171.0")},
    {"claude", found(adapter_kind::claude, "2.1.332 (Claude Code)")},
    {"pi", found(adapter_kind::pi, "0.73.1")},
    {"agy", cli_probe_result{adapter_kind::agy, "agy", {}, false, {}, {"agy is not on PATH"}}},
  };
  doctor_facts facts;
  facts.root = true;
  facts.pi_models_table = "provider  model     context\niop       laguna-s  128K\n";
  auto findings = doctor_findings(targets, probes, facts);
  ASSERT_EQ(findings.size(), 6u);
  EXPECT_TRUE(findings[0].ok());
  ASSERT_FALSE(findings[1].ok());
  EXPECT_NE(findings[1].problems[0].find("root"), std::string::npos);
  EXPECT_NE(findings[1].problems[0].find("Fix:"), std::string::npos);
  EXPECT_TRUE(findings[2].ok()) << findings[2].problems[0];
  EXPECT_TRUE(findings[3].ok());
  ASSERT_FALSE(findings[4].ok());
  EXPECT_NE(findings[4].problems[0].find("\"nope\""), std::string::npos);
  ASSERT_FALSE(findings[5].ok());
  EXPECT_NE(findings[5].problems[0].find("not on PATH"), std::string::npos);
  // Not root: claude is fine.
  facts.root = false;
  EXPECT_TRUE(doctor_findings(targets, probes, facts)[1].ok());
}

TEST(cli_doctor, pi_model_table_skips_its_header_and_a_message) {
  auto rows = parse_pi_model_table("provider  model  context\niop laguna-m 128K\niop laguna-s 128K\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1], (std::pair<std::string, std::string>{"iop", "laguna-s"}));
  EXPECT_TRUE(parse_pi_model_table("No models available. Use /login ...\n").empty());
}

} // namespace
} // namespace ad::runtime
