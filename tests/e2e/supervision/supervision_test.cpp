// End-to-end supervision (SPEC section 7) with the agent simulator: failover
// with a logical context package, pi native resume, retries at the chain end
// until the budget blocks, tactical escalation across a restart, a retry
// handoff across crashes, and a quota-reset wait outside the budget. Each
// test asserts on the simulator registry (what ran, with which prompt), the
// durable state through `agent-dispatch status --json`, and locator files.
#include <algorithm>
#include <gtest/gtest.h>

#include "runtime/agents/adapter.hpp"
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "runtime/core/clock.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/policy/policy.hpp"
#include "tests/e2e/supervision/supervision_support.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;
using runtime::json;
using namespace std::chrono_literals;

const std::string task = "g/01_a";
const std::string work_unit = "g/01_a::plan-1::tag-initial";

json fail(const std::string& failure, json extra = json::object()) {
  json a = {{"kind", "fail"}, {"failure", failure}};
  for (auto it = extra.begin(); it != extra.end(); ++it)
    a[it.key()] = it.value();
  return a;
}

std::vector<std::string> clis(const std::vector<sim_run>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs)
    out.push_back(r.cli);
  return out;
}

std::string value_after(const std::vector<std::string>& argv, const std::string& flag) {
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == flag)
      return argv[i + 1];
  return {};
}

// The debug logs (logs/agent-dispatch.log*) under the run's state home, joined.
std::string debug_log(const supervision_ws& ws) {
  std::string out;
  for (const auto& e : fs::recursive_directory_iterator(ws.env().state_home))
    if (e.is_regular_file() && e.path().filename().string().rfind("agent-dispatch.log", 0) == 0)
      out += read_text(e.path());
  return out;
}

// Paths named in a prompt: absolute words, trailing punctuation dropped.
std::vector<std::string> absolute_words(const std::string& prompt) {
  static const std::regex word{R"((/[^\s,;]+))"};
  std::vector<std::string> out;
  for (std::sregex_iterator it(prompt.begin(), prompt.end(), word), end; it != end; ++it) {
    std::string w = (*it)[1].str();
    while (!w.empty() && (w.back() == '.' || w.back() == ')'))
      w.pop_back();
    out.push_back(w);
  }
  return out;
}

TEST(supervision, quota_on_the_first_candidate_fails_over_with_a_logical_context_package) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  // agy fails on quota; the failover target (claude) stays quiet long enough
  // for the test to look at its prompt and the package files.
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions", {{{"kind", "events"}, {"count", 1}}, fail("quota_exceeded")}}}},
     {"2", {{"actions", {{{"kind", "silence"}, {"seconds", 300}}, {{"kind", "work"}}}}}}}));
  auto child = ws.start();
  std::vector<std::string> argv;
  for (auto until = std::chrono::steady_clock::now() + 60s;
       argv.empty() && std::chrono::steady_clock::now() < until;) {
    reap_orphans();
    for (const auto& a : scan_live_agents(ws.env().registry))
      if (contains(a.marker, "__worker__a02"))
        argv = read_cmdline(a.pid);
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(argv.empty()) << "the failover attempt never ran\n" << child.tail();
  ASSERT_NE(std::find(argv.begin(), argv.end(), "--session-id"), argv.end());
  ASSERT_EQ(fs::path(argv[0]).filename(), "claude") << "failover goes to the second candidate";
  std::string prompt = argv.back();
  // A logical package: plan, locator, raw log, normalized output of the failed
  // attempt and the workspace, every one of them present while it runs.
  auto words = absolute_words(prompt);
  std::map<std::string, std::string> named;
  for (const auto& w : words)
    named[fs::path(w).filename().string()] = w;
  for (const char* file : {"locator.json", "stream.log", "normalized-output.log", "PLAN-cloud-G05.md"}) {
    ASSERT_TRUE(named.count(file)) << file << " missing from the prompt: " << prompt;
    EXPECT_TRUE(fs::is_regular_file(named[file])) << named[file];
  }
  EXPECT_TRUE(contains(named["locator.json"], "__worker__a01")) << prompt;
  EXPECT_TRUE(contains(prompt, ws.workspace().string())) << prompt;
  EXPECT_FALSE(contains(prompt, "--session")) << "no native session across adapters";
  auto locator = runtime::parse_json(read_text(named["locator.json"]), "locator");
  ASSERT_TRUE(locator.is_ok());
  EXPECT_EQ(locator->value("status", ""), "failed");
  EXPECT_EQ(locator->value("failure_class", ""), "provider-quota");

  auto row = ws.status_of(task);
  ASSERT_TRUE(row.is_object());
  ASSERT_EQ(row["route"].size(), 2u) << row.dump();
  EXPECT_EQ(row["route"][0]["target"], "agy-gemini");
  EXPECT_EQ(row["route"][1]["target"], "claude-opus");
  EXPECT_EQ(row["route"][1]["transition"], "failover");
  EXPECT_EQ(row["route"][1]["previous_target"], "agy-gemini");

  auto code = child.wait(60s);
  ASSERT_EQ(code, 0) << child.tail();
  auto workers = ws.runs_of("worker");
  EXPECT_EQ(clis(workers), (std::vector<std::string>{"agy", "claude"}));
  EXPECT_EQ(workers[0].exit_code, 1);
  EXPECT_EQ(workers[1].exit_code, 0);
  EXPECT_FALSE(ws.archived(task).empty());
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, a_program_that_cannot_start_fails_over_at_once_without_a_retry) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions",
             {fail("error", {{"message", "bash: line 1: agy: command not found"},
                             {"exit_code", 127}})}}}}}));
  auto r = ws.run();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // Before, agy was retried with backoff until the budget ran out.
  auto workers = ws.runs_of("worker");
  EXPECT_EQ(clis(workers), (std::vector<std::string>{"agy", "claude"}));
  ASSERT_FALSE(workers.empty());
  EXPECT_EQ(workers[0].exit_code, 127);
  EXPECT_FALSE(ws.archived(task).empty());
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, context_limit_on_a_native_resume_pi_model_resumes_the_same_session) {
  supervision_ws ws;
  ws.write_task(task, "local", {"src/a.cpp"});
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions", {{{"kind", "events"}, {"count", 2}}, fail("context_length")}}}}}));
  auto r = ws.run();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_EQ(clis(workers), (std::vector<std::string>{"pi", "pi"}));
  EXPECT_EQ(value_after(workers[0].argv, "--model"), "laguna-s");
  EXPECT_EQ(value_after(workers[1].argv, "--model"), "laguna-s");
  // The public pi names its session file in the folder it was given.
  EXPECT_TRUE(value_after(workers[0].argv, "--session-id").empty());
  std::string session_dir = value_after(workers[0].argv, "--session-dir");
  ASSERT_FALSE(session_dir.empty());
  std::string resumed = value_after(workers[1].argv, "--session");
  ASSERT_FALSE(resumed.empty()) << "the second run must resume a native session";
  EXPECT_TRUE(value_after(workers[1].argv, "--session-id").empty());
  EXPECT_EQ(fs::path(resumed).parent_path(), fs::path(session_dir));
  // <stamp>_<session id>.jsonl, as pi names it (the attempt logs are gone
  // once the task completes).
  std::string name = fs::path(resumed).filename().string();
  ASSERT_TRUE(name.ends_with(".jsonl")) << name;
  auto underscore = name.rfind('_');
  ASSERT_NE(underscore, std::string::npos) << name;
  EXPECT_TRUE(runtime::is_uuid(name.substr(underscore + 1, name.size() - underscore - 7))) << name;
  EXPECT_FALSE(contains(workers[1].prompt, "PLAN-local-G05.md"))
    << "a native resume continues the session, not the plan: " << workers[1].prompt;
  EXPECT_EQ(workers[1].exit_code, 0);
  EXPECT_FALSE(ws.archived(task).empty());
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, a_target_out_of_quota_cools_down_for_the_tasks_that_start_later) {
  supervision_ws ws;
  ws.write_task("g/01_a", "cloud", {"src/a.cpp"});
  ws.write_task("g/02+01_b", "cloud", {"src/b.cpp"});
  ws.write_policy({{"timeouts",
                    {{"heartbeat_s", 30},
                     {"silence_inspection_s", 180},
                     {"stall_limit_s", 0},
                     {"reset_wait_max_s", 5},
                     {"quota_cooldown_s", 600}}}});
  ws.write_scenario(worker_attempts(task, {{"1", {{"actions", {fail("quota_exceeded")}}}}}));
  auto r = ws.run();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  std::map<std::string, std::vector<std::string>> by_task;
  for (const auto& w : ws.runs_of("worker"))
    by_task[w.task].push_back(w.cli);
  EXPECT_EQ(by_task["g/01_a"], (std::vector<std::string>{"agy", "claude"}));
  // The dependent task starts after agy ran out of quota: it skips agy.
  EXPECT_EQ(by_task["g/02+01_b"], std::vector<std::string>{"claude"});
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, the_chain_end_retries_until_the_budget_blocks_the_task_with_evidence) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  // codex never gives up on a refused connection: the no-progress rule
  // stops each of its attempts after half a second of waiting for the network.
  ws.write_policy({{"no_progress", {{"network_wait_s", 0.5}}}});
  ws.write_scenario({{"version", 1}, {"defaults", {{"worker", {fail("connection_refused")}}}}});
  auto r = ws.run();
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  auto workers = ws.runs_of("worker");
  std::vector<std::string> want{"agy", "claude"};
  want.resize(10, "codex"); // promoted twice, then the chain end retries to the budget (10)
  EXPECT_EQ(clis(workers), want);
  for (const auto& w : workers)
    EXPECT_NE(w.exit_code, 0);
  EXPECT_TRUE(ws.runs_of("review").empty());
  EXPECT_TRUE(contains(debug_log(ws), "no tactical pattern matched"));

  auto row = ws.status_of(task);
  ASSERT_TRUE(row.is_object());
  EXPECT_EQ(row["status"], "blocked") << row.dump();
  EXPECT_EQ(row["budget_used"]["worker"], 10);
  const json& ev = row["blocked_evidence"];
  ASSERT_TRUE(ev.is_object()) << row.dump();
  EXPECT_EQ(ev["role"], "worker");
  EXPECT_EQ(ev["failure_class"], "provider-connection");
  EXPECT_EQ(ev["selected_target"], "codex-terra");
  EXPECT_EQ(ev["work_unit_id"], work_unit);
  EXPECT_EQ(ev["budget"], "10/10");
  EXPECT_TRUE(contains(ev.value("evidence", ""), "Reconnecting... waiting for network")) << ev.dump();
  std::string locator = ev.value("locator", "");
  ASSERT_TRUE(fs::is_regular_file(locator)) << locator;
  EXPECT_TRUE(contains(locator, "__worker__a10")) << locator;
  auto loc = runtime::parse_json(read_text(locator), "locator");
  ASSERT_TRUE(loc.is_ok());
  EXPECT_EQ(loc->value("failure_class", ""), "provider-connection");
  EXPECT_EQ(loc->value("cli", ""), "codex");
  EXPECT_TRUE(contains(row["reason"].get<std::string>(), "recovery failure limit")) << row.dump();
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, tactical_file_exists_lists_existing_files_and_survives_a_restart) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp", "src/later.cpp"});
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions", {{{"kind", "write"}, {"path", "src/a.cpp"}, {"content", "int a;\n"}},
                         fail("file_exists", {{"path", "src/a.cpp"}})}}}}}));
  // The dispatcher dies right after the supervisor's step is durable.
  auto first = ws.run({}, "after-decision");
  ASSERT_EQ(first.code, 86) << first.out << first.err;
  auto a_cpp = (ws.workspace() / "src/a.cpp").string();
  auto later_cpp = (ws.workspace() / "src/later.cpp").string();

  auto row = ws.status_of(task);
  ASSERT_TRUE(row.is_object());
  const json& iv = row["intervention"];
  ASSERT_TRUE(iv.is_object()) << row.dump();
  EXPECT_EQ(iv["pattern_ids"], json::array({"file-already-exists"}));
  EXPECT_EQ(iv["existing_files"], json::array({a_cpp}));
  EXPECT_TRUE(contains(iv.value("instruction", ""), "do not create them")) << iv.dump();
  std::string a01 = "g__01_a__p1__worker__a01";
  ASSERT_TRUE(row["write_set_changes"].contains(a01)) << row.dump();
  EXPECT_EQ(row["write_set_changes"][a01]["created"], json::array({a_cpp}));
  EXPECT_EQ(row["budget_used"]["worker"], 1) << "a tactical retry still counts";
  EXPECT_EQ(ws.runs_of("worker").size(), 1u);

  auto second = ws.run();
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(workers.size(), 2u);
  const std::string& prompt = workers[1].prompt;
  EXPECT_TRUE(contains(prompt, "PLAN-cloud-G05.md")) << prompt;
  EXPECT_TRUE(contains(prompt, "These files exist from earlier runs of this task")) << prompt;
  EXPECT_TRUE(contains(prompt, "- " + a_cpp + " (created by " + a01 + ")")) << prompt;
  EXPECT_FALSE(contains(prompt, later_cpp)) << "only existing files are listed: " << prompt;
  EXPECT_EQ(workers[1].exit_code, 0);
  EXPECT_FALSE(ws.archived(task).empty());
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, a_file_the_error_names_outside_the_write_set_is_in_the_next_prompt) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  // The agent creates a file the plan does not claim, then fails on it.
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions", {{{"kind", "write"}, {"path", "src/extra.cpp"}, {"content", "int x;\n"}},
                         fail("file_exists", {{"path", "src/extra.cpp"}})}}}}}));
  auto r = ws.run();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(workers.size(), 2u);
  auto extra = (fs::canonical(ws.workspace()) / "src/extra.cpp").string();
  const std::string& prompt = workers[1].prompt;
  EXPECT_TRUE(contains(prompt, "Files the error names:\n- " + extra +
                            " (exists now; not in this task's write set; last changed while "
                            "g__01_a__p1__worker__a01 ran)"))
    << prompt;
  EXPECT_FALSE(contains(prompt, "None of the task's files exist yet.")) << prompt;
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, a_tactical_match_is_shown_with_its_patterns_and_the_step_taken) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions", {fail("file_not_found", {{"path", "src/missing.hpp"}})}}}}}));
  auto r = ws.run();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
    r.out, std::regex("tactical_match g/01_a .*patterns=file-not-found .*action=retry_same on agy-gemini")))
    << r.out;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_TRUE(contains(workers[1].prompt, "A file the task expected was missing")) << workers[1].prompt;
  // The file the error named, though the plan does not claim it.
  auto missing = (fs::canonical(ws.workspace()) / "src/missing.hpp").string();
  EXPECT_TRUE(contains(workers[1].prompt, "Files the error names:\n- " + missing +
                                       " (does not exist now; not in this task's write set)"))
    << workers[1].prompt;
  EXPECT_TRUE(contains(workers[1].prompt, "None of the task's write-set files exist yet."))
    << workers[1].prompt;
  // The supervisor's structured diagnostics reach the debug log.
  auto log = debug_log(ws);
  EXPECT_TRUE(contains(log, "attempt failed, analysing")) << log;
  EXPECT_TRUE(contains(log, "\"file-not-found\"")) << log;
}

TEST(supervision, a_retry_handoff_survives_crashes_between_decision_and_launch_without_a_second_launch) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  ws.write_policy({{"budgets",
                    {{"recovery_failures", 1},
                     {"selfcheck_incomplete", 10},
                     {"review_no_progress", 10},
                     {"reset_waits", 10}}}});
  ws.write_scenario(worker_attempts(task, {{"1", {{"actions", {fail("quota_exceeded")}}}}}));
  auto blocked = ws.run();
  ASSERT_EQ(blocked.code, 2) << blocked.out << blocked.err;
  auto row = ws.status_of(task);
  ASSERT_EQ(row["status"], "blocked") << row.dump();
  EXPECT_EQ(row["blocked_evidence"]["failure_class"], "provider-quota");
  EXPECT_EQ(row["blocked_evidence"]["selected_target"], "agy-gemini");

  // --retry-blocked records the handoff, then the process dies.
  auto handoff = ws.run({"--retry-blocked"}, "after-handoff");
  ASSERT_EQ(handoff.code, 86) << handoff.out << handoff.err;
  row = ws.status_of(task);
  std::string id = row.value("handoff", "");
  EXPECT_FALSE(id.empty()) << row.dump();
  EXPECT_EQ(row["blocked_evidence"], nullptr);
  EXPECT_EQ(ws.runs_of("worker").size(), 1u);

  // The restart consumes it with the failover decision, then dies before
  // the agent starts.
  auto decided = ws.run({}, "before-launch");
  ASSERT_EQ(decided.code, 86) << decided.out << decided.err;
  row = ws.status_of(task);
  EXPECT_EQ(row.value("handoff", "x"), "") << "the handoff is consumed with the attempt start";
  ASSERT_EQ(row["route"].size(), 2u) << row.dump();
  EXPECT_EQ(row["route"][1]["target"], "claude-opus");
  EXPECT_EQ(row["route"][1]["transition"], "failover");
  EXPECT_EQ(ws.runs_of("worker").size(), 1u) << "nothing was launched before the crash";

  auto done = ws.run();
  ASSERT_EQ(done.code, 0) << done.out << done.err;
  auto workers = ws.runs_of("worker");
  EXPECT_EQ(clis(workers), (std::vector<std::string>{"agy", "claude"}))
    << "exactly one launch after the handoff";
  EXPECT_EQ(ws.runs_of("review").size(), 1u);
  EXPECT_FALSE(ws.archived(task).empty());
  EXPECT_EQ(ws.check_registry(), 0);
}

TEST(supervision, a_quota_reset_wait_does_not_consume_the_failure_budget) {
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  // One candidate: nothing to fail over to, so the supervisor waits for the
  // reset. A budget of 2 would block at the second failure if waits counted.
  ws.write_policy({{"rules",
                    {{{"id", "only-agy"},
                      {"stage", "worker"},
                      {"lanes", {"cloud"}},
                      {"grades", {1, 10}},
                      {"candidates", {"agy-gemini"}}}}},
                   {"budgets",
                    {{"recovery_failures", 2},
                     {"selfcheck_incomplete", 10},
                     {"review_no_progress", 10},
                     {"reset_waits", 10}}}});
  json limited = fail("rate_limit", {{"retry_after_seconds", 1}});
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions", {limited}}}}, {"2", {{"actions", {limited}}}}}));
  auto r = ws.run();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(clis(workers), (std::vector<std::string>{"agy", "agy", "agy"}));
  for (size_t i = 1; i < workers.size(); ++i)
    EXPECT_GE(workers[i].start_ms - workers[i - 1].end_ms, 900)
      << "run " << i + 1 << " started before the reset";
  EXPECT_EQ(workers[2].exit_code, 0);
  // The wait and its end time are the task's shown reason.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("waiting for the quota of agy-gemini to reset: "
                                                  "until 20[0-9-]+T[0-9:.]+Z")))
    << r.out;
  EXPECT_FALSE(ws.archived(task).empty());
  EXPECT_EQ(ws.check_registry(), 0);
}

} // namespace
} // namespace ad::test

namespace ad::test {
namespace {

// A quota probe that logs each call and reports agy exhausted.
fs::path write_probe(const supervision_ws& ws, const fs::path& log) {
  auto script = ws.workspace().parent_path() / "quota-probe.sh";
  std::string text = "#!/bin/sh\n"
                     "echo \"$1\" >> '" + log.string() + "'\n"
                     "if [ \"$1\" = agy-gemini ]; then\n"
                     "  echo '{\"status\": \"exhausted\", \"retry_after_s\": 600}'\n"
                     "else\n"
                     "  echo '{\"status\": \"available\"}'\n"
                     "fi\n";
  EXPECT_TRUE(runtime::write_file_atomic(script, text, runtime::durability::buffered).is_ok());
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

// The reset must still lie ahead when the restarted dispatcher reads it:
// between the two come the crash, `status` and the restart's start, which a
// sanitized build on a busy machine took more than the 2 s the reset used to
// be. It is 10 s now, with the policy's longest wait raised to allow it.
TEST(supervision, a_quota_reset_wait_survives_a_dispatcher_restart) {
  constexpr int reset_s = 10;
  supervision_ws ws;
  ws.write_task(task, "cloud", {"src/a.cpp"});
  ws.write_policy({{"rules",
                    {{{"id", "only-agy"},
                      {"stage", "worker"},
                      {"lanes", {"cloud"}},
                      {"grades", {1, 10}},
                      {"candidates", {"agy-gemini"}}}}},
                   {"timeouts",
                    {{"heartbeat_s", 30},
                     {"silence_inspection_s", 180},
                     {"stall_limit_s", 0},
                     {"reset_wait_max_s", 60},
                     {"quota_cooldown_s", 2}}}});
  ws.write_scenario(worker_attempts(task,
    {{"1", {{"actions", {fail("rate_limit", {{"retry_after_seconds", reset_s}})}}}}}));
  // The dispatcher dies right after the wait is decided and durable.
  auto first = ws.run({}, "after-decision");
  ASSERT_EQ(first.code, 86) << first.out << first.err;
  auto row = ws.status_of(task);
  ASSERT_TRUE(row["reset_wait_until"].is_string()) << row.dump();
  EXPECT_TRUE(contains(row.value("reason", ""), "waiting for a quota reset until")) << row.dump();
  EXPECT_EQ(row["budget_used"].value("worker", 0), 0) << row.dump();

  auto second = ws.run();
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(clis(workers), (std::vector<std::string>{"agy", "agy"}));
  EXPECT_GE(workers[1].start_ms - workers[0].end_ms, reset_s * 1000 - 200)
    << "the restarted dispatcher ran the target before its reset";
  EXPECT_TRUE(contains(second.out, "recorded before a restart")) << second.out;
  EXPECT_FALSE(ws.archived(task).empty());
}

// A stage that finds every candidate cooling down records its wait before
// it waits: `status` names the target and the end from the state, and a
// restarted dispatcher (whose cool-downs were only in the old one's
// memory) still waits until then instead of running a target out of quota.
TEST(supervision, a_wait_for_cooling_targets_is_in_the_state_and_survives_a_restart) {
  constexpr int cooldown_s = 8;
  supervision_ws ws;
  ws.write_task("g/01_a", "cloud", {"src/a.cpp"});
  ws.write_task("g/02_b", "cloud", {"src/b.cpp"});
  ws.write_policy({{"rules",
                    {{{"id", "agy-then-claude"},
                      {"stage", "worker"},
                      {"lanes", {"cloud"}},
                      {"grades", {1, 10}},
                      {"candidates", {"agy-gemini", "claude-opus"}}}}},
                   {"timeouts",
                    {{"heartbeat_s", 30},
                     {"silence_inspection_s", 180},
                     {"stall_limit_s", 0},
                     {"quota_cooldown_s", cooldown_s}}}});
  // g/01_a runs both targets out of quota and blocks; g/02_b, admitted
  // after it (one at a time), finds both cooling down.
  ws.write_scenario({{"version", 1},
                     {"tasks",
                      {{"g/01_a",
                        {{"worker",
                          {{"1", {{"actions", {fail("quota_exceeded")}}}},
                           {"2", {{"actions", {fail("quota_exceeded")}}}}}}}}}}});
  auto first = ws.run({"--max-parallel", "1"}, "cooldown-wait-durable");
  ASSERT_EQ(first.code, 86) << first.out << first.err;
  ASSERT_EQ(clis(ws.runs_of("worker")), (std::vector<std::string>{"agy", "claude"}));

  auto row = ws.status_of("g/02_b");
  ASSERT_TRUE(row.is_object());
  EXPECT_EQ(row["status"], "waiting") << row.dump();
  ASSERT_TRUE(row["wait"].is_object()) << row.dump();
  EXPECT_EQ(row["wait"]["kind"], "cool-down") << row.dump();
  EXPECT_EQ(row["wait"]["target"], "agy-gemini") << "the one free first: " << row.dump();
  ASSERT_TRUE(row["wait"]["until"].is_string()) << row.dump();
  auto until = runtime::parse_utc_iso(row["wait"]["until"].get<std::string>());
  ASSERT_TRUE(until) << row.dump();
  EXPECT_TRUE(contains(row.value("reason", ""), "to cool down until")) << row.dump();
  std::set<std::string> cooling;
  std::istringstream lines(ws.status_json());
  for (std::string l; std::getline(lines, l);)
    if (auto j = json::parse(l); j.value("event", "") == "cooldown")
      cooling.insert(j.value("target", "") + " " + j.value("task", ""));
  EXPECT_EQ(cooling, (std::set<std::string>{"agy-gemini g/01_a", "claude-opus g/01_a"}));

  auto second = ws.run({"--max-parallel", "1"});
  EXPECT_EQ(second.code, 2) << "g/01_a stays blocked\n" << second.out << second.err;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(workers.size(), 3u) << second.out;
  EXPECT_EQ(workers[2].task, "g/02_b");
  EXPECT_GE(workers[2].start_ms, *until - 200)
    << "the restarted dispatcher ran a cooling target before the recorded end";
  EXPECT_TRUE(contains(second.out, "recorded before a restart")) << second.out;
  EXPECT_FALSE(ws.archived("g/02_b").empty());
}

TEST(supervision, admission_runs_each_distinct_quota_probe_once_and_selection_skips_exhausted) {
  supervision_ws ws;
  ws.write_task("g/01_a", "cloud", {"src/a.cpp"});
  ws.write_task("g/02_b", "cloud", {"src/b.cpp"});
  auto log = ws.workspace().parent_path() / "probes.log";
  auto probe = write_probe(ws, log);
  json targets = runtime::default_policy_json().at("targets");
  for (auto& t : targets)
    if (t.contains("quota_probe"))
      t["quota_probe"] = {probe.string(), "{target}"};
  ws.write_policy({{"targets", targets}});
  auto r = ws.run();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // One admission batch for both workers: each distinct probe ran once.
  std::vector<std::string> calls;
  std::istringstream in(read_text(log));
  for (std::string l; std::getline(in, l);)
    calls.push_back(l);
  std::sort(calls.begin(), calls.end());
  EXPECT_EQ(calls, (std::vector<std::string>{"agy-gemini", "claude-opus", "codex-terra"}));
  // Both workers went to the first candidate the snapshot left available.
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_EQ(clis(workers), (std::vector<std::string>{"claude", "claude"}));
  EXPECT_FALSE(ws.archived("g/01_a").empty());
  EXPECT_FALSE(ws.archived("g/02_b").empty());
}

} // namespace
} // namespace ad::test
