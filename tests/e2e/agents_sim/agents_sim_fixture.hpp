#pragma once
// The fixture shared by the adapter-versus-simulator tests: a temporary
// workspace with one task (PLAN with a Modified Files Summary, CODE_REVIEW
// with a checklist), an attempt folder and a HOME for native sessions; a
// launch_spec per adapter pointing at the built simulator; and attempt(),
// which builds the real argv, runs it to its end, feeds every line through
// attempt_output as an attempt does (terminating the group on a
// review-control violation, or when codex only waits for the network for a
// second), adds agy's CLI log and codex's rollout error and classifies the
// end as the attempt does (the CLI's typed end first).
// Test-only; runs child processes synchronously on the test thread.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/failure_classifier.hpp"
#include "runtime/agents/native_sessions.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/e2e/agents_sim/sim_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime::testing {

namespace fs = std::filesystem;

inline constexpr const char* fixed_time = "2026-11-29T13:00:00.000Z";
inline constexpr const char* session_uuid = "3f2b8c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b";
inline constexpr const char* task_name = "auth/02+01_api";
inline constexpr const char* marker = "wabc__auth__02__01_api__p1__worker__a01__n1";

inline constexpr std::string_view plan_text = R"(<!-- task=auth/02+01_api plan=1 tag=t1 -->
# Plan
## Modified Files Summary
| File | Change |
|---|---|
| `src/api.cpp` | add |
| `include/api.hpp:12` | add |
)";
inline constexpr std::string_view review_text =
  "# Review\n## Implementation Checklist\n- [ ] api\n- [ ] header\n";

inline millis observed_at() { return *parse_utc_iso(fixed_time); }

inline std::string model_of(adapter_kind kind) {
  switch (kind) {
    case adapter_kind::codex: return "gpt-5-codex";
    case adapter_kind::claude: return "claude-opus-4";
    case adapter_kind::agy: return "gemini-2.5-pro";
    case adapter_kind::pi: return "qwen3-coder";
    case adapter_kind::command: return "sim-model";
  }
  return "";
}

inline std::string sim_executable(adapter_kind kind) {
  if (kind == adapter_kind::command)
    return (test::binary_dir() / "agent-sim").string();
  return (test::binary_dir() / "sim-bin" / std::string(to_string(kind))).string();
}

// What one attempt saw: argv, raw run, the attempt's view and the verdict.
struct observed_attempt {
  observed_attempt(adapter_kind kind, review_guard guard, no_progress_settings progress = {})
      : output(kind, guard, progress) {}
  std::vector<std::string> argv;
  test::sim_run run;
  attempt_output output;
  std::vector<std::string> rendered;
  std::vector<std::string> discovered_ids;
  failure_verdict verdict;
};

class agents_sim : public ::testing::Test {
protected:
  void SetUp() override {
    // An underscore and a dot in the workspace name, as real checkouts have.
    ws_ = tmp_.path() / "my_repo.v2";
    plan_ = tmp_.write("my_repo.v2/agent-task/auth/02+01_api/PLAN-cloud-G05.md", plan_text);
    review_ = tmp_.write("my_repo.v2/agent-task/auth/02+01_api/CODE_REVIEW-cloud-G05.md",
                         review_text);
    tmp_.write("my_repo.v2/src/api.cpp", "// api\n");
    attempt_dir_ = tmp_.path() / "state/runs/20261129T130000Z__auth__02__01_api__p1__worker__a01";
    fs::create_directories(attempt_dir_);
    home_ = tmp_.path() / "home";
    fs::create_directories(home_);
  }

  launch_spec spec_for(adapter_kind kind, std::string_view role = "worker") const {
    launch_spec s;
    s.kind = kind;
    s.executable = sim_executable(kind);
    s.model = model_of(kind);
    s.workspace = ws_;
    s.attempt_dir = attempt_dir_;
    s.prompt = role == "review" ? "Read " + review_.string() + " and start the review."
                                : "Read " + plan_.string() + " and complete the task.";
    s.session_id = session_uuid;
    s.role = std::string(role);
    s.task = task_name;
    s.plan_path = plan_;
    s.review_path = review_;
    s.command_template = {"agent-sim", "--as",     "command", "--task",  "{task}",
                          "--role",    "{role}",   "--workspace", "{workspace}",
                          "--model",   "{model}",  "{prompt}"};
    return s;
  }

  // Writes a one-role scenario whose actions apply to every attempt.
  fs::path scenario(std::string_view role, std::string_view actions_json) {
    static int n = 0;
    std::string text = R"({"version": 1, "defaults": {")" + std::string(role)
                       + R"(": )" + std::string(actions_json) + "}}";
    return tmp_.write("scenario" + std::to_string(++n) + ".json", text);
  }

  std::vector<std::pair<std::string, std::string>> environment(const fs::path& scenario_file) const {
    return {{"AGENT_SIM_SCENARIO", scenario_file.string()},
            {"AGENT_SIM_REGISTRY", registry().string()},
            {"AGENT_SIM_COUNTER", (tmp_.path() / "counter.json").string()},
            {"AGENT_SIM_FIXED_TIME", fixed_time},
            {"AGENT_SIM_SEED", "11"},
            {"AGENT_SIM_TIME_SCALE", "0.01"},
            {"AGENT_SIM_NATIVE_SESSIONS", "1"},
            {"HOME", home_.string()},
            // What the CLIs would read from the dispatcher's environment.
            {"TZ", "UTC"},
            {"CODEX_HOME", ""},
            {"CLAUDE_CONFIG_DIR", ""},
            {"CLAUDE_CODE_MAX_RETRIES", ""},
            {"ANTHROPIC_BASE_URL", ""}};
  }

  fs::path registry() const { return tmp_.path() / "registry.jsonl"; }

  // Builds the argv, runs it, feeds every line to attempt_output (stopping the
  // group on a review-control violation, as the attempt does) and classifies.
  // codex waiting for the network (about 1.5 s of lines at the time scale)
  // is stopped after a second of it, as the attempt's no-progress rule would.
  static constexpr no_progress_settings progress{1000, 0, false};

  std::unique_ptr<observed_attempt> attempt(const launch_spec& spec, const fs::path& scenario_file,
                                            review_guard guard = review_guard::off) {
    auto seen = std::make_unique<observed_attempt>(spec.kind, guard, progress);
    auto argv = build_argv(spec);
    EXPECT_TRUE(argv) << argv.error().to_string();
    if (!argv)
      return seen;
    seen->argv = *argv;
    test::sim_request request;
    request.argv = *argv;
    request.cwd = ws_;
    request.env = environment(scenario_file);
    request.marker = marker;
    auto started = std::chrono::steady_clock::now();
    request.stop_when = [&](const test::sim_line& line) {
      auto at = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      auto step = seen->output.feed(line.channel == test::sim_channel::out ? output_channel::out
                                                                          : output_channel::err,
                                    line.text, at.count());
      seen->rendered.insert(seen->rendered.end(), step.rendered.begin(), step.rendered.end());
      if (step.discovered_session_id)
        seen->discovered_ids.push_back(*step.discovered_session_id);
      return step.collaboration_tool.has_value() || step.no_progress.has_value();
    };
    seen->run = test::run_to_exit(request);
    EXPECT_FALSE(seen->run.timed_out);
    if (spec.kind == adapter_kind::agy) {
      if (auto log = read_file_tail(agy_cli_log_path(spec.attempt_dir), 1 << 20))
        seen->output.add_agy_cli_log(*log, default_compiled_failure_patterns());
    }
    if (spec.kind == adapter_kind::codex && seen->output.outcome().end == cli_end::failed) {
      for (const auto& day : codex_day_dirs(home_ / ".codex", observed_at(), observed_at()))
        if (auto rollout = find_codex_rollout(list_files(day, ".jsonl"), seen->output.session_id()))
          if (auto text = read_file(*rollout))
            if (auto err = last_codex_rollout_error(*text))
              seen->output.add_diagnostic({"codex:rollout", dump_json(json{{"code", err->code},
                                                                          {"message", err->message}})});
    }
    failure_inputs in;
    if (!seen->run.launched) {
      in.launch = launch_outcome::failed_to_start;
      in.launch_error = seen->run.launch_error;
    } else if (seen->run.signaled) {
      in.exit.ended = agent_exit_status::how::signaled;
      in.exit.signal = seen->run.signal;
    } else {
      in.exit.code = seen->run.exit_code;
    }
    if (seen->output.no_progress()) {
      in.stop = dispatcher_stop::no_progress;
      in.no_progress = *seen->output.no_progress();
    }
    in.review_control_tool = seen->output.review_violation();
    in.kind = spec.kind;
    in.outcome = seen->output.outcome();
    in.diagnostics_newest_first = seen->output.diagnostics().newest_first();
    in.observed_at = observed_at();
    seen->verdict = classify_attempt(in, default_compiled_failure_patterns());
    return seen;
  }

  std::vector<json> registry_records() const {
    std::vector<json> out;
    auto text = read_file(registry());
    if (!text)
      return out;
    size_t pos = 0;
    while (pos < text->size()) {
      size_t nl = text->find('\n', pos);
      std::string_view line = std::string_view(*text).substr(pos, nl - pos);
      pos = nl == std::string::npos ? text->size() : nl + 1;
      if (auto j = parse_json(line, "registry"))
        out.push_back(*j);
    }
    return out;
  }

  test::temp_dir tmp_;
  fs::path ws_, plan_, review_, attempt_dir_, home_;
};

} // namespace ad::runtime::testing
