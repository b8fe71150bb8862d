// The agent adapters (runtime/agents) against the agent simulator
// (tools/agent-sim), both written from SPEC sections 5 and 6: the argv
// goldens; each adapter's real argv run as is by the simulator, which does
// the task's work; success classified with the session id discovered (codex
// thread id, claude and pi session ids) and the native session files where
// the adapters look for them; the pi session phase (finishing, resumed,
// tool-running); a codex review stopped for a collaboration tool; a missing
// executable. The failure kinds are in agents_sim_failures_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>

#include "runtime/agents/native_sessions.hpp"
#include "runtime/agents/pi_session.hpp"
#include "tests/e2e/agents_sim/agents_sim_fixture.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using namespace ad::runtime::testing;

// ---- argv goldens -----------------------------------------------------------

TEST_F(agents_sim, argv_goldens_follow_spec_section_5) {
  auto codex = build_argv(spec_for(adapter_kind::codex));
  ASSERT_TRUE(codex);
  std::string prompt = "Read " + plan_.string() + " and complete the task.";
  EXPECT_THAT(*codex, ElementsAre(sim_executable(adapter_kind::codex), "exec", "--json", "-C",
                                  ws_.string(), "-m", "gpt-5-codex", "-c",
                                  "model_reasoning_effort=\"xhigh\"",
                                  "--dangerously-bypass-approvals-and-sandbox", prompt));
  auto claude = build_argv(spec_for(adapter_kind::claude));
  ASSERT_TRUE(claude);
  EXPECT_THAT(*claude, ElementsAre(sim_executable(adapter_kind::claude), "-p", "--output-format",
                                   "stream-json", "--verbose", "--session-id", session_uuid,
                                   "--model", "claude-opus-4", "--effort", "xhigh",
                                   "--dangerously-skip-permissions", prompt));
  auto agy = build_argv(spec_for(adapter_kind::agy));
  ASSERT_TRUE(agy);
  EXPECT_THAT(*agy, ElementsAre(sim_executable(adapter_kind::agy), "--print", prompt,
                                "--print-timeout", "8h", "--model", "gemini-2.5-pro",
                                "--dangerously-skip-permissions", "--log-file",
                                (attempt_dir_ / "agy-cli.log").string()));
  // The public pi: no --approve, no --session-id (docs/agents.md).
  auto pi = build_argv(spec_for(adapter_kind::pi));
  ASSERT_TRUE(pi);
  EXPECT_THAT(*pi, ElementsAre(sim_executable(adapter_kind::pi), "-p", "--mode", "json",
                               "--provider", "iop", "--model", "qwen3-coder", "--thinking",
                               "high", "--session-dir", (attempt_dir_ / "pi-sessions").string(),
                               prompt));
  auto resumed_spec = spec_for(adapter_kind::pi);
  resumed_spec.native_session_file = tmp_.path() / "old/pi-sessions/s.jsonl";
  auto resumed = build_argv(resumed_spec);
  ASSERT_TRUE(resumed);
  EXPECT_THAT(*resumed,
              ElementsAre(sim_executable(adapter_kind::pi), "-p", "--mode", "json", "--provider",
                          "iop", "--model", "qwen3-coder", "--thinking", "high", "--session",
                          (tmp_.path() / "old/pi-sessions/s.jsonl").string(), "--session-dir",
                          (tmp_.path() / "old/pi-sessions").string(), prompt));
  // A pi whose --help lists them (the original dispatcher's build).
  auto original_spec = spec_for(adapter_kind::pi);
  original_spec.caps = {true, "0.9.0", true, true};
  auto original = build_argv(original_spec);
  ASSERT_TRUE(original);
  EXPECT_THAT(*original, ElementsAre(sim_executable(adapter_kind::pi), "-p", "--mode", "json",
                                     "--approve", "--provider", "iop", "--model", "qwen3-coder",
                                     "--thinking", "high", "--session-id", session_uuid,
                                     "--session-dir", (attempt_dir_ / "pi-sessions").string(),
                                     prompt));
  auto command = build_argv(spec_for(adapter_kind::command));
  ASSERT_TRUE(command);
  EXPECT_THAT(*command, ElementsAre(sim_executable(adapter_kind::command), "--as", "command",
                                    "--task", task_name, "--role", "worker", "--workspace",
                                    ws_.string(), "--model", "sim-model", prompt));
}

// ---- success: the simulator takes each argv unchanged and does the work ----

class agents_sim_success : public agents_sim,
                           public ::testing::WithParamInterface<adapter_kind> {};

TEST_P(agents_sim_success, simulator_accepts_argv_does_the_work_and_classifies_success) {
  adapter_kind kind = GetParam();
  auto seen = attempt(spec_for(kind), scenario("worker", R"([{"kind": "events", "count": 2},
                                                             {"kind": "work"}])"));
  ASSERT_TRUE(seen->run.launched) << seen->run.launch_error;
  EXPECT_FALSE(seen->run.signaled);
  EXPECT_EQ(seen->run.exit_code, 0);
  EXPECT_FALSE(seen->verdict.failed()) << seen->verdict.failure_class << ": "
                                       << seen->verdict.evidence;
  EXPECT_TRUE(seen->verdict.evidence.empty());
  // codex says on stderr that it reads stdin (the real one does too); the
  // others print nothing there.
  auto diagnostics = seen->output.diagnostics().newest_first();
  if (kind == adapter_kind::codex) {
    ASSERT_EQ(diagnostics.size(), 1u);
    EXPECT_EQ(diagnostics[0].origin, "stderr");
    EXPECT_EQ(diagnostics[0].text, "Reading additional input from stdin...");
  } else {
    EXPECT_TRUE(diagnostics.empty()) << diagnostics.front().origin << ": " << diagnostics.front().text;
  }
  // The renderer understands the simulator's events: the final message is
  // in normalized-output.log exactly once, and no raw JSON leaks through.
  int finished = 0;
  for (const auto& line : seen->rendered) {
    if (line.find("Finished worker of auth/02+01_api") != std::string::npos)
      ++finished;
    EXPECT_FALSE(line.starts_with("{\"")) << line;
  }
  EXPECT_EQ(finished, 1) << ::testing::PrintToString(seen->rendered);

  // The simulator understood the argv: it found the task, the role and did
  // the work on every Modified Files Summary path and the checklist.
  auto api = read_file(ws_ / "src/api.cpp");
  ASSERT_TRUE(api);
  EXPECT_THAT(*api, ::testing::StartsWith("// api\nagent-sim worker edit: task=auth/02+01_api"));
  EXPECT_TRUE(fs::exists(ws_ / "include/api.hpp"));
  EXPECT_EQ(*read_file(review_),
            "# Review\n## Implementation Checklist\n- [x] api\n- [x] header\n");
  auto records = registry_records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["argv"].get<std::vector<std::string>>(), seen->argv);
  EXPECT_EQ(records[0]["cli"], to_string(kind));
  EXPECT_EQ(records[0]["task"], task_name);
  EXPECT_EQ(records[0]["role"], "worker");
  EXPECT_EQ(records[0]["marker"], marker);
  EXPECT_EQ(records[0]["cwd"], ws_.string());
}

INSTANTIATE_TEST_SUITE_P(every_adapter, agents_sim_success,
                         ::testing::Values(adapter_kind::codex, adapter_kind::claude,
                                           adapter_kind::agy, adapter_kind::pi,
                                           adapter_kind::command),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_F(agents_sim, codex_thread_id_is_discovered_and_names_its_rollout) {
  auto seen = attempt(spec_for(adapter_kind::codex), scenario("worker", R"([{"kind": "work"}])"));
  ASSERT_EQ(seen->discovered_ids.size(), 1u);
  std::string thread = seen->discovered_ids.front();
  EXPECT_TRUE(is_uuid(thread)) << thread;
  EXPECT_EQ(seen->output.session_id(), thread);
  std::optional<fs::path> rollout;
  for (const auto& day : codex_day_dirs(home_ / ".codex", observed_at(), observed_at()))
    if (!rollout)
      rollout = find_codex_rollout(list_files(day, ".jsonl"), thread);
  ASSERT_TRUE(rollout.has_value()) << "no rollout for " << thread;
  EXPECT_TRUE(fs::is_regular_file(*rollout));
}

TEST_F(agents_sim, claude_session_id_is_the_one_given_and_names_its_project_file) {
  auto seen = attempt(spec_for(adapter_kind::claude), scenario("worker", R"([{"kind": "work"}])"));
  EXPECT_THAT(seen->discovered_ids, ElementsAre(session_uuid));
  EXPECT_EQ(seen->output.session_id(), session_uuid);
  fs::path native = claude_session_path(claude_projects_root(home_, ""), ws_, session_uuid);
  EXPECT_TRUE(fs::is_regular_file(native)) << native;
}

TEST_F(agents_sim, pi_session_is_discovered_and_its_file_reads_finishing_then_resumes) {
  auto seen = attempt(spec_for(adapter_kind::pi), scenario("worker", R"([{"kind": "work"}])"));
  // pi names its session: the id of its `session` event names the file.
  ASSERT_EQ(seen->discovered_ids.size(), 1u);
  std::string id = seen->discovered_ids.front();
  EXPECT_TRUE(is_uuid(id)) << id;
  auto file = find_pi_session(list_files(pi_session_dir(attempt_dir_), ".jsonl"), id);
  ASSERT_TRUE(file.has_value());
  auto state = read_pi_session_state(*file);
  EXPECT_EQ(to_string(state.phase), "finishing") << state.reason;

  // The next attempt resumes that file: `--session <file> --session-dir <dir>`.
  auto resumed_spec = spec_for(adapter_kind::pi);
  resumed_spec.native_session_file = *file;
  resumed_spec.attempt_dir = tmp_.path() / "state/runs/second";
  auto resumed = attempt(resumed_spec, scenario("worker", R"([{"kind": "events", "count": 1}])"));
  EXPECT_EQ(resumed->run.exit_code, 0);
  EXPECT_FALSE(resumed->verdict.failed());
  EXPECT_THAT(resumed->discovered_ids, ElementsAre(id));
  EXPECT_EQ(list_files(pi_session_dir(attempt_dir_), ".jsonl").size(), 1u);
  pi_read_stats stats;
  state = read_pi_session_state(*file, &stats);
  EXPECT_EQ(to_string(state.phase), "finishing") << state.reason;
}

TEST_F(agents_sim, pi_native_resume_prompt_names_no_task_and_continues_the_session) {
  auto first = attempt(spec_for(adapter_kind::pi),
                       scenario("worker", R"([{"kind": "events", "count": 1}])"));
  ASSERT_EQ(first->run.exit_code, 0);
  ASSERT_EQ(first->discovered_ids.size(), 1u);
  std::string id = first->discovered_ids.front();
  auto file = find_pi_session(list_files(pi_session_dir(attempt_dir_), ".jsonl"), id);
  ASSERT_TRUE(file.has_value());

  // The policy's native_resume prompt: the task is only in the session.
  auto resumed_spec = spec_for(adapter_kind::pi);
  resumed_spec.native_session_file = *file;
  resumed_spec.attempt_dir = tmp_.path() / "state/runs/second";
  resumed_spec.prompt = "Continue this session and complete the current task.";
  auto resumed = attempt(resumed_spec, scenario("worker", R"([{"kind": "work"}])"));
  EXPECT_EQ(resumed->run.exit_code, 0);
  EXPECT_FALSE(resumed->verdict.failed())
    << resumed->verdict.failure_class << ": " << resumed->verdict.evidence;
  EXPECT_THAT(resumed->discovered_ids, ElementsAre(id));
  auto records = registry_records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1]["task"], task_name);
  EXPECT_EQ(records[1]["role"], "worker");
  EXPECT_EQ(records[1]["argv"].get<std::vector<std::string>>(), resumed->argv);
  EXPECT_THAT(*read_file(ws_ / "src/api.cpp"), ::testing::HasSubstr("task=auth/02+01_api"));
  EXPECT_EQ(to_string(read_pi_session_state(*file).phase), "finishing");
}

TEST_F(agents_sim, pi_hang_in_tool_call_reads_tool_running_with_the_pending_call) {
  auto spec = spec_for(adapter_kind::pi);
  test::sim_request request;
  request.argv = *build_argv(spec);
  request.cwd = ws_;
  request.env = environment(scenario("worker", R"([{"kind": "events", "count": 1},
                                                   {"kind": "hang", "in": "tool_call"}])"));
  request.marker = marker;
  std::string pending_call;
  int started = 0;
  request.stop_when = [&](const test::sim_line& line) {
    auto event = parse_json(line.text, "pi event");
    if (!event || !event->is_object() || event->value("type", "") != "tool_execution_start")
      return false;
    pending_call = event->value("toolCallId", "");
    return ++started == 2; // the first tool call completes, the second hangs
  };
  auto run = test::run_to_exit(request);
  ASSERT_TRUE(run.terminated_by_test);
  EXPECT_TRUE(run.signaled);
  EXPECT_EQ(run.signal, SIGTERM);
  auto file = newest_jsonl(list_files(pi_session_dir(attempt_dir_), ".jsonl"));
  ASSERT_TRUE(file.has_value());
  auto state = read_pi_session_state(*file);
  EXPECT_EQ(to_string(state.phase), "tool-running") << state.reason;
  EXPECT_THAT(state.pending_tool_call_ids, ElementsAre(pending_call));
  EXPECT_THAT(state.expected_tool_call_ids, ElementsAre(pending_call));
}

TEST_F(agents_sim, codex_review_starting_a_collaboration_tool_is_stopped_and_classified) {
  auto seen = attempt(spec_for(adapter_kind::codex, "review"),
                      scenario("review", R"([{"kind": "events", "count": 1},
                                              {"kind": "collab_tool", "tool": "spawn_agent"},
                                              {"kind": "silence", "seconds": 3000}])"),
                      review_guard::codex_review);
  EXPECT_TRUE(seen->run.terminated_by_test);
  EXPECT_TRUE(seen->run.signaled);
  EXPECT_EQ(seen->verdict.failure_class, "review-control-violation");
  EXPECT_EQ(seen->verdict.failure_source, "dispatcher-control");
  EXPECT_EQ(seen->verdict.evidence_origin, "dispatcher:review-control");
  EXPECT_EQ(seen->verdict.evidence,
            "official review invoked forbidden collaboration tool: spawn_agent");
  auto records = registry_records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["role"], "review");
  EXPECT_EQ(records[0]["exit"]["signal"], "SIGTERM");
}

TEST_F(agents_sim, a_missing_executable_is_a_launch_failure) {
  for (adapter_kind kind : {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy,
                            adapter_kind::pi, adapter_kind::command}) {
    SCOPED_TRACE(std::string(to_string(kind)));
    auto spec = spec_for(kind);
    spec.executable = (tmp_.path() / "no-such-dir" / std::string(to_string(kind))).string();
    auto seen = attempt(spec, scenario("worker", R"([{"kind": "work"}])"));
    EXPECT_FALSE(seen->run.launched);
    EXPECT_EQ(seen->verdict.failure_class, "launch-failure");
    EXPECT_EQ(seen->verdict.failure_source, "cli-launch");
    EXPECT_EQ(seen->verdict.evidence_origin, "dispatcher:launch");
    EXPECT_EQ(seen->verdict.evidence, "command not found: " + spec.executable);
  }
}

} // namespace
} // namespace ad::runtime
