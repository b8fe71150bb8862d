// `agent-dispatch doctor` on the real codex, claude and pi: with the pinned
// CLIs on PATH it reports each with its real version and no problem; as root
// the claude target needs "env": {"IS_SANDBOX": "1"}, and without it the
// root problem is reported with its fix; with an empty PATH every CLI is
// reported missing and doctor exits 2.
#include <unistd.h>

#include <filesystem>

#include "tests/contract/run/run_checks.hpp"

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct doctor_result {
  std::string failure;
  run_outcome outcome;
  json report; // the --json document
  std::string out, err;
};

// Runs doctor --json on a policy naming the three real CLIs. pi's HOME is
// prepared by cli-env.sh, so `pi --list-models` lists laguna-s.
doctor_result doctor(const std::string& path, bool claude_sandbox) {
  doctor_result d;
  test::temp_dir dir;
  auto home = dir.path() / "home";
  auto env = run_cli_env(cli::pi, closed_port(), home, {}, dir.path());
  if (!env.failure.empty()) {
    d.failure = env.failure;
    return d;
  }
  json claude = {{"id", "claude-real"}, {"adapter", "claude"}, {"model", "claude-opus-4-8"},
                 {"execution_class", "cloud_model"}};
  if (claude_sandbox) claude["env"] = {{"IS_SANDBOX", "1"}};
  json policy = {
      {"version", 1},
      {"targets",
       {{{"id", "codex-real"}, {"adapter", "codex"}, {"model", "mock-model"},
         {"execution_class", "cloud_model"}},
        claude,
        {{"id", "pi-real"}, {"adapter", "pi"}, {"model", "laguna-s"}, {"provider", "iop"},
         {"execution_class", "local_model"}}}},
      {"rules",
       {{{"id", "workers"}, {"stage", "worker"}, {"lanes", {"local", "cloud"}}, {"grades", {1, 10}},
         {"candidates", {"codex-real", "claude-real", "pi-real"}}}}},
      {"promotion", json::object()},
      {"review_target", "codex-real"}};
  auto file = dir.write("policy.json", policy.dump(2));
  spawn_spec s;
  s.argv = {(test::binary_dir() / "agent-dispatch").string(), "doctor", "--policy", file.string(),
            "--json"};
  s.env = {"PATH=" + path, "HOME=" + home.string()};
  s.cwd = dir.path();
  s.stdout_file = dir.path() / "doctor.out";
  s.stderr_file = dir.path() / "doctor.err";
  d.outcome = run_to_end(s, std::chrono::seconds(90));
  d.out = read_all(s.stdout_file);
  d.err = read_all(s.stderr_file);
  if (!d.outcome.started) d.failure = "cannot start agent-dispatch: " + d.outcome.start_error;
  else if (d.outcome.timed_out) d.failure = "doctor was killed at the timeout\n" + d.out + d.err;
  d.report = json::parse(d.out, nullptr, false);
  if (d.failure.empty() && !d.report.is_object())
    d.failure = "doctor --json printed no JSON object:\n" + d.out + d.err;
  return d;
}

json entry(const json& list, const char* key, const std::string& value) {
  if (list.is_array())
    for (const auto& e : list)
      if (e.value(key, "") == value) return e;
  return json();
}

std::string with_clis() { return cli_bin_dir().string() + ":" + getenv_or_empty("PATH"); }

TEST(doctor_run, reports_every_real_cli_with_its_version_and_no_problem) {
  AD_REQUIRE_CLIS();
  auto d = doctor(with_clis(), true);
  ASSERT_TRUE(d.failure.empty()) << d.failure;
  EXPECT_EQ(d.outcome.exit_code, 0) << d.out << d.err;
  for (cli c : {cli::codex, cli::claude, cli::pi}) {
    auto probe = entry(d.report["clis"], "adapter", name_of(c));
    ASSERT_TRUE(probe.is_object()) << d.out;
    EXPECT_TRUE(probe.value("found", false)) << probe.dump();
    EXPECT_EQ(text_of(probe, "version"), pinned_version(c)) << probe.dump();
    EXPECT_EQ(fs::path(text_of(probe, "path")).filename(), name_of(c)) << probe.dump();
    EXPECT_TRUE(probe["problems"].empty()) << probe.dump();
    auto target = entry(d.report["targets"], "adapter", name_of(c));
    ASSERT_TRUE(target.is_object()) << d.out;
    EXPECT_TRUE(target.value("ok", false)) << target.dump();
    EXPECT_TRUE(target["problems"].empty()) << target.dump();
  }
  // The public pi takes neither --approve nor --session-id.
  auto pi = entry(d.report["clis"], "adapter", "pi");
  EXPECT_FALSE(pi.value("pi_approve", true)) << pi.dump();
  EXPECT_FALSE(pi.value("pi_session_id", true)) << pi.dump();
  EXPECT_EQ(d.report.value("broken", -1), 0) << d.out;
}

TEST(doctor_run, claude_as_root_without_is_sandbox_is_reported_with_the_fix) {
  AD_REQUIRE_CLIS();
  auto d = doctor(with_clis(), false);
  ASSERT_TRUE(d.failure.empty()) << d.failure;
  auto claude = entry(d.report["targets"], "adapter", "claude");
  ASSERT_TRUE(claude.is_object()) << d.out;
  if (::geteuid() != 0) {
    // Not root: claude takes --dangerously-skip-permissions as it is.
    EXPECT_TRUE(claude.value("ok", false)) << claude.dump();
    EXPECT_EQ(d.outcome.exit_code, 0) << d.out << d.err;
    return;
  }
  EXPECT_FALSE(claude.value("ok", true)) << claude.dump();
  std::string problems = claude["problems"].dump();
  EXPECT_TRUE(contains(problems, "root")) << problems;
  EXPECT_TRUE(contains(problems, "IS_SANDBOX")) << problems;
  EXPECT_EQ(d.outcome.exit_code, 2) << d.out << d.err;
  // The other two are fine.
  for (const char* other : {"codex", "pi"}) {
    EXPECT_TRUE(entry(d.report["targets"], "adapter", other).value("ok", false)) << d.out;
  }
  EXPECT_EQ(d.report.value("broken", -1), 1) << d.out;
}

TEST(doctor_run, an_empty_path_reports_every_cli_not_found) {
  AD_REQUIRE_CLIS();
  auto d = doctor("", true);
  ASSERT_TRUE(d.failure.empty()) << d.failure;
  EXPECT_EQ(d.outcome.exit_code, 2) << d.out << d.err;
  for (cli c : {cli::codex, cli::claude, cli::pi}) {
    auto probe = entry(d.report["clis"], "adapter", name_of(c));
    ASSERT_TRUE(probe.is_object()) << d.out;
    EXPECT_FALSE(probe.value("found", true)) << probe.dump();
    auto target = entry(d.report["targets"], "adapter", name_of(c));
    ASSERT_TRUE(target.is_object()) << d.out;
    EXPECT_FALSE(target.value("ok", true)) << target.dump();
    EXPECT_TRUE(contains(target["problems"].dump(), "not on PATH")) << target.dump();
  }
  EXPECT_EQ(d.report.value("broken", -1), 3) << d.out;
}

} // namespace
} // namespace ad::contract
