// The claim watcher on CAF's deterministic scheduler, with stand-ins for the
// state store, the output actor and the scheduler, over a real workspace on
// tmpfs. The test plays the attempt side: it sends attempt_watch_begin and
// attempt_watch_end around writes, made directly (snapshot mode needs no
// writer) or by child processes carrying a marker (fanotify names them).
// The fanotify cases fail with the kernel's reason where fanotify is
// refused; none is skipped.

#include "actors/claims/claim_watcher.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "messages/types.hpp"
#include "runtime/core/files.hpp"
#include "runtime/worklog/work_log.hpp"
#include "tests/runtime/claims/claims_fixtures.hpp"

namespace ad::actors {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct test_config : caf::actor_system_config {
  test_config() {
    set("scheduler.policy", caf::atom("testing"));
    messages::register_message_types(*this);
  }
};

// What the stand-ins saw.
struct seen {
  std::vector<runtime::state_change> applied;
  std::vector<runtime::run_event> events;
  std::vector<messages::claim_violation_noted> notes;
  std::vector<std::string> ended; // violating_attempt_ended
  runtime::state_model model;
};

caf::behavior stand_in_store(caf::event_based_actor*, std::shared_ptr<seen> s) {
  return {
    [s](const messages::apply_state_changes& req) {
      for (const auto& c : req.changes) {
        (void) runtime::apply_change(s->model, c);
        s->applied.push_back(c);
      }
      return messages::state_changes_applied{s->applied.size(), {}};
    },
    [s](const messages::get_claims&) {
      messages::claims_reply r;
      for (const auto& [owner, c] : s->model.claims)
        r.claims.push_back({owner, c.kind == runtime::claim_kind::exclusive,
                            std::vector<std::string>(c.paths.begin(), c.paths.end())});
      return r;
    },
  };
}

caf::behavior stand_in_output(caf::event_based_actor*, std::shared_ptr<seen> s) {
  return {[s](const runtime::run_event& e) { s->events.push_back(e); }};
}

caf::behavior stand_in_scheduler(caf::event_based_actor*, std::shared_ptr<seen> s) {
  return {
    [s](const messages::claim_violation_noted& n) { s->notes.push_back(n); },
    [s](const messages::violating_attempt_ended& e) { s->ended.push_back(e.attempt); },
  };
}

// Asks the watcher how it watches, then quits.
caf::behavior ask_watcher(caf::event_based_actor* self, messages::claim_watcher_actor watcher,
                          std::shared_ptr<std::optional<messages::claim_watch_info>> got) {
  self->request(watcher, std::chrono::seconds(5), messages::claim_watch_query{})
    .then([self, got](const messages::claim_watch_info& i) {
      *got = i;
      self->quit();
    });
  return {[](int) {}};
}

runtime::millis now_ms() { return runtime::system_clock().now(); }

std::vector<runtime::record_claim_violation> records(const seen& s) {
  std::vector<runtime::record_claim_violation> out;
  for (const auto& c : s.applied)
    if (const auto* r = std::get_if<runtime::record_claim_violation>(&c))
      out.push_back(*r);
  return out;
}

class claim_watcher_test : public ::testing::Test {
protected:
  claim_watcher_test()
      : sys(cfg), sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    ws = dir.path() / "ws";
    fs::create_directories(ws / "src");
    fs::create_directories(ws / ".git" / "agent-dispatch" / "runs");
    a_cpp = (ws / "src/a.cpp").string();
    b_cpp = (ws / "src/b.cpp").string();
    readme = (ws / "README.md").string();
    test::put_file(a_cpp, "a\n");
    test::put_file(b_cpp, "b\n");
    test::put_file(readme, "readme\n");
    // g/02_b holds a claim on README: it is named as the other task.
    record->model.claims["g/02_b"] = {runtime::claim_kind::paths, {readme, b_cpp}};
  }

  ~claim_watcher_test() override {
    for (const auto& a : {caf::actor_cast<caf::actor>(watcher), store, out, listener})
      if (a)
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    sched.run();
  }

  // Every pending message, without firing timers.
  void drain_jobs() {
    while (sched.try_run_once()) {
    }
  }

  void start(runtime::violation_action action, runtime::claim_watch_mode mode) {
    store = sys.spawn(stand_in_store, record);
    out = sys.spawn(stand_in_output, record);
    listener = sys.spawn(stand_in_scheduler, record);
    claim_watcher_config c;
    c.workspace = ws.string();
    c.state_root = (ws / ".git" / "agent-dispatch").string();
    c.runs_dir = (ws / ".git" / "agent-dispatch" / "runs").string();
    c.policy = {action, mode};
    c.store = caf::actor_cast<messages::state_store_actor>(store);
    c.out = caf::actor_cast<messages::output_actor>(out);
    c.clock = std::make_shared<runtime::system_clock>();
    // Created files are judged at once here; the settle time is
    // claim_monitor's (tested there) and e2e's (claims_run_test).
    c.settle = std::chrono::milliseconds(0);
    watcher = sys.spawn(claim_watcher_impl, std::move(c));
    caf::anon_send(watcher, messages::claim_listener_set{
                              caf::actor_cast<messages::claim_violation_listener>(listener)});
    drain_jobs();
  }

  messages::claim_watch_info info() {
    auto got = std::make_shared<std::optional<messages::claim_watch_info>>();
    sys.spawn(ask_watcher, watcher, got);
    drain_jobs();
    EXPECT_TRUE(got->has_value());
    return got->value_or(messages::claim_watch_info{});
  }

  void begin(const std::string& task, const std::string& identity, std::vector<std::string> claim,
             int pid = 0) {
    caf::anon_send(watcher, messages::attempt_watch_begin{task, identity, "m-" + identity, pid,
                                                          std::move(claim), now_ms()});
    drain_jobs();
  }

  void end(const std::string& identity) {
    caf::anon_send(watcher, messages::attempt_watch_end{identity, now_ms()});
    drain_jobs();
  }

  // The fanotify drain timer fires once.
  void tick() {
    sched.advance_time(200ms);
    drain_jobs();
  }

  // Writes into every folder that is never a violation.
  void write_exempt_files() {
    test::put_file(ws / ".claude/projects/s.jsonl", "{}\n");
    test::put_file(ws / ".codex/sessions/x.jsonl", "{}\n");
    test::put_file(ws / ".pi/sessions/y.jsonl", "{}\n");
    test::put_file(ws / "agent-task/g/01_a/NOTES.md", "n\n");
    test::put_file(ws / ".git/config", "[core]\n");
    test::put_file(ws / ".git/agent-dispatch/runs/r/stream.log", "x\n");
  }

  std::string work_log(const std::string& group) {
    auto text = runtime::read_file(ws / "agent-task" / group / "WORK_LOG.md", 1 << 20);
    return text ? *text : "";
  }

  test::scratch_dir dir;
  fs::path ws;
  std::string a_cpp, b_cpp, readme;
  test_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::shared_ptr<seen> record = std::make_shared<seen>();
  caf::actor store, out, listener;
  messages::claim_watcher_actor watcher;
};

TEST_F(claim_watcher_test, forced_snapshots_report_a_write_outside_the_claim_by_elimination) {
  start(runtime::violation_action::warn, runtime::claim_watch_mode::snapshots);
  auto i = info();
  EXPECT_EQ(i.mode, "snapshots");
  EXPECT_NE(i.note.find("snapshots_only"), std::string::npos) << i.note;

  const std::string id = "g_01_a__p1__worker__a01";
  auto locator = ws / ".git/agent-dispatch/runs" / ("20270115T080000Z__" + id) / "locator.json";
  test::put_file(locator, "{}");
  begin("g/01_a", id, {a_cpp});
  EXPECT_EQ(info().running, 1);
  test::put_file(a_cpp, "mine\n");
  test::put_file(readme, "not mine\n");
  write_exempt_files();
  end(id);

  auto recs = records(*record);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].task, "g/01_a");
  EXPECT_EQ(recs[0].attempt, id);
  EXPECT_EQ(recs[0].path, readme);
  EXPECT_EQ(recs[0].other_task, "g/02_b");
  EXPECT_EQ(recs[0].attribution, "elimination");
  EXPECT_EQ(recs[0].action, "warn");
  ASSERT_EQ(record->model.claim_violations.size(), 1u);

  ASSERT_EQ(record->events.size(), 1u);
  const auto& e = record->events[0];
  EXPECT_EQ(e.kind, runtime::run_event_kind::claim_violation);
  EXPECT_EQ(e.task, "g/01_a");
  EXPECT_EQ(e.identity, id);
  EXPECT_EQ(e.path, readme);
  EXPECT_EQ(e.other_task, "g/02_b");
  EXPECT_EQ(e.attribution, "elimination");

  // The attempt ended before the verdict: nothing holds admission back.
  ASSERT_EQ(record->notes.size(), 1u);
  EXPECT_EQ(record->notes[0].path, readme);
  EXPECT_TRUE(record->notes[0].live.empty());
  EXPECT_TRUE(record->notes[0].stop_task.empty());
  EXPECT_TRUE(record->ended.empty());

  auto log = runtime::parse_work_log(work_log("g"));
  ASSERT_EQ(log.rows.size(), 1u) << work_log("g");
  EXPECT_EQ(log.rows[0].event, "CLAIM");
  EXPECT_EQ(log.rows[0].task, "g/01_a");
  EXPECT_EQ(log.rows[0].role, "worker");
  EXPECT_EQ(log.rows[0].attempt, 1);
  EXPECT_EQ(log.rows[0].result, readme);
  EXPECT_EQ(log.rows[0].locator, locator.string());
}

TEST_F(claim_watcher_test, forced_snapshots_under_block_block_the_writer_and_name_the_task_to_stop) {
  start(runtime::violation_action::block, runtime::claim_watch_mode::snapshots);
  const std::string id = "g_01_a__p1__worker__a01";
  begin("g/01_a", id, {a_cpp});
  test::put_file(ws / "Makefile", "all:\n");
  end(id);
  ASSERT_EQ(record->notes.size(), 1u);
  const auto& n = record->notes[0];
  EXPECT_EQ(n.stop_task, "g/01_a");
  EXPECT_NE(n.reason.find((ws / "Makefile").string()), std::string::npos) << n.reason;
  bool blocked = false;
  for (const auto& c : record->applied)
    if (const auto* b = std::get_if<runtime::set_blocked>(&c))
      blocked = b->task == "g/01_a" && b->info.reason == n.reason;
  EXPECT_TRUE(blocked);
  ASSERT_EQ(record->events.size(), 1u);
  EXPECT_EQ(record->events[0].action, "block");
}

TEST_F(claim_watcher_test, overlapping_attempts_name_the_candidates_and_the_one_still_running_holds) {
  start(runtime::violation_action::block, runtime::claim_watch_mode::snapshots);
  const std::string a = "g_01_a__p1__worker__a01", c = "g_03_c__p1__worker__a01";
  begin("g/01_a", a, {a_cpp});
  begin("g/03_c", c, {(ws / "src/c.cpp").string()});
  test::put_file(ws / "CHANGELOG", "x\n");
  end(a);
  auto recs = records(*record);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].attribution, "candidates");
  EXPECT_EQ(recs[0].candidates, (std::vector<std::string>{a, c}));
  EXPECT_EQ(recs[0].action, "warn"); // no single writer to block
  ASSERT_EQ(record->notes.size(), 1u);
  EXPECT_TRUE(record->notes[0].stop_task.empty());
  EXPECT_EQ(record->notes[0].live,
            (std::vector<runtime::live_violation>{{(ws / "CHANGELOG").string(), c, "g/03_c"}}));
  // c's own window sees the change again: it was judged already.
  end(c);
  EXPECT_EQ(records(*record).size(), 1u);
  EXPECT_EQ(record->ended, std::vector<std::string>{c});
  // Both candidates' group logs got a row.
  EXPECT_NE(work_log("g").find("CLAIM"), std::string::npos);
  EXPECT_EQ(runtime::parse_work_log(work_log("g")).rows.size(), 2u);
}

TEST_F(claim_watcher_test, fanotify_names_the_marked_writer_and_holds_claimers_until_it_ends) {
  start(runtime::violation_action::warn, runtime::claim_watch_mode::automatic);
  auto i = info();
  ASSERT_EQ(i.mode, "fanotify") << "fanotify refused here, so this case cannot run: " << i.note;

  const std::string id = "g_01_a__p1__worker__a01";
  begin("g/01_a", id, {a_cpp});
  // The agent writes its claimed file, README, and its session and task folders.
  std::string script = R"(printf x > "$1/src/a.cpp" && printf y > "$1/README.md" && )"
                       R"(mkdir -p "$1/.claude" "$1/agent-task/g/01_a" && )"
                       R"(printf s > "$1/.claude/s.jsonl" && printf n > "$1/agent-task/g/01_a/N.md" )"
                       R"(&& echo done && read _)";
  test::held_shell agent(script, {ws.string()}, test::child_env("m-" + id));
  ASSERT_EQ(agent.wait_line(), "done");
  write_exempt_files(); // the dispatcher's own writes: never reported
  tick();

  auto recs = records(*record);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].path, readme);
  EXPECT_EQ(recs[0].attribution, "fanotify");
  EXPECT_EQ(recs[0].attempt, id);
  EXPECT_EQ(recs[0].other_task, "g/02_b");
  ASSERT_EQ(record->notes.size(), 1u);
  // It still runs: g/02_b (README's claimer) must wait for it.
  EXPECT_EQ(record->notes[0].live,
            (std::vector<runtime::live_violation>{{readme, id, "g/01_a"}}));
  ASSERT_EQ(record->events.size(), 1u);
  EXPECT_EQ(record->events[0].attribution, "fanotify");

  // More writes of the same path are no news.
  test::put_file(readme, "again\n"); // by the dispatcher's process: not an agent
  tick();
  EXPECT_EQ(records(*record).size(), 1u);

  agent.release();
  end(id);
  EXPECT_EQ(record->ended, std::vector<std::string>{id});
  EXPECT_EQ(info().running, 0);
}

TEST_F(claim_watcher_test, fanotify_keeps_an_agents_writes_made_before_its_begin_arrived) {
  start(runtime::violation_action::warn, runtime::claim_watch_mode::automatic);
  auto i = info();
  ASSERT_EQ(i.mode, "fanotify") << "fanotify refused here, so this case cannot run: " << i.note;
  const std::string id = "g_01_a__p1__worker__a01";
  // The agent writes at once; the attempt side's begin (with its pid)
  // arrives afterwards. An unmarked write queued meanwhile is not its.
  test::held_shell agent(R"(printf y > "$1" && echo done && read _)", {readme},
                         test::child_env("m-" + id));
  ASSERT_EQ(agent.wait_line(), "done");
  test::held_shell tool(R"(printf z > "$1" && echo done && read _)", {b_cpp}, test::child_env(""));
  ASSERT_EQ(tool.wait_line(), "done");
  begin("g/01_a", id, {a_cpp}, agent.pid());
  auto recs = records(*record);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].path, readme);
  EXPECT_EQ(recs[0].attribution, "fanotify");
  tool.release();
  agent.release();
  end(id);
  EXPECT_EQ(records(*record).size(), 1u);
}

TEST_F(claim_watcher_test, fanotify_judges_an_unmarked_write_by_elimination_while_one_agent_runs) {
  start(runtime::violation_action::warn, runtime::claim_watch_mode::automatic);
  auto i = info();
  ASSERT_EQ(i.mode, "fanotify") << "fanotify refused here, so this case cannot run: " << i.note;
  const std::string id = "g_01_a__p1__worker__a01";
  begin("g/01_a", id, {a_cpp});
  // A writer without any marker (a tool that cleared its environment).
  test::held_shell tool(R"(printf z > "$1" && echo done && read _)", {b_cpp}, test::child_env(""));
  ASSERT_EQ(tool.wait_line(), "done");
  tick();
  auto recs = records(*record);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].path, b_cpp);
  EXPECT_EQ(recs[0].attribution, "elimination");
  EXPECT_EQ(recs[0].task, "g/01_a");
  tool.release();
  end(id);
}

} // namespace
} // namespace ad::actors
