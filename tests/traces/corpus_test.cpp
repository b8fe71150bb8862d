// The message-trace corpus (tests/traces/corpus, re-recorded by
// tools/record-traces.sh): every trace replays identically under its
// recorded policy, holds no host path, and a changed supervisor rule is
// reported at the first decision it changes.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "runtime/core/token_usage.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/replay/replay_run.hpp"

namespace ad::tools {
namespace {

namespace fs = std::filesystem;
using runtime::json;

fs::path corpus_dir() {
  return test::source_dir() / "tests" / "traces" / "corpus";
}

std::vector<std::string> corpus_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(corpus_dir(), ec))
    if (e.path().extension() == ".jsonl")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

runtime::trace_file load(const std::string& name) {
  auto t = runtime::read_trace(corpus_dir() / (name + ".jsonl"));
  EXPECT_TRUE(t.is_ok()) << t.error().message();
  return t.is_ok() ? std::move(*t) : runtime::trace_file{};
}

// One scheduler.event edge and the scheduler.commands decision it caused.
struct scheduler_step {
  const runtime::trace_record* edge = nullptr;
  std::string event;
  json commands = json::array();
  int64_t decision_seq = 0;
};

std::vector<scheduler_step> scheduler_steps(const runtime::trace_file& t) {
  std::vector<scheduler_step> out;
  std::map<int64_t, std::size_t> at;
  for (const auto& r : t.records) {
    if (r.kind == "scheduler.event") {
      at[r.seq] = out.size();
      out.push_back({&r, r.body.value("event", ""), json::array(), 0});
    } else if (r.kind == "scheduler.commands") {
      if (auto it = at.find(r.cause); it != at.end()) {
        out[it->second].commands = r.body["commands"];
        out[it->second].decision_seq = r.seq;
      }
    }
  }
  return out;
}

// The commands named `name` among a scheduler step's commands.
std::vector<json> commands_in(const scheduler_step& s, std::string_view name) {
  std::vector<json> out;
  for (const auto& c : s.commands)
    if (c.value("command", "") == name)
      out.push_back(c);
  return out;
}

// The run events of kind `event` a scheduler step shows.
std::vector<json> shown_by(const scheduler_step& s, std::string_view event) {
  std::vector<json> out;
  for (const auto& c : commands_in(s, "show"))
    if (c["event"].value("event", "") == event)
      out.push_back(c["event"]);
  return out;
}

class trace_corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(trace_corpus, replays_identically_under_the_recorded_policy) {
  auto trace = load(GetParam());
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok()) << pol.error().message();
  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  EXPECT_FALSE(report->divergence) << runtime::render_divergence(*report->divergence);
  EXPECT_GT(report->compared, 0);
  // Every recorded run ends with its exit code (the scheduler's
  // finish_run), and that decision replays.
  EXPECT_EQ(report->not_replayed.count("scheduler.commands"), 0u);
  EXPECT_EQ(report->not_replayed.count("supervisor.step"), 0u);
  EXPECT_EQ(report->not_replayed.count("task.commands"), 0u);
  // Launches, classifications, stage steps, task ends, and every event the
  // scheduler fed its machine with the commands it got back: every
  // decision is compared, none only recorded.
  for (const auto& [kind, n] : report->not_replayed)
    ADD_FAILURE() << kind << " recorded " << n << " times but not compared";
}

TEST_P(trace_corpus, the_scheduler_writes_one_pair_per_event) {
  // The scheduler's decisions are recorded at one boundary: each event its
  // machine took (scheduler.event) and the commands it returned
  // (scheduler.commands), written as one pair.
  auto trace = load(GetParam());
  std::set<std::string> kinds;
  for (std::size_t i = 0; i < trace.records.size(); ++i) {
    const auto& r = trace.records[i];
    if (!r.kind.starts_with("scheduler."))
      continue;
    kinds.insert(r.kind);
    if (r.kind == "scheduler.event" && i + 1 < trace.records.size()) {
      EXPECT_EQ(trace.records[i + 1].kind, "scheduler.commands") << "record " << r.seq;
      EXPECT_EQ(trace.records[i + 1].cause, r.seq);
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"scheduler.event", "scheduler.commands"}));
}

TEST_P(trace_corpus, every_task_the_scheduler_starts_begins_with_the_spec_it_was_given) {
  // The scheduler's start_task command and the task machine's begun event
  // meet at the task actor: the spec is the same, and each started task
  // begins once per start.
  auto trace = load(GetParam());
  std::map<std::string, std::vector<json>> started; // task -> specs started, in order
  for (const auto& s : scheduler_steps(trace))
    for (const auto& c : commands_in(s, "start_task"))
      started[c["spec"].value("name", "")].push_back(c["spec"]);
  std::map<std::string, std::size_t> begun;
  for (const auto& r : trace.records) {
    if (r.kind != "task.event" || r.body.value("event", "") != "begun")
      continue;
    auto task = r.body.value("task", "");
    auto& n = begun[task];
    ASSERT_LT(n, started[task].size()) << task << " began without a start";
    auto spec = r.body["spec"];
    auto given = started[task][n];
    // The admission quota is what the batch gave: compared as a whole.
    EXPECT_EQ(spec, given) << task;
    ++n;
  }
  for (const auto& [task, specs] : started)
    EXPECT_GE(specs.size(), begun[task]) << task;
}

void expect_no_absolute_strings(const json& j, const std::string& where) {
  if (j.is_string()) {
    EXPECT_NE(j.get<std::string>().rfind('/', 0), 0u) << where << ": " << j.get<std::string>();
  } else if (j.is_structured()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (j.is_object()) {
        EXPECT_NE(it.key().rfind('/', 0), 0u) << where << ": key " << it.key();
      }
      expect_no_absolute_strings(it.value(), where);
    }
  }
}

TEST_P(trace_corpus, holds_no_host_paths) {
  auto trace = load(GetParam());
  expect_no_absolute_strings(trace.header.policy, "header");
  for (const auto& r : trace.records)
    expect_no_absolute_strings(r.body, "record " + std::to_string(r.seq));
}

INSTANTIATE_TEST_SUITE_P(corpus, trace_corpus, ::testing::ValuesIn(corpus_names()),
                         [](const auto& info) {
                           auto name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(trace_corpus_cover, holds_the_recorded_branches) {
  std::set<std::string> steps;
  std::set<std::string> patterns;
  std::set<int> exits;
  for (const auto& name : corpus_names())
    for (const auto& r : load(name).records) {
      if (r.kind == "supervisor.step") {
        steps.insert(r.body["step"].get<std::string>());
        for (const auto& e : r.body["events"])
          if (e.contains("pattern_ids"))
            for (const auto& id : e["pattern_ids"])
              patterns.insert(id.get<std::string>());
      }
      if (r.kind == "scheduler.commands")
        for (const auto& c : r.body["commands"])
          if (c.value("command", "") == "finish_run")
            exits.insert(c["exit_code"].get<int>());
    }
  for (const char* s : {"retry_same", "failover", "promote", "block"})
    EXPECT_TRUE(steps.count(s)) << s;
  EXPECT_TRUE(patterns.count("file-already-exists"));
  EXPECT_TRUE(patterns.count("file-not-found"));
  EXPECT_TRUE(exits.count(0));
  EXPECT_TRUE(exits.count(2));
}

// Every corpus trace with its name, loaded once per test.
std::vector<std::pair<std::string, runtime::trace_file>> load_corpus() {
  std::vector<std::pair<std::string, runtime::trace_file>> out;
  for (const auto& name : corpus_names())
    out.emplace_back(name, load(name));
  return out;
}

const runtime::trace_record* record_at(const runtime::trace_file& t, int64_t seq) {
  for (const auto& r : t.records)
    if (r.seq == seq)
      return &r;
  return nullptr;
}

runtime::trace_record* mutable_record_at(runtime::trace_file& t, int64_t seq) {
  for (auto& r : t.records)
    if (r.seq == seq)
      return &r;
  return nullptr;
}

bool starts_with(const json& j, std::string_view prefix) {
  return j.is_string() && j.get<std::string>().starts_with(prefix);
}

bool has_text(const json& j, std::string_view part) {
  return j.is_string() && j.get<std::string>().find(part) != std::string::npos;
}

// Whether `part` occurs anywhere in j's text.
bool mentions(const json& j, std::string_view part) {
  return j.dump().find(part) != std::string::npos;
}

// The changes of a decision body with op `op` naming `task` (as task or owner).
std::vector<json> changes_of(const json& body, std::string_view op, const std::string& task) {
  std::vector<json> out;
  if (body.contains("changes"))
    for (const auto& c : body["changes"])
      if (c.value("op", "") == op && (c.value("task", "") == task || c.value("owner", "") == task))
        out.push_back(c);
  return out;
}

// One task.event edge and the task.commands decision it caused.
struct task_step {
  const runtime::trace_record* edge = nullptr;
  std::string task;
  std::string event; // "begun", "durable", ...
  int64_t now = 0;
  json body;         // the event's body
  json commands = json::array();
  int64_t decision_seq = 0;
};

std::vector<task_step> task_steps(const runtime::trace_file& t) {
  std::vector<task_step> out;
  std::map<int64_t, std::size_t> by_edge;
  for (const auto& r : t.records) {
    if (r.kind == "task.event") {
      by_edge[r.seq] = out.size();
      out.push_back({&r, r.body.value("task", ""), r.body.value("event", ""),
                     r.body.value("now", int64_t{0}), r.body, json::array(), 0});
    } else if (r.kind == "task.commands") {
      if (auto it = by_edge.find(r.cause); it != by_edge.end()) {
        out[it->second].commands = r.body["commands"];
        out[it->second].decision_seq = r.seq;
      }
    }
  }
  return out;
}

// The commands named `name` among a step's commands.
std::vector<json> commands_named(const task_step& s, std::string_view name) {
  std::vector<json> out;
  for (const auto& c : s.commands)
    if (c.value("command", "") == name)
      out.push_back(c);
  return out;
}

bool has_command(const task_step& s, std::string_view name) {
  return !commands_named(s, name).empty();
}

// The run event a `show` command of kind `event` carries, or null.
json shown(const task_step& s, std::string_view event) {
  for (const auto& c : commands_named(s, "show"))
    if (c["event"].value("event", "") == event)
      return c["event"];
  return nullptr;
}

// The attempt orders of a trace, in order.
std::vector<json> orders_of(const runtime::trace_file& t) {
  std::vector<json> out;
  for (const auto& s : task_steps(t))
    for (const auto& c : commands_named(s, "start_attempt"))
      out.push_back(c["order"]);
  return out;
}

// The stage of each task step's task, as its last begun event named it.
std::map<int64_t, std::string> stages_of(const std::vector<task_step>& steps) {
  std::map<int64_t, std::string> out;
  std::map<std::string, std::string> current;
  for (const auto& s : steps) {
    if (s.event == "begun")
      current[s.task] = s.body["spec"].value("stage", "");
    out[s.edge->seq] = current[s.task];
  }
  return out;
}

// Each attempt start of a trace: the seq of the task.commands that ordered
// it, and the order.
// The orders of the attempts adopted from their keepers after a restart.
std::vector<json> adoptions_of(const runtime::trace_file& t) {
  std::vector<json> out;
  for (const auto& s : task_steps(t))
    for (const auto& c : commands_named(s, "adopt_attempt"))
      out.push_back(c["order"]);
  return out;
}

std::vector<std::pair<int64_t, json>> launches_of(const runtime::trace_file& t) {
  std::vector<std::pair<int64_t, json>> out;
  for (const auto& s : task_steps(t))
    for (const auto& c : commands_named(s, "start_attempt"))
      out.emplace_back(s.decision_seq, c["order"]);
  return out;
}

// Whether some task of t ended with `outcome`.
bool some_task_ended(const runtime::trace_file& t, std::string_view outcome) {
  for (const auto& s : task_steps(t))
    for (const auto& end : commands_named(s, "end_task"))
      if (end["outcome"] == outcome)
        return true;
  return false;
}

TEST(trace_corpus_cover, a_pi_failure_resumes_its_native_session) {
  // A context limit or a session stall on a pi target with native resume
  // (SPEC section 5): the next attempt continues the failed attempt's own
  // session file on the same target.
  int found = 0;
  std::set<std::string> classes;
  for (const auto& [name, t] : load_corpus())
    for (const auto& r : t.records) {
      if (r.kind != "supervisor.step" || r.body["step"] != "resume_native")
        continue;
      SCOPED_TRACE(name + " record " + std::to_string(r.seq));
      const auto& d = r.body["detail"];
      EXPECT_TRUE(starts_with(d["target"], "pi-")) << d.dump();
      EXPECT_TRUE(has_text(d["session"], ".jsonl")) << d.dump();
      const auto* edge = record_at(t, r.cause);
      ASSERT_NE(edge, nullptr);
      ASSERT_EQ(edge->kind, "supervisor.failure");
      const auto& failure = edge->body["request"]["failure"];
      auto failure_class = failure["failure_class"].get<std::string>();
      EXPECT_TRUE(failure_class == "context-limit" || failure_class == "session-stall")
        << failure_class;
      classes.insert(failure_class);
      EXPECT_EQ(failure["native_session_path"], d["session"]) << "the failed attempt's session";
      ++found;
    }
  EXPECT_GT(found, 0) << "no supervisor.step resumes a native pi session";
  EXPECT_TRUE(classes.count("context-limit"));
  EXPECT_TRUE(classes.count("session-stall"));
}

TEST(trace_corpus_cover, a_quota_failure_with_a_known_reset_waits_outside_the_budget) {
  int found = 0;
  for (const auto& [name, t] : load_corpus())
    for (const auto& r : t.records) {
      if (r.kind != "supervisor.step" || r.body["step"] != "wait_until")
        continue;
      SCOPED_TRACE(name + " record " + std::to_string(r.seq));
      const auto& d = r.body["detail"];
      EXPECT_TRUE(starts_with(d["until"], "20")) << d.dump();
      EXPECT_TRUE(has_text(d["reason"], "to reset: until " + d.value("until", "?"))) << d.dump();
      const auto* edge = record_at(t, r.cause);
      ASSERT_NE(edge, nullptr);
      EXPECT_EQ(edge->body["request"]["failure"]["failure_class"], "provider-quota");
      const std::string task = edge->body["request"]["failure"].value("task", "");
      EXPECT_TRUE(changes_of(r.body, "record_failure", task).empty())
        << "a reset wait must not spend the failure budget: " << r.body["changes"].dump();
      bool until_durable = false;
      for (const auto& c : changes_of(r.body, "set_counter", task))
        until_durable = until_durable || starts_with(c["name"], "reset_wait_until:");
      EXPECT_TRUE(until_durable) << r.body["changes"].dump();
      ++found;
    }
  EXPECT_GT(found, 0) << "no supervisor.step waits for a quota reset";
}

TEST(trace_corpus_cover, a_restart_resumes_a_durable_reset_wait_before_choosing_a_target) {
  // A quota-reset wait decided (and made durable) by a dispatcher that then
  // crashed: the restart's first decision for the task is that wait, not a
  // target, and the task chooses its target once the reset time passed.
  int found = 0;
  for (const auto& [name, t] : load_corpus()) {
    auto steps = task_steps(t);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      auto wait = shown(steps[i], "supervisor_wait");
      if (wait.is_null() || !has_text(wait["reason"], "recorded before a restart"))
        continue;
      const auto& s = steps[i];
      SCOPED_TRACE(name + " record " + std::to_string(s.edge->seq));
      EXPECT_EQ(s.event, "task_state_read");
      auto wakes = commands_named(s, "wake_at");
      ASSERT_EQ(wakes.size(), 1u);
      auto until = wakes[0]["at"].get<int64_t>();
      EXPECT_GT(until, s.now);
      EXPECT_FALSE(has_command(s, "start_attempt"));
      bool decided_before = std::any_of(steps.begin(), steps.begin() + static_cast<long>(i),
                                        [&](const task_step& x) {
                                          return x.task == s.task && has_command(x, "make_durable");
                                        });
      EXPECT_FALSE(decided_before) << "the wait must be the restart's first decision for "
                                   << s.task;
      // The task's timer fired at the reset time, and only that woke it;
      // then it chose the target that waited.
      int woke = 0;
      std::string started_target;
      for (std::size_t j = i + 1; j < steps.size(); ++j) {
        if (steps[j].task != s.task)
          continue;
        if (steps[j].event == "woke") {
          EXPECT_GE(steps[j].now, until);
          ++woke;
        }
        auto began = shown(steps[j], "attempt_started");
        if (!began.is_null() && started_target.empty()) {
          EXPECT_GE(steps[j].now, until);
          started_target = began.value("target", "");
        }
      }
      EXPECT_EQ(woke, 1);
      EXPECT_EQ(started_target, wait.value("target", ""));
      ++found;
    }
  }
  EXPECT_GT(found, 0) << "no restart resumes a durable quota-reset wait";
}

TEST(trace_corpus_cover, an_interrupted_run_cancels_running_and_waiting_tasks) {
  // SIGINT: a task with a running attempt has it cancelled and ends once the
  // attempt is gone; a task waiting on a timer ends at once; exit 130.
  int cancelled_attempts = 0, cancelled_waits = 0;
  for (const auto& [name, t] : load_corpus()) {
    auto steps = task_steps(t);
    bool stopped = false;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto& s = steps[i];
      if (s.event != "stop")
        continue;
      stopped = true;
      SCOPED_TRACE(name + ": " + s.task);
      if (has_command(s, "cancel_attempt")) {
        auto identity = commands_named(s, "cancel_attempt")[0]["identity"];
        // The task's end follows the cancelled attempt's result: shown
        // cancelled, its stage cleared, then the end.
        const task_step* result = nullptr;
        const task_step* end = nullptr;
        for (std::size_t j = i + 1; j < steps.size(); ++j) {
          if (steps[j].task != s.task)
            continue;
          if (steps[j].event == "attempt_finished" && !result)
            result = &steps[j];
          if (has_command(steps[j], "end_task"))
            end = &steps[j];
        }
        ASSERT_NE(result, nullptr);
        EXPECT_EQ(result->body["result"]["identity"], identity);
        EXPECT_EQ(shown(*result, "attempt_finished").value("status", ""), "cancelled");
        ASSERT_TRUE(has_command(*result, "make_durable"));
        EXPECT_EQ(commands_named(*result, "make_durable")[0]["changes"][0]["op"],
                  "clear_active_stage");
        ASSERT_NE(end, nullptr);
        EXPECT_EQ(commands_named(*end, "end_task")[0]["outcome"], "cancelled");
        ++cancelled_attempts;
      } else if (has_command(s, "end_task")) {
        EXPECT_EQ(s.commands.size(), 1u) << s.commands.dump();
        EXPECT_EQ(commands_named(s, "end_task")[0]["outcome"], "cancelled");
        ++cancelled_waits;
      }
    }
    if (stopped)
      for (const auto& st : scheduler_steps(t))
        for (const auto& f : commands_in(st, "finish_run")) {
          EXPECT_EQ(f["exit_code"], 130) << name;
        }
  }
  EXPECT_GT(cancelled_attempts, 0) << "no stop cancels a running attempt";
  EXPECT_GT(cancelled_waits, 0) << "no stop ends a waiting task";
}

TEST(trace_corpus_cover, every_classified_attempt_leaves_its_start_and_finish_rows) {
  // The work-log rows are decisions of the attempt's end: START (running)
  // and FINISH with the classified result, under the launched model. An
  // attempt adopted after a restart wrote its START row in the run that
  // started it: here it leaves its FINISH row only.
  int attempts = 0;
  int adopted_attempts = 0;
  for (const auto& [name, t] : load_corpus()) {
    std::map<std::string, std::string> launched_model; // identity-less: task|role|attempt
    std::set<std::string> adopted;
    for (const auto& o : orders_of(t))
      launched_model[o.value("task", "") + "|" + o.value("role", "") + "|" +
                     std::to_string(o.value("attempt", 0))] = o.value("model", "");
    for (const auto& o : adoptions_of(t)) {
      auto key = o.value("task", "") + "|" + o.value("role", "") + "|" +
                 std::to_string(o.value("attempt", 0));
      launched_model[key] = o.value("model", "");
      adopted.insert(key);
    }
    for (const auto& r : t.records) {
      if (r.kind != "attempt.exit")
        continue;
      SCOPED_TRACE(name + ": " + r.body.value("identity", ""));
      std::vector<json> rows;
      const json* verdict = nullptr;
      for (const auto& x : t.records)
        if (x.cause == r.seq && x.kind == "worklog.row")
          rows.push_back(x.body);
        else if (x.cause == r.seq && x.kind == "attempt.classified")
          verdict = &x.body;
      ASSERT_NE(verdict, nullptr);
      auto key = r.body.value("task", "") + "|" + r.body.value("stage", "") + "|" +
                 std::to_string(r.body.value("attempt", 0));
      if (adopted.count(key)) {
        rows.insert(rows.begin(), json{{"event", "START"}, {"result", "running"},
                                       {"model", launched_model[key]},
                                       {"locator", r.body["locator"]}});
        ++adopted_attempts;
      }
      ASSERT_EQ(rows.size(), 2u);
      EXPECT_EQ(rows[0]["event"], "START");
      EXPECT_EQ(rows[0]["result"], "running");
      EXPECT_EQ(rows[1]["event"], "FINISH");
      auto cls = verdict->value("failure_class", "");
      // What the attempt spent follows the result (traces recorded before
      // the exit carried its usage name none).
      std::string spent;
      if (r.body.contains("usage")) {
        auto u = runtime::usage_from_json(r.body["usage"]);
        ASSERT_TRUE(u.is_ok()) << r.body["usage"].dump();
        if (!u->empty())
          spent = " (spent " + runtime::usage_summary(*u) + ")";
      }
      std::string result = rows[1]["result"];
      if (cls.empty()) {
        EXPECT_EQ(result, "succeeded:0" + spent);
      } else {
        EXPECT_TRUE(starts_with(result, "failed:" + cls)) << rows[1].dump();
        EXPECT_TRUE(result.ends_with(spent)) << rows[1].dump();
      }
      ASSERT_TRUE(launched_model.count(key)) << key;
      for (const auto& row : rows) {
        EXPECT_EQ(row["model"], launched_model[key]);
        EXPECT_EQ(row["locator"], r.body["locator"]);
      }
      ++attempts;
    }
  }
  EXPECT_GT(attempts, 20);
  EXPECT_GT(adopted_attempts, 0) << "no adopted attempt in the corpus";
}

TEST(trace_corpus_cover, every_classified_attempt_is_rebuilt_from_its_recorded_lines) {
  // Each attempt.exit replays from the attempt.line edges before it; each
  // attempt with output has lines, all of them before its exit. (The
  // restart-reconcile run starts no agent: its work was done before.)
  for (const auto& [name, t] : load_corpus()) {
    if (name == "restart-reconcile")
      continue;
    std::map<std::string, int> lines;
    std::set<std::string> exited;
    for (const auto& r : t.records) {
      if (r.kind == "attempt.line") {
        auto identity = r.body["attempt"].get<std::string>();
        EXPECT_FALSE(exited.count(identity)) << name << ": a line after the exit of " << identity;
        ++lines[identity];
      }
      if (r.kind == "attempt.exit") {
        EXPECT_EQ(r.body.value("line_edges", false), true) << name << " seq " << r.seq;
        exited.insert(r.body["identity"].get<std::string>());
      }
    }
    for (const auto& [identity, count] : lines)
      EXPECT_TRUE(exited.count(identity)) << name << ": " << identity << " has lines, no exit";
    EXPECT_FALSE(lines.empty()) << name;
  }
}

TEST(trace_corpus_cover, retry_blocked_clears_the_block_before_the_task_runs_again) {
  // The second run of the budget-block workspace, on the same state root:
  // start-up clears the block durably, the worker runs again and blocks
  // again.
  auto t = load("retry-blocked");
  const std::string task = "grp01/01_t0001";
  auto steps = scheduler_steps(t);
  const scheduler_step* snapshot = nullptr;
  const scheduler_step* cleared = nullptr;
  for (const auto& s : steps) {
    if (!snapshot && s.event == "state_snapshot")
      snapshot = &s;
    for (const auto& d : commands_in(s, "make_durable"))
      if (!cleared && !changes_of(d, "clear_blocked", task).empty())
        cleared = &s;
  }
  ASSERT_NE(snapshot, nullptr);
  ASSERT_NE(cleared, nullptr);
  ASSERT_TRUE(snapshot->edge->body["state"]["tasks"][task].contains("blocked"));
  auto durable = commands_in(*cleared, "make_durable")[0];
  EXPECT_EQ(changes_of(durable, "clear_blocked", task).size(), 1u);
  EXPECT_EQ(changes_of(durable, "reset_failures", task).size(), 1u);
  bool began_after = false, blocked_again = false;
  for (const auto& s : task_steps(t)) {
    if (s.task != task)
      continue;
    if (s.event == "begun") {
      EXPECT_GT(s.edge->seq, cleared->decision_seq);
      began_after = true;
    }
    for (const auto& end : commands_named(s, "end_task"))
      blocked_again = blocked_again || end["outcome"] == "blocked";
  }
  EXPECT_TRUE(began_after);
  EXPECT_TRUE(blocked_again);
}

TEST(trace_corpus_cover, a_silent_agent_is_stopped_at_the_stall_limit_and_retried) {
  auto t = load("stall");
  const runtime::trace_record* stall = nullptr;
  bool inspected = false;
  for (const auto& r : t.records) {
    if (r.kind == "attempt.silence_due" && r.body["inspect"] == true)
      inspected = true;
    if (r.kind == "attempt.silence_due" && r.body["stall"] == true && !stall)
      stall = &r;
  }
  ASSERT_NE(stall, nullptr);
  EXPECT_TRUE(inspected);
  EXPECT_GE(stall->body["silent_ms"].get<int64_t>(), 2'000);
  auto identity = stall->body["attempt"].get<std::string>();
  bool classified = false, retried = false, completed = false;
  for (const auto& r : t.records) {
    if (r.seq < stall->seq)
      continue;
    if (r.kind == "attempt.classified" && record_at(t, r.cause)->body["identity"] == identity) {
      EXPECT_EQ(r.body["failure_class"], "session-stall");
      classified = true;
    }
    if (r.kind == "supervisor.step" && classified && !retried) {
      EXPECT_EQ(r.body["step"], "retry_same");
      retried = true;
    }
  }
  completed = some_task_ended(t, "complete");
  EXPECT_TRUE(classified);
  EXPECT_TRUE(retried);
  EXPECT_TRUE(completed);
}

TEST(trace_corpus_cover, a_running_pi_tool_call_defers_the_inspection_but_not_the_stall) {
  // pi-tool-stall: inspection after 2 s, stall limit 4 s. The pi session
  // reports tool-running before the inspection falls due, so every check
  // from then on sees the tool running and inspects nothing; the stall
  // limit stops the agent all the same.
  auto t = load("pi-tool-stall");
  int64_t running_since = 0;
  const runtime::trace_record* stall = nullptr;
  int deferred = 0;
  for (const auto& r : t.records) {
    if (r.kind == "attempt.phase" && r.body["phase"] == "tool-running" && running_since == 0)
      running_since = r.seq;
    if (r.kind != "attempt.silence_due" || stall)
      continue;
    EXPECT_EQ(r.body["inspect"], false) << r.body.dump();
    if (r.body["silent_ms"].get<int64_t>() >= 2'000) {
      EXPECT_GT(r.seq, running_since);
      EXPECT_EQ(r.body["tools"], "running");
      ++deferred;
    }
    if (r.body["stall"] == true)
      stall = &r;
  }
  ASSERT_GT(running_since, 0);
  ASSERT_NE(stall, nullptr);
  EXPECT_GE(deferred, 2); // at 2 s and 3 s, and the stall's own check
  EXPECT_GE(stall->body["silent_ms"].get<int64_t>(), 4'000);
  auto identity = stall->body["attempt"];
  bool classified = false, completed = false;
  for (const auto& r : t.records) {
    if (r.kind == "attempt.classified" && record_at(t, r.cause)->body["identity"] == identity) {
      EXPECT_EQ(r.body["failure_class"], "session-stall");
      classified = true;
    }
  }
  completed = some_task_ended(t, "complete");
  EXPECT_TRUE(classified);
  EXPECT_TRUE(completed);
}

TEST(trace_corpus_cover, a_restart_finishes_a_stage_whose_agent_ended_well_without_rerunning_it) {
  // The dispatcher crashed after the worker's attempt ended well, before
  // the stage step was durable: the restart reads the succeeded locator back
  // and finishes the stage from it, and never launches that stage again.
  int found = 0;
  for (const auto& [name, t] : load_corpus())
    for (const auto& s : scheduler_steps(t)) {
      if (s.event != "active_stages_read")
        continue;
      SCOPED_TRACE(name);
      for (const auto& reading : s.edge->body["readings"]["readings"]) {
        auto task = reading.value("task", "");
        auto stage = reading["state"].value("active_stage", "");
        // A review is only cleared: its outcome is read from the folders.
        if (!reading.value("locator_read", false) || stage == "review")
          continue;
        EXPECT_EQ(reading["probe"]["locator_status"], "succeeded");
        auto durable = commands_in(s, "make_durable");
        ASSERT_FALSE(durable.empty()) << s.commands.dump();
        EXPECT_FALSE(changes_of(durable[0], "set_task_flag", task).empty()) << s.commands.dump();
        for (const auto& [seq, order] : launches_of(t))
          if (order["task"] == task) {
            EXPECT_NE(order["role"], stage) << "the finished stage ran again (record " << seq
                                            << ")";
          }
        ++found;
      }
    }
  EXPECT_GT(found, 0) << "no restart finishes a stage from its succeeded locator";
}

TEST(trace_corpus_cover, a_ready_task_waits_on_an_overlapping_claim_then_starts) {
  int found = 0;
  for (const auto& [name, t] : load_corpus()) {
    std::set<std::string> waited; // tasks seen waiting on a claim
    for (const auto& s : scheduler_steps(t)) {
      for (const auto& c : commands_in(s, "start_task"))
        if (waited.erase(c["spec"].value("name", "")))
          ++found; // the waiting task started once the claim was released
      for (const auto& e : shown_by(s, "task_waiting"))
        if (starts_with(e["reason"], "claim conflict with "))
          waited.insert(e.value("task", ""));
    }
  }
  EXPECT_GT(found, 0) << "no task waits on a claim conflict and then starts";
}

TEST(trace_corpus_cover, an_official_review_leaving_user_review_stops_the_task) {
  // Both after a worker implemented an ordinary PLAN (user-review) and in a
  // recovery folder reviewed again (user-review-recovery).
  int found = 0;
  std::set<std::string> after_worker, recovery;
  for (const auto& [name, t] : load_corpus()) {
    std::string stopped;
    int64_t stopped_at = 0;
    std::set<std::string> worked; // tasks whose worker ran in this trace
    for (const auto& [seq, order] : launches_of(t))
      if (order["role"] == "worker")
        worked.insert(order.value("task", ""));
    auto steps = task_steps(t);
    auto stages = stages_of(steps);
    for (const auto& s : steps)
      for (const auto& end : commands_named(s, "end_task"))
        if (stages[s.edge->seq] == "review" && end["reason"] == "user-review" && stopped.empty()) {
          EXPECT_EQ(end["outcome"], "advance") << name;
          stopped = s.task;
          stopped_at = s.decision_seq;
          (worked.count(stopped) ? after_worker : recovery).insert(name);
        }
    if (stopped.empty())
      continue;
    for (const auto& st : scheduler_steps(t))
      if (st.decision_seq > stopped_at)
        for (const auto& e : shown_by(st, "tasks_scanned"))
          for (const auto& line : e["tasks"])
            if (line["task"] == stopped && line["stage"] == "user-review" &&
                line["status"] == "blocked") {
              EXPECT_TRUE(has_text(line["reason"], "USER_REVIEW.md")) << line.dump();
              ++found;
            }
    for (const auto& [seq, order] : launches_of(t))
      if (seq > stopped_at) {
        EXPECT_NE(order["task"], stopped) << name << ": a task stopped for the user started again";
      }
  }
  EXPECT_GT(found, 0) << "no review stop for the user (a review ending user-review, then the "
                         "task held at stage user-review)";
  EXPECT_TRUE(after_worker.count("user-review"));
  EXPECT_TRUE(recovery.count("user-review-recovery"));
}

TEST(trace_corpus_cover, a_follow_up_review_goes_around_with_the_next_generation) {
  int found = 0;
  for (const auto& [name, t] : load_corpus()) {
    std::map<int64_t, std::string> follow_ups; // the end's seq -> task sent around again
    auto steps = task_steps(t);
    auto stages = stages_of(steps);
    for (const auto& s : steps)
      for (const auto& end : commands_named(s, "end_task"))
        if (stages[s.edge->seq] == "review" && end["reason"] == "follow-up") {
          EXPECT_EQ(end["outcome"], "advance") << end.dump();
          follow_ups[s.decision_seq] = s.task;
        }
    auto sched = scheduler_steps(t);
    for (const auto& [at, task] : follow_ups)
      for (const auto& st : sched) {
        if (st.decision_seq <= at)
          continue;
        bool next = false;
        for (const auto& d : commands_in(st, "make_durable"))
          for (const auto& c : changes_of(d, "begin_work_unit", task))
            next = next || has_text(c["work_unit_id"], "::plan-2::");
        if (next) {
          ++found;
          break;
        }
      }
  }
  EXPECT_GT(found, 0) << "no follow-up review followed by the next plan generation";
}

TEST(trace_corpus_cover, a_restart_adopts_every_surviving_agent_and_starts_none_again) {
  // A dispatcher crashed while agents ran under their keepers. The traced
  // restart adopts each of them (a start_task whose spec is adopting; its
  // task follows the attempt from its locator and keeper), launches no
  // second agent for its stage, and finishes the stage from the adopted
  // attempt's end.
  int adoptions = 0;
  for (const auto& [name, t] : load_corpus()) {
    for (const auto& s : scheduler_steps(t)) {
      for (const auto& c : commands_in(s, "start_task")) {
        const auto& spec = c["spec"];
        if (!spec.contains("adopt") || spec["adopt"].is_null())
          continue;
        auto task = spec.value("name", "");
        auto stage = spec.value("stage", "");
        SCOPED_TRACE(name + ": adopted " + task + " (" + stage + ")");
        int starts = 0;
        for (const auto& other : commands_in(s, "start_task"))
          starts += other["spec"].value("name", "") == task;
        EXPECT_EQ(starts, 1) << "started in the pass that adopted it";
        int followed = 0;
        for (const auto& o : adoptions_of(t))
          if (o["task"] == task && o["role"] == stage) {
            EXPECT_EQ(o.value("attempt", 0), spec.value("last_attempt", -1));
            ++followed;
          }
        EXPECT_EQ(followed, 1) << "the adopted attempt is followed exactly once";
        for (const auto& [seq, order] : launches_of(t)) {
          EXPECT_FALSE(order["task"] == task && order["role"] == stage)
              << "a second agent of the adopted stage (record " << seq << ")";
        }
        // The adopted attempt's end is classified and ends the stage.
        bool ended = false;
        for (const auto& x : t.records)
          if (x.kind == "attempt.exit" && x.body.value("task", "") == task &&
              x.body.value("stage", "") == stage)
            ended = true;
        EXPECT_TRUE(ended) << "the adopted attempt never ended here";
        ++adoptions;
      }
    }
  }
  EXPECT_GE(adoptions, 2) << "no restart adopted a worker and a review from their keepers";
}

TEST(trace_corpus_cover, a_restart_completes_a_task_archived_while_no_dispatcher_ran) {
  // The review that archived its task ended while no dispatcher ran (a
  // crash after its end): the restart clears the stage from the locator and
  // reconciliation completes the vanished task from its one new archive
  // folder, with no agent of its own: the completion is durable, then its
  // attempt logs go and it is shown complete.
  int completions = 0;
  for (const auto& [name, t] : load_corpus()) {
    std::set<std::string> completed_durably;
    for (const auto& s : scheduler_steps(t)) {
      for (const auto& d : commands_in(s, "make_durable"))
        for (const auto& c : d["changes"])
          if (c.value("op", "") == "complete_orchestration_task")
            completed_durably.insert(c.value("task", ""));
      for (const auto& e : shown_by(s, "task_finished")) {
        if (!has_text(e["reason"], "archived at "))
          continue;
        auto task = e.value("task", "");
        SCOPED_TRACE(name + ": " + task);
        EXPECT_EQ(s.event, "state_applied") << "shown before the completion was durable";
        EXPECT_TRUE(completed_durably.count(task));
        EXPECT_TRUE(has_text(e["reason"], "/agent-task/archive/")) << e.dump();
        auto removed = commands_in(s, "remove_attempt_logs");
        EXPECT_TRUE(std::any_of(removed.begin(), removed.end(),
                                [&](const json& r) { return r["task"] == task; }));
        auto launches = launches_of(t);
        EXPECT_FALSE(std::any_of(launches.begin(), launches.end(),
                                 [&](const auto& l) { return l.second["task"] == task; }));
        ++completions;
      }
    }
  }
  EXPECT_GT(completions, 0) << "no restart completed an archived task by reconciliation";
}

TEST(trace_corpus_cover, a_group_is_closed_on_the_state_its_reconciliation_leaves) {
  // A pass that completes vanished tasks by reconciliation reads their
  // group with those tasks complete; a restart that completes a group's last
  // open task from the archive closes the group right after that pass: its
  // work log moves only once the pass's changes are durable (the store's
  // answer came), and the closing is made durable after the move.
  int closes = 0;
  for (const auto& [name, t] : load_corpus()) {
    std::set<std::string> reconciled; // groups with a task completed from the archive
    auto steps = scheduler_steps(t);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto& s = steps[i];
      for (const auto& d : commands_in(s, "make_durable"))
        for (const auto& c : d["changes"])
          if (c.value("op", "") == "complete_orchestration_task" &&
              has_text(c.value("archive", ""), "archive/"))
            reconciled.insert(c.value("scope", ""));
      for (const auto& a : commands_in(s, "archive_work_logs"))
        for (const auto& g : a["groups"]) {
          if (!reconciled.count(g.get<std::string>()))
            continue;
          SCOPED_TRACE(name + ": record " + std::to_string(s.decision_seq));
          EXPECT_EQ(s.event, "state_applied")
            << "the work log moved before the pass's changes were durable";
          ASSERT_LT(i + 1, steps.size());
          const auto& moved = steps[i + 1];
          EXPECT_EQ(moved.event, "work_logs_archived");
          auto closing = commands_in(moved, "make_durable");
          ASSERT_FALSE(closing.empty()) << moved.commands.dump();
          EXPECT_TRUE(mentions(closing[0]["changes"], g.get<std::string>()));
          ++closes;
        }
    }
  }
  EXPECT_GT(closes, 0) << "no restart closes a group after the pass that reconciled it";
}

// The first recorded supervisor.step satisfying pred.
const runtime::trace_record* first_step(const runtime::trace_file& t,
                                        const std::function<bool(const json&)>& pred) {
  for (const auto& r : t.records)
    if (r.kind == "supervisor.step" && pred(r.body))
      return &r;
  return nullptr;
}

// The first divergence of replaying trace under pol; a failure of the
// test (and an empty divergence) when replay fails or finds none.
runtime::replay_divergence first_divergence(const runtime::trace_file& trace,
                                            const runtime::policy& pol) {
  auto report = replay_recorded_run(trace, pol);
  if (!report.is_ok()) {
    ADD_FAILURE() << report.error().message();
    return {};
  }
  if (!report->divergence) {
    ADD_FAILURE() << "replay found no divergence";
    return {};
  }
  return *report->divergence;
}

TEST(trace_mutation, a_smaller_failure_budget_diverges_at_the_first_retry) {
  // The rule changed: a task is blocked after its first failure.
  auto trace = load("failure-classes");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  pol->budgets.recovery_failures = 1;
  const auto* first = first_step(trace, [](const json& b) { return b["step"] != "block"; });
  ASSERT_NE(first, nullptr);

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, first->seq);
  EXPECT_EQ(d.cause, first->cause);
  EXPECT_EQ(d.edge_kind, "supervisor.failure");
  EXPECT_EQ(d.kind, "supervisor.step");
  EXPECT_EQ(d.expected["step"], first->body["step"]);
  EXPECT_EQ(d.actual["step"], "block");
  ASSERT_FALSE(d.recent.empty());
  EXPECT_EQ(d.recent.back().seq, first->cause);
  auto text = runtime::render_divergence(d);
  EXPECT_NE(text.find("divergence at record " + std::to_string(first->seq)), std::string::npos)
    << text;
}

TEST(trace_mutation, dropping_the_promotion_rule_diverges_at_the_first_promotion) {
  // The supervisor rule "a promotable worker failure promotes along the
  // chain" is replaced, in this test only, by "retry the same target".
  auto trace = load("failure-classes");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  const auto* promotion = first_step(trace, [](const json& b) { return b["step"] == "promote"; });
  ASSERT_NE(promotion, nullptr);

  auto report = replay_recorded_run(trace, *pol, [](runtime::replay_handlers& h) {
    auto& handler = h.at("supervisor.failure");
    handler.fn = [inner = handler.fn](const json& body)
      -> runtime::result<std::vector<runtime::replayed_decision>> {
      auto out = inner(body);
      if (out.is_ok())
        for (auto& d : *out)
          if (d.body["step"] == "promote") {
            auto previous = d.body["detail"]["decision"]["previous_target"];
            d.body["step"] = "retry_same";
            d.body["detail"] = json{{"step", "retry_same"}, {"target", previous}};
          }
      return out;
    };
  });
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  ASSERT_TRUE(report->divergence);
  EXPECT_EQ(report->divergence->seq, promotion->seq);
  EXPECT_EQ(report->divergence->edge_kind, "supervisor.failure");
  EXPECT_EQ(report->divergence->expected["step"], "promote");
  EXPECT_EQ(report->divergence->actual["step"], "retry_same");
}

TEST(trace_mutation, a_tampered_edge_diverges_there) {
  // A recorded clock reading moved one hour: the target decision records
  // its evaluation time, so the replayed decision differs at that edge.
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  runtime::trace_record* read = nullptr;
  for (auto& r : trace.records)
    if (r.kind == "task.event" && r.body["event"] == "task_state_read") {
      read = &r;
      break;
    }
  ASSERT_NE(read, nullptr);
  read->body["now"] = read->body["now"].get<int64_t>() + 3'600'000;
  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok());
  ASSERT_TRUE(report->divergence);
  EXPECT_EQ(report->divergence->cause, read->seq);
  EXPECT_EQ(report->divergence->kind, "task.commands");
}

// The first record of kind satisfying pred.
runtime::trace_record* first_record(runtime::trace_file& t, std::string_view kind,
                                    const std::function<bool(const json&)>& pred) {
  for (auto& r : t.records)
    if (r.kind == kind && pred(r.body))
      return &r;
  return nullptr;
}

// The start_attempt command among a task.commands body's commands, or null.
const json* start_of(const json& commands_body) {
  for (const auto& c : commands_body["commands"])
    if (c.value("command", "") == "start_attempt")
      return &c;
  return nullptr;
}

// The attempt_started event a task.commands body shows, or null.
const json* started_of(const json& commands_body) {
  for (const auto& c : commands_body["commands"])
    if (c.value("command", "") == "show" && c["event"].value("event", "") == "attempt_started")
      return &c["event"];
  return nullptr;
}

TEST(trace_mutation, another_model_diverges_at_the_first_launch_of_its_target) {
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* any = first_record(trace, "task.commands", [](const json& b) { return started_of(b); });
  ASSERT_NE(any, nullptr);
  auto target_id = (*started_of(any->body))["target"].get<std::string>();
  // Replay reports the earliest recorded decision that differs: the first
  // launch of that target.
  const auto* launch = first_record(trace, "task.commands", [&](const json& b) {
    const auto* e = started_of(b);
    return e && (*e)["target"] == target_id;
  });
  ASSERT_NE(launch, nullptr);
  auto target = std::find_if(pol->targets.begin(), pol->targets.end(),
                             [&](const auto& t) { return t.id == target_id; });
  ASSERT_NE(target, pol->targets.end());
  target->model = "another-model";

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, launch->seq);
  EXPECT_EQ(d.edge_kind, "task.event");
  EXPECT_EQ(d.kind, "task.commands");
  const auto* expected = start_of(d.expected);
  const auto* actual = start_of(d.actual);
  ASSERT_TRUE(expected && actual) << d.actual.dump();
  EXPECT_EQ((*expected)["order"]["model"], (*start_of(launch->body))["order"]["model"]);
  EXPECT_EQ((*actual)["order"]["model"], "another-model");
}

TEST(trace_mutation, a_pattern_table_without_quota_classifies_the_first_quota_failure_otherwise) {
  auto trace = load("failure-classes");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* quota = first_record(trace, "attempt.classified",
                             [](const json& b) { return b["failure_class"] == "provider-quota"; });
  ASSERT_NE(quota, nullptr);
  auto& table = pol->failure_patterns;
  ASSERT_FALSE(table.empty());
  auto before = table.size();
  std::erase_if(table, [](const auto& p) { return p.failure_class == "provider-quota"; });
  ASSERT_LT(table.size(), before);

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, quota->seq);
  EXPECT_EQ(d.edge_kind, "attempt.exit");
  EXPECT_EQ(d.kind, "attempt.classified");
  EXPECT_EQ(d.expected["failure_class"], "provider-quota");
  EXPECT_NE(d.actual["failure_class"], "provider-quota");
}

TEST(trace_mutation, a_quota_line_that_never_came_classifies_that_attempt_otherwise) {
  // The classification is rebuilt from the attempt's recorded lines: with
  // its quota message replaced, the attempt is classified otherwise at its
  // exit.
  auto trace = load("failure-classes");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* quota = first_record(trace, "attempt.classified", [](const json& b) {
    return b["failure_class"] == "provider-quota" && b["evidence_origin"] == "claude:result";
  });
  ASSERT_NE(quota, nullptr);
  const auto* exit = record_at(trace, quota->cause);
  ASSERT_NE(exit, nullptr);
  ASSERT_EQ(exit->body["line_edges"], true);
  auto identity = exit->body["identity"].get<std::string>();
  int changed = 0;
  for (auto& r : trace.records)
    if (r.kind == "attempt.line" && r.body["attempt"] == identity &&
        has_text(r.body["text"], "limit")) {
      r.body["text"] = "plain output";
      ++changed;
    }
  ASSERT_GT(changed, 0);

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, quota->seq);
  EXPECT_EQ(d.edge_kind, "attempt.exit");
  EXPECT_EQ(d.expected["failure_class"], "provider-quota");
  EXPECT_NE(d.actual["failure_class"], "provider-quota");
}

TEST(trace_mutation, a_review_that_left_no_verdict_diverges_at_its_review_step) {
  // The reading of the first completing review loses its folders: replay
  // decides on the recorded reading, not on the workspace.
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto steps = task_steps(trace);
  auto stages = stages_of(steps);
  // The review's end: complete; its step was made durable at the
  // task_state_read before, decided on the attempt_read before that.
  std::string task;
  int64_t step_edge = 0, read_edge = 0;
  for (std::size_t i = 0; i < steps.size() && task.empty(); ++i)
    for (const auto& end : commands_named(steps[i], "end_task"))
      if (end["outcome"] == "complete" && stages[steps[i].edge->seq] == "review") {
        task = steps[i].task;
        for (std::size_t j = i; j-- > 0;) {
          if (steps[j].task != task)
            continue;
          if (steps[j].event == "task_state_read" && step_edge == 0)
            step_edge = steps[j].edge->seq;
          if (steps[j].event == "attempt_read") {
            read_edge = steps[j].edge->seq;
            break;
          }
        }
      }
  ASSERT_FALSE(task.empty());
  ASSERT_GT(read_edge, 0);
  ASSERT_GT(step_edge, read_edge);
  auto* read = mutable_record_at(trace, read_edge);
  ASSERT_NE(read, nullptr);
  auto& folders = read->body["reading"]["review"]["folders"];
  ASSERT_FALSE(folders.empty());
  folders = json::array();

  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  ASSERT_TRUE(report->divergence);
  EXPECT_EQ(report->divergence->cause, step_edge);
  EXPECT_EQ(report->divergence->kind, "task.commands");
  auto expected = report->divergence->expected.dump();
  auto actual = report->divergence->actual.dump();
  EXPECT_NE(expected.find("complete_orchestration_task"), std::string::npos) << expected;
  EXPECT_EQ(actual.find("complete_orchestration_task"), std::string::npos) << actual;
}

// The first scheduler step that started a task while another ran here, or
// showed a task waiting for capacity: where --max-parallel 1 decides
// otherwise.
std::optional<scheduler_step> first_step_that_ran_two(const runtime::trace_file& trace) {
  std::set<std::string> running;
  for (const auto& s : scheduler_steps(trace)) {
    if (s.event == "task_ended")
      running.erase(s.edge->body.value("task", ""));
    for (const auto& e : shown_by(s, "task_waiting"))
      if (has_text(e["reason"], "capacity: "))
        return s;
    for (const auto& c : commands_in(s, "start_task")) {
      if (!running.empty())
        return s;
      running.insert(c["spec"].value("name", ""));
    }
  }
  return std::nullopt;
}

TEST(scheduler_replay, one_agent_at_a_time_diverges_at_the_first_pass_that_ran_two) {
  // The run's option changed, in this test only: the replayed scheduler
  // machine runs under --max-parallel 1. Its passes that ran at most one
  // agent and kept no task waiting for capacity decide the same; the first
  // one that did not is where replay diverges.
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto two = first_step_that_ran_two(trace);
  ASSERT_TRUE(two.has_value());
  trace.header.options["max_parallel"] = 1;

  const auto d = first_divergence(trace, *pol);
  EXPECT_LE(d.seq, two->decision_seq);
  EXPECT_EQ(d.edge_kind, "scheduler.event");
  EXPECT_EQ(d.kind, "scheduler.commands");
  int starts = 0;
  for (const auto& c : d.actual["commands"])
    starts += c.value("command", "") == "start_task";
  EXPECT_LE(starts, 1) << d.actual.dump();
}

TEST(scheduler_replay, a_write_set_lost_from_the_scan_diverges_at_that_pass) {
  // The scan the first pass read loses a worker's write set: the machine
  // builds its view from that reading, so the task gets no claim and is
  // shown blocked where the run started it.
  auto trace = load("claim-conflict");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  runtime::trace_record* scan = nullptr;
  for (auto& r : trace.records)
    if (r.kind == "scheduler.event" && r.body.value("event", "") == "scan_read" && !scan)
      for (auto& t : r.body["reading"]["tasks"])
        if (t["write_set_known"] == true) {
          t["write_set"]["paths"] = json::array();
          t["write_set"]["diagnostics"] = json::array(
            {json{{"problem", "no-valid-path"}, {"line", 0}, {"claim", ""},
                  {"message", "the Modified Files Summary claims no valid path"}}});
          t["write_set_known"] = false;
          scan = &r;
          break;
        }
  ASSERT_NE(scan, nullptr);
  // The pass plans on that scan once the archive folders of its first
  // sightings are found: the next event's commands differ.
  const runtime::trace_record* planned = nullptr;
  for (const auto& r : trace.records)
    if (!planned && r.seq > scan->seq && r.kind == "scheduler.event")
      planned = &r;
  ASSERT_NE(planned, nullptr);
  ASSERT_EQ(planned->body.value("event", ""), "archives_found");
  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.cause, planned->seq);
  EXPECT_EQ(d.kind, "scheduler.commands");
  EXPECT_NE(d.actual.dump().find("no valid write set"), std::string::npos) << d.actual.dump();
}

TEST(trace_mutation, a_clock_reading_past_the_reset_time_chooses_a_target_instead) {
  auto trace = load("reset-wait-restart");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto steps = task_steps(trace);
  const task_step* wait = nullptr;
  for (const auto& s : steps)
    if (!shown(s, "supervisor_wait").is_null() &&
        has_text(shown(s, "supervisor_wait")["reason"], "recorded before a restart")) {
      wait = &s;
      break;
    }
  ASSERT_NE(wait, nullptr);
  auto until = commands_named(*wait, "wake_at")[0]["at"].get<int64_t>();
  auto* read = mutable_record_at(trace, wait->edge->seq);
  ASSERT_NE(read, nullptr);
  read->body["now"] = until + 1;

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.cause, read->seq);
  EXPECT_EQ(d.edge_kind, "task.event");
  EXPECT_EQ(d.kind, "task.commands");
  // The recorded wait is not decided again: the replay chooses the target.
  auto actual = d.actual.dump();
  EXPECT_EQ(actual.find("wake_at"), std::string::npos) << actual;
  EXPECT_NE(actual.find("read_for_launch"), std::string::npos) << actual;
}

TEST(trace_mutation, a_second_archive_of_a_vanished_task_makes_reconciliation_an_error) {
  // Reconciliation completes a vanished task only on exactly one new
  // archive folder: with a second one in the archives the machine was
  // given, it reports the ambiguity instead of the completion.
  auto trace = load("restart-reconcile");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* edge = first_record(trace, "scheduler.event", [](const json& b) {
    return b.value("event", "") == "archives_found" && !b["folders"].empty();
  });
  ASSERT_NE(edge, nullptr);
  auto& folders = edge->body["folders"].begin().value();
  auto task = edge->body["folders"].begin().key();
  folders.push_back(folders.front().get<std::string>() + "-again");

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.cause, edge->seq);
  EXPECT_EQ(d.kind, "scheduler.commands");
  EXPECT_TRUE(mentions(d.expected, "complete_orchestration_task")) << d.expected.dump();
  EXPECT_FALSE(mentions(d.actual, "complete_orchestration_task")) << d.actual.dump();
}

TEST(trace_mutation, a_busy_group_is_not_closed) {
  // A task of the first group that closed is still running when the
  // closing pass reads the group: the machine keeps it open (no work log
  // moved) where the run closed it.
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  std::optional<scheduler_step> closing;
  for (const auto& s : scheduler_steps(trace))
    if (!closing && !commands_in(s, "archive_work_logs").empty())
      closing = s;
  ASSERT_TRUE(closing.has_value());
  auto group = commands_in(*closing, "archive_work_logs")[0]["groups"][0].get<std::string>();
  // The last scan read before it holds one more task of that group.
  runtime::trace_record* scan = nullptr;
  for (auto& r : trace.records)
    if (r.seq < closing->edge->seq && r.kind == "scheduler.event" &&
        r.body.value("event", "") == "scan_read")
      scan = &r;
  ASSERT_NE(scan, nullptr);
  // One more task of that group, made from a task the first scan read.
  const auto* first = first_record(trace, "scheduler.event", [](const json& b) {
    return b.value("event", "") == "scan_read" && !b["reading"]["tasks"].empty();
  });
  ASSERT_NE(first, nullptr);
  auto extra = first->body["reading"]["tasks"][0];
  extra["name"] = group + "/99_late";
  scan->body["reading"]["tasks"].push_back(extra);
  scan->body["reading"]["changed"].push_back(group + "/99_late");

  const auto d = first_divergence(trace, *pol);
  EXPECT_LE(d.seq, closing->decision_seq);
  EXPECT_EQ(d.kind, "scheduler.commands");
  EXPECT_FALSE(mentions(d.actual, "archive_work_logs")) << d.actual.dump();
}

TEST(scheduler_replay, a_task_unblocked_in_the_state_it_read_is_not_cleared_by_retry_blocked) {
  // The state snapshot the scheduler read at start-up holds the task
  // unblocked: the replayed --retry-blocked start-up clears nothing for it.
  auto trace = load("retry-blocked");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* snapshot = first_record(trace, "scheduler.event", [](const json& b) {
    return b.value("event", "") == "state_snapshot";
  });
  ASSERT_NE(snapshot, nullptr);
  ASSERT_EQ(snapshot->body["state"]["tasks"]["grp01/01_t0001"].erase("blocked"), 1u);

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.kind, "scheduler.commands");
  EXPECT_TRUE(mentions(d.expected, "clear_blocked")) << d.expected.dump();
  EXPECT_FALSE(mentions(d.actual, "clear_blocked")) << d.actual.dump();
}

TEST(scheduler_replay, a_task_end_that_never_reached_the_scheduler_keeps_it_waiting) {
  // Without the recorded task_ended the replayed machine still follows the
  // task: the first later event it decides otherwise on is where replay
  // reports the difference.
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* ended = first_record(trace, "scheduler.event", [](const json& b) {
    return b.value("event", "") == "task_ended";
  });
  ASSERT_NE(ended, nullptr);
  auto at = ended->seq;
  std::erase_if(trace.records, [at](const runtime::trace_record& r) {
    return r.seq == at || (r.kind == "scheduler.commands" && r.cause == at);
  });
  const auto d = first_divergence(trace, *pol);
  EXPECT_GT(d.seq, at);
  EXPECT_EQ(d.kind, "scheduler.commands");
}

TEST(scheduler_replay, a_refused_change_ends_the_run_as_the_replayed_scheduler_decides) {
  // clean, with the store's answer to the first pass's changes an error
  // and the trace cut there: the replayed machine starts nothing, ends the
  // run at once and decides exit 2 naming the refusal, where the recorded
  // answer started the admitted tasks.
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* applied = first_record(trace, "scheduler.event", [](const json& b) {
    return b.value("event", "") == "state_applied";
  });
  ASSERT_NE(applied, nullptr);
  auto at = applied->seq;
  applied->body = json{{"event", "request_failed"},
                       {"now", applied->body["now"]},
                       {"peer", "state store"},
                       {"error", "system_error(request_timeout)"}};
  std::erase_if(trace.records, [at](const runtime::trace_record& r) {
    return r.seq > at && !(r.kind == "scheduler.commands" && r.cause == at);
  });

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.cause, at);
  EXPECT_EQ(d.kind, "scheduler.commands");
  auto actual = d.actual.dump();
  EXPECT_NE(actual.find("\"exit_code\":2"), std::string::npos) << actual;
  EXPECT_NE(actual.find("state store refused a change: system_error(request_timeout)"),
            std::string::npos)
    << actual;
  EXPECT_EQ(actual.find("start_task"), std::string::npos) << actual;
}

// Removes the edge `seq` and the decisions it caused.
void erase_edge(runtime::trace_file& t, int64_t seq) {
  std::erase_if(t.records, [seq](const runtime::trace_record& r) {
    return r.seq == seq || (r.dir == runtime::trace_direction::decision && r.cause == seq);
  });
}

TEST(task_machine_replay, an_answer_missing_from_the_trace_diverges_at_the_tasks_next_event) {
  // Each task's events go to its own machine: without the answer that made
  // an attempt start durable, the machine still waits for it when the
  // attempt's end comes, and does nothing where the trace shows the end
  // handled.
  auto trace = load("tactical");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto steps = task_steps(trace);
  const task_step* launch = nullptr;
  for (const auto& s : steps)
    if (has_command(s, "start_attempt")) {
      launch = &s;
      break;
    }
  ASSERT_NE(launch, nullptr);
  ASSERT_EQ(launch->event, "durable");
  auto task = launch->task;
  auto seq = launch->edge->seq;
  const task_step* next = nullptr;
  for (const auto& s : steps)
    if (s.task == task && s.edge->seq > seq) {
      next = &s;
      break;
    }
  ASSERT_NE(next, nullptr);
  auto next_seq = next->edge->seq;
  erase_edge(trace, seq);

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.cause, next_seq);
  EXPECT_EQ(d.kind, "task.commands");
  EXPECT_TRUE(d.actual["commands"].empty()) << d.actual.dump();
}

TEST(task_machine_replay, a_stop_that_never_came_leaves_the_attempt_to_the_supervisor) {
  // Without the stop, the machine takes its agent's end as a failure and
  // reads what the supervisor needs, where the trace shows the cancelled
  // end: the divergence is at that attempt's end.
  auto trace = load("interrupted");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto steps = task_steps(trace);
  const task_step* stop = nullptr;
  for (const auto& s : steps)
    if (s.event == "stop" && has_command(s, "cancel_attempt")) {
      stop = &s;
      break;
    }
  ASSERT_NE(stop, nullptr);
  auto task = stop->task;
  auto seq = stop->edge->seq;
  int64_t ended = 0;
  for (const auto& s : steps)
    if (s.task == task && s.edge->seq > seq && s.event == "attempt_finished") {
      ended = s.edge->seq;
      break;
    }
  ASSERT_GT(ended, 0);
  erase_edge(trace, seq);

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.cause, ended);
  EXPECT_EQ(d.kind, "task.commands");
  EXPECT_NE(d.expected.dump().find("\"cancelled\""), std::string::npos) << d.expected.dump();
  EXPECT_NE(d.actual.dump().find("read_after_attempt"), std::string::npos) << d.actual.dump();
}

TEST(task_machine_replay, a_cancelled_end_comes_from_the_stop_the_machine_received) {
  // The recorded result's status is what the attempt reported, not why the
  // task ends: the machine ends cancelled because it was stopped, so a
  // status changed in the trace changes nothing.
  auto trace = load("interrupted");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto steps = task_steps(trace);
  std::string stopped;
  int64_t finished_seq = 0;
  for (const auto& s : steps) {
    if (s.event == "stop" && has_command(s, "cancel_attempt") && stopped.empty())
      stopped = s.task;
    if (!stopped.empty() && s.task == stopped && s.event == "attempt_finished") {
      finished_seq = s.edge->seq;
      break;
    }
  }
  ASSERT_GT(finished_seq, 0);
  auto* finished = mutable_record_at(trace, finished_seq);
  ASSERT_NE(finished, nullptr);
  finished->body["result"]["status"] = "succeeded";
  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  EXPECT_FALSE(report->divergence) << runtime::render_divergence(*report->divergence);
}

// budget-block cut after the task made its first retry step (a delay)
// durable, with a stop that reached the task while that step was made
// durable and the answer after it: the run's last records.
runtime::trace_file stopped_while_busy() {
  auto trace = load("budget-block");
  auto steps = task_steps(trace);
  const task_step* decided = nullptr;
  for (const auto& s : steps)
    if (s.event == "supervisor_decided" && s.body["step"].value("step", "") == "retry_same" &&
        s.body["step"].value("delay_ms", 0) > 0 && has_command(s, "make_durable")) {
      decided = &s;
      break;
    }
  EXPECT_NE(decided, nullptr);
  if (!decided)
    return trace;
  auto task = decided->task;
  auto now = decided->now;
  auto target = decided->body["step"].value("target", "");
  auto last = decided->decision_seq;
  // The step's tactical analysis goes to the debug log first.
  json commands = json::array({json{{"command", "checkpoint"}, {"name", "after-decision"}}});
  for (const auto& e : decided->body["events"])
    commands.push_back(json{{"command", "note"},
                            {"text", "tactical " + task + " worker: " + runtime::dump_json(e)}});
  commands.push_back(json{{"command", "show"},
                          {"event", {{"event", "task_failed"},
                                     {"time", runtime::format_utc_iso(now)},
                                     {"task", task},
                                     {"stage", "worker"},
                                     {"reason", "retry_same on " + target}}}});
  commands.push_back(json{{"command", "end_task"}, {"outcome", "cancelled"},
                          {"reason", "stopped by shutdown"}, {"pause_ms", 0}});
  std::erase_if(trace.records, [last](const runtime::trace_record& r) { return r.seq > last; });
  auto event = [&](int64_t seq, const char* name) {
    trace.records.push_back({seq, runtime::trace_direction::edge, "task.event", 0,
                             json{{"event", name}, {"task", task}, {"now", now}}});
  };
  event(last + 1, "stop");
  trace.records.push_back({last + 2, runtime::trace_direction::decision, "task.commands",
                           last + 1, json{{"task", task}, {"commands", json::array()}}});
  event(last + 3, "durable");
  trace.records.push_back(
    {last + 4, runtime::trace_direction::decision, "task.commands", last + 3,
     json{{"task", task}, {"commands", std::move(commands)}}});
  return trace;
}

TEST(task_machine_replay, a_stop_while_a_step_is_made_durable_ends_the_task_before_its_delay) {
  // The task ends as soon as the step is durable; it does not wait out the
  // retry delay (a shutdown would wait that long) to see the stop at its
  // next launch.
  auto trace = stopped_while_busy();
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  EXPECT_FALSE(report->divergence) << runtime::render_divergence(*report->divergence);

  // The end is compared: another recorded reason diverges there.
  trace.records.back().body["commands"].back()["reason"] = "stopped later";
  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, trace.records.back().seq);
  EXPECT_EQ(d.cause, trace.records.back().cause);
  EXPECT_EQ(d.actual["commands"].back()["reason"], "stopped by shutdown");
}

// budget-block cut before its first supervisor.failure: the supervisor
// answered the task with an error (a request timeout, as CAF renders it),
// and the task ended on it.
runtime::trace_file supervisor_error_reply() {
  auto trace = load("budget-block");
  auto steps = task_steps(trace);
  const task_step* ask = nullptr;
  for (const auto& s : steps)
    if (has_command(s, "ask_supervisor")) {
      ask = &s;
      break;
    }
  EXPECT_NE(ask, nullptr);
  if (!ask)
    return trace;
  auto task = ask->task;
  auto at = ask->decision_seq + 1;
  std::erase_if(trace.records, [at](const runtime::trace_record& r) { return r.seq >= at; });
  trace.records.push_back({at, runtime::trace_direction::edge, "task.event", 0,
                           json{{"event", "request_failed"}, {"task", task}, {"now", ask->now},
                                {"peer", "supervisor"},
                                {"error", "system_error(request_timeout)"}}});
  trace.records.push_back(
    {at + 1, runtime::trace_direction::decision, "task.commands", at,
     json{{"task", task},
          {"commands", json::array({json{{"command", "end_task"}, {"outcome", "error"},
                                         {"reason", "supervisor: system_error(request_timeout)"},
                                         {"pause_ms", 0}}})}}});
  return trace;
}

TEST(task_machine_replay, an_error_reply_ends_the_task_as_recorded) {
  auto trace = supervisor_error_reply();
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  EXPECT_FALSE(report->divergence) << runtime::render_divergence(*report->divergence);
  // Another recorded error text: the end names it, not the recorded end's.
  trace.records[trace.records.size() - 2].body["error"] = "ad::timeout";
  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, trace.records.back().seq);
  EXPECT_EQ(d.edge_kind, "task.event");
  EXPECT_EQ(d.actual["commands"][0]["reason"], "supervisor: ad::timeout");
}

TEST(trace_corpus_cover, a_crashed_run_leaves_its_trace_up_to_the_crash) {
  // reset-wait-crash: the dispatcher died right after the supervisor's
  // reset wait was durable (AD_TEST_CRASH_AT=after-decision, _exit). Every
  // record up to that point is in the trace; the run never ended.
  auto t = load("reset-wait-crash");
  ASSERT_FALSE(t.records.empty());
  for (const auto& r : t.records)
    EXPECT_FALSE(runtime::ends_run(r)) << r.seq;
  // The task machine's last commands: the durable step, then the
  // checkpoint the crash took.
  const auto& last = t.records.back();
  ASSERT_EQ(last.kind, "task.commands");
  ASSERT_FALSE(last.body["commands"].empty());
  EXPECT_EQ(last.body["commands"][0]["command"], "checkpoint");
  EXPECT_EQ(last.body["commands"][0]["name"], "after-decision");
  EXPECT_NE(first_record(t, "supervisor.step",
                         [](const json& b) { return b["step"] == "wait_until"; }),
            nullptr);
  EXPECT_FALSE(launches_of(t).empty());
}

TEST(trace_corpus_cover, every_trace_cut_short_replays_what_it_holds) {
  // A run that crashes leaves its trace up to the crash. Cut anywhere, each
  // corpus trace replays identically: the actors' lifetimes and requests
  // past the cut stay open, and the decisions the cut took are not missed.
  for (const auto& [name, whole] : load_corpus()) {
    auto pol = recorded_policy(whole);
    ASSERT_TRUE(pol.is_ok()) << name;
    const auto n = whole.records.size();
    for (std::size_t k : {n / 5, 2 * n / 5, 3 * n / 5, 4 * n / 5, n - 1}) {
      if (k == 0)
        continue;
      auto cut = whole;
      cut.records.resize(k);
      auto report = replay_recorded_run(cut, *pol);
      ASSERT_TRUE(report.is_ok()) << name << " cut at " << k << ": " << report.error().message();
      EXPECT_FALSE(report->divergence)
        << name << " cut at " << k << ":\n" << runtime::render_divergence(*report->divergence);
    }
  }
}

TEST(trace_corpus_cover, a_trace_cut_between_a_supervisor_request_and_its_step_replays) {
  // A crash right after the supervisor recorded a failure it was asked
  // about, before its step was written: the trace ends with that
  // supervisor.failure edge and whatever other actors recorded after it
  // (in reset-wait-crash, a publication the scheduler handled). The task
  // actor's request stays open, as it was when the run died, and the
  // supervisor's step is not missed: nothing is a difference.
  for (const auto& name : {"budget-block", "reset-wait-crash"}) {
    auto trace = load(name);
    auto pol = recorded_policy(trace);
    ASSERT_TRUE(pol.is_ok());
    const auto* failure =
      first_record(trace, "supervisor.failure", [](const json&) { return true; });
    ASSERT_NE(failure, nullptr) << name;
    auto at = failure->seq;
    const auto* step = first_record(trace, "supervisor.step",
                                    [](const json&) { return true; });
    ASSERT_NE(step, nullptr) << name;
    ASSERT_EQ(step->cause, at) << name;
    auto cut = step->seq;
    std::erase_if(trace.records, [cut](const runtime::trace_record& r) { return r.seq >= cut; });
    auto report = replay_recorded_run(trace, *pol);
    ASSERT_TRUE(report.is_ok()) << report.error().message();
    EXPECT_FALSE(report->divergence)
      << name << ":\n" << runtime::render_divergence(*report->divergence);
  }
}

TEST(trace_mutation, a_longer_stall_limit_does_not_stop_the_silent_agent) {
  auto trace = load("stall");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* stall = first_record(trace, "attempt.silence_due",
                             [](const json& b) { return b["stall"] == true; });
  ASSERT_NE(stall, nullptr);
  auto identity = stall->body["attempt"];
  auto* follow = first_record(trace, "attempt.follow",
                              [&](const json& b) { return b["attempt"] == identity; });
  ASSERT_NE(follow, nullptr);
  follow->body["stall_limit_ms"] = 60'000;

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, stall->seq);
  EXPECT_EQ(d.edge_kind, "attempt.silence");
  EXPECT_EQ(d.expected["stall"], true);
  EXPECT_EQ(d.actual["stall"], false);
}

TEST(trace_mutation, a_pi_tool_call_that_never_ran_is_inspected_when_due) {
  // Replay reads whether a tool runs from the fed pi phases: with the
  // tool-running report recorded as awaiting-model, the deferred
  // inspection is due at the 2 s check.
  auto trace = load("pi-tool-stall");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  auto* running = first_record(trace, "attempt.phase",
                               [](const json& b) { return b["phase"] == "tool-running"; });
  ASSERT_NE(running, nullptr);
  auto identity = running->body["attempt"];
  running->body["phase"] = "awaiting-model";
  auto* due = first_record(trace, "attempt.silence_due", [&](const json& b) {
    return b["attempt"] == identity && b["silent_ms"].get<int64_t>() >= 2'000;
  });
  ASSERT_NE(due, nullptr);

  const auto d = first_divergence(trace, *pol);
  EXPECT_EQ(d.seq, due->seq);
  EXPECT_EQ(d.edge_kind, "attempt.silence");
  EXPECT_EQ(d.expected["tools"], "running");
  EXPECT_EQ(d.actual["tools"], "idle");
  EXPECT_EQ(d.expected["inspect"], false);
  EXPECT_EQ(d.actual["inspect"], true);
}

// A value of another JSON type than v.
json other_type(const json& v) {
  if (v.is_string())
    return 5;
  if (v.is_number() || v.is_boolean() || v.is_null())
    return "x";
  if (v.is_object())
    return json::array({1});
  return json::object();
}

TEST(trace_mutation, a_member_of_the_wrong_type_is_an_error_in_plain_words) {
  // For the first record of every kind, each of its first members in turn
  // gets a value of another type: replay reports a divergence or an error,
  // and no message shows a JSON library's internal tag.
  auto whole = load("failure-classes");
  auto pol = recorded_policy(whole);
  ASSERT_TRUE(pol.is_ok());
  std::set<std::string> kinds;
  int mutated = 0, errors = 0;
  for (std::size_t i = 0; i < whole.records.size(); ++i) {
    const auto& r = whole.records[i];
    if (!kinds.insert(r.kind).second || !r.body.is_object())
      continue;
    int members = 0;
    for (const auto& [key, value] : r.body.items()) {
      if (++members > 3) // a few members of each kind keep the test fast
        break;
      auto trace = whole;
      // The damaged record last, with the decision it caused when that came
      // right after it (an edge cut from its decision may have lost it, and
      // is not compared): nothing after it is compared.
      bool answered = i + 1 < whole.records.size() &&
                      whole.records[i + 1].dir == runtime::trace_direction::decision &&
                      whole.records[i + 1].cause == r.seq;
      trace.records.resize(answered ? i + 2 : i + 1);
      trace.records[i].body[key] = other_type(value);
      auto report = replay_recorded_run(trace, *pol);
      ++mutated;
      if (!report.is_ok()) {
        EXPECT_EQ(report.error().message().find("json.exception"), std::string::npos)
          << r.kind << "." << key << ": " << report.error().message();
        continue;
      }
      if (report->divergence && report->divergence->actual.is_object() &&
          report->divergence->actual.contains("error")) {
        ++errors;
        auto text = report->divergence->actual["error"].dump();
        EXPECT_EQ(text.find("json.exception"), std::string::npos) << r.kind << "." << key << ": "
                                                                  << text;
      }
    }
  }
  EXPECT_GT(mutated, 25);
  EXPECT_GT(errors, 5) << "damaged records should be reported as errors";
}

TEST(trace_replay_zone, the_zone_comes_from_the_trace_not_this_machine) {
  auto trace = load("clean");
  ASSERT_NE(trace.header.time_zone, "UTC"); // a zone that needs its data
  ASSERT_EQ(trace.header.time_zone_tzif.rfind("TZif", 0), 0u);
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  ASSERT_TRUE(replay_recorded_run(trace, *pol).is_ok());
  // Damaged zone data in the trace fails the replay even though this
  // machine has the zone: the machine's tz database is not read.
  trace.header.time_zone_tzif = "TZif but nothing else";
  auto broken = replay_recorded_run(trace, *pol);
  ASSERT_FALSE(broken.is_ok());
  EXPECT_NE(broken.error().message().find("time zone"), std::string::npos)
    << broken.error().message();
}

} // namespace
} // namespace ad::tools
