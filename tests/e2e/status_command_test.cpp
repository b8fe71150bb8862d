// End-to-end: `agent-dispatch status` against a workspace and a durable state
// prepared here: it shows stages, attempts, target, budget used and the live
// attempt with its locator while the state lock is held by another owner,
// turns stale when the agent dies, reads a journal with an append in flight
// without touching it, and writes nothing.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/proc_stat.hpp"
#include "runtime/run/run_views.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/lock.hpp"
#include "runtime/state/root.hpp"
#include "runtime/workspace/task_scan.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_lines.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;
using runtime::json;

const std::string task_name = "alpha/02+01_ready";

const json* find_task(const std::vector<json>& lines, const std::string& name) {
  for (const auto& j : lines)
    if (j.value("event", "") == "task" && j.value("task", "") == name)
      return &j;
  return nullptr;
}

class status_e2e : public ::testing::Test {
protected:
  void SetUp() override {
    ws_ = dir_.path() / "ws";
    fs::copy(source_dir() / "tests/fixtures/workspace/basic", ws_, fs::copy_options::recursive);
    fs::create_directories(ws_ / ".git");  // the state root becomes ws/.git/agent-dispatch
    auto id = runtime::identify_workspace(ws_);
    ASSERT_TRUE(id) << id.error().to_string();
    identity_ = *id;
    root_ = fs::path(identity_.path) / ".git" / "agent-dispatch";
  }

  void TearDown() override {
    if (agent_pid_ > 0) {
      kill(agent_pid_, SIGKILL);
      waitpid(agent_pid_, nullptr, 0);
    }
  }

  // A stand-in agent process: `sleep 60` in its own process group.
  void start_agent() {
    agent_pid_ = fork();
    if (agent_pid_ == 0) {
      setpgid(0, 0);
      execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
      _exit(127);
    }
    ASSERT_GT(agent_pid_, 0);
  }

  void stop_agent() {
    kill(agent_pid_, SIGKILL);
    waitpid(agent_pid_, nullptr, 0);
    agent_pid_ = -1;
  }

  // Durable state: the task's worker attempt 2 is active (locator written
  // with the agent's pid), one failure counted, decided target "sim-a".
  void prepare_state() {
    auto scan = runtime::scan_workspace(ws_);
    ASSERT_TRUE(scan) << scan.error().to_string();
    const runtime::scanned_task* task = nullptr;
    for (const auto& t : scan->tasks)
      if (t.name == task_name)
        task = &t;
    ASSERT_NE(task, nullptr);
    auto work_unit = runtime::work_unit_of(*task);
    auto plan = runtime::plan_number_of(*task);

    locator_ = root_ / "runs" / "20270115T080000Z__alpha_02_ready__worker__a02" / "locator.json";
    auto token = runtime::process_start_token(agent_pid_);
    ASSERT_TRUE(token) << token.error().to_string();
    json loc = {{"identity", "alpha_02_ready__p" + std::to_string(plan) + "__worker__a02"},
                {"task", task_name},
                {"plan_number", plan},
                {"role", "worker"},
                {"attempt", 2},
                {"workspace", identity_.path},
                {"workspace_id", identity_.id},
                {"cli", "codex"},
                {"model", "sim"},
                {"status", "running"},
                {"started_at", "2027-01-15T08:00:00.000Z"},
                {"agent_pid", agent_pid_},
                {"agent_start_token", *token}};
    // The journal exists before any attempt folder, as in a real run.
    auto store = runtime::durable_store::open(root_, identity_, runtime::posix_file_layer());
    ASSERT_TRUE(store) << store.error().to_string();
    fs::create_directories(locator_.parent_path());
    ASSERT_TRUE(runtime::write_file_atomic(locator_, runtime::dump_json(loc)));
    runtime::route_decision decision;
    decision.work_unit_id = work_unit;
    decision.stage = "worker";
    decision.lane = "local";
    decision.grade = 5;
    decision.selected_target = "sim-a";
    std::vector<runtime::state_change> changes = {
      runtime::begin_work_unit{task_name, work_unit},
      runtime::record_decision{task_name, decision},
      runtime::record_failure{task_name, "worker"},
      runtime::record_attempt_started{task_name, "worker", plan, "worker", 2, locator_.string(), ""}};
    auto committed = (*store)->commit({changes});
    ASSERT_TRUE(committed) << committed.error().to_string();
  }

  temp_dir dir_;
  fs::path ws_;
  runtime::workspace_identity identity_;
  fs::path root_;
  fs::path locator_;
  pid_t agent_pid_ = -1;
};

TEST_F(status_e2e, without_state_lists_tasks_and_says_so) {
  auto r = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(no durable state yet)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dispatcher none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(task_name + "  stage=worker status=ready attempts=0"), std::string::npos)
    << r.out;
  EXPECT_FALSE(fs::exists(root_)) << "status created the state root";
}

// An archived task is not in the scan: its attempts are those of the latest
// plan the state counted (it read attempts=0 for every finished task).
TEST_F(status_e2e, an_archived_task_shows_the_attempts_it_ran) {
  const std::string archived = "alpha/01_base";
  auto store = runtime::durable_store::open(root_, identity_, runtime::posix_file_layer());
  ASSERT_TRUE(store) << store.error().to_string();
  std::vector<runtime::state_change> changes = {
    runtime::set_attempt_counter{{archived, 1, "worker"}, 3},
    runtime::set_attempt_counter{{archived, 2, "worker"}, 1},
    runtime::set_attempt_counter{{archived, 2, "review"}, 1}};
  auto committed = (*store)->commit({changes});
  ASSERT_TRUE(committed) << committed.error().to_string();
  store->reset();

  auto r = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(archived + "  stage=complete status=complete attempts=2"),
            std::string::npos)
    << r.out;
  auto j = run_binary(agent_dispatch(), {"status", "--json", "--workspace", ws_.string()});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  auto lines = json_lines(j.out);
  const json* t = find_task(lines, archived);
  ASSERT_NE(t, nullptr) << j.out;
  EXPECT_EQ(t->at("status"), "complete");
  EXPECT_EQ(t->at("attempts"), 2);
  EXPECT_EQ(t->at("attempts_by_role"), (json{{"review", 1}, {"worker", 1}}));
}

TEST_F(status_e2e, live_attempt_while_a_dispatcher_holds_the_lock) {
  start_agent();
  prepare_state();
  runtime::system_clock clk;
  auto lock = runtime::state_lock::acquire(root_, runtime::current_lock_owner(clk));
  ASSERT_TRUE(lock) << lock.error().to_string();
  auto journal_before = fs::file_size(root_ / "journal.log");

  auto r = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dispatcher pid " + std::to_string(getpid()) + " running"), std::string::npos)
    << r.out;
  EXPECT_NE(r.out.find(task_name + "  stage=worker status=running attempts=2 target=sim-a "
                                   "budget_used=worker 1"),
            std::string::npos)
    << r.out;
  EXPECT_NE(r.out.find("live worker attempt: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("locator=" + locator_.string()), std::string::npos) << r.out;

  auto j = run_binary(agent_dispatch(), {"status", "--json", "--workspace", ws_.string()});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  auto lines = json_lines(j.out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front().at("event"), "dispatcher");
  EXPECT_EQ(lines.front().at("alive"), true);
  EXPECT_EQ(lines.back().at("event"), "summary");
  EXPECT_EQ(lines.back().at("running"), 1);
  const json* t = find_task(lines, task_name);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->at("status"), "running");
  EXPECT_EQ(t->at("attempts"), 2);
  EXPECT_EQ(t->at("attempts_by_role").at("worker"), 2);
  EXPECT_EQ(t->at("target"), "sim-a");
  EXPECT_EQ(t->at("budget_used").at("worker"), 1);
  ASSERT_EQ(t->at("live_attempts").size(), 1u);
  EXPECT_EQ(t->at("live_attempts")[0].at("liveness"), "live");
  EXPECT_EQ(t->at("live_attempts")[0].at("locator"), locator_.string());
  EXPECT_EQ(fs::file_size(root_ / "journal.log"), journal_before);
}

// What a live run waits for, as the durable state records it: a claim held
// by the running task (its owner named), and a quota reset recorded for a
// task the folders alone would start.
TEST_F(status_e2e, waits_come_from_the_state_with_their_claim_owner_and_reset_end) {
  start_agent();
  prepare_state();
  auto scan = runtime::scan_workspace(ws_);
  ASSERT_TRUE(scan) << scan.error().to_string();
  const runtime::scanned_task* review = nullptr;
  for (const auto& t : scan->tasks)
    if (t.name == "stages/02_review_verdict")
      review = &t;
  ASSERT_NE(review, nullptr);
  auto store = runtime::durable_store::open(root_, identity_, runtime::posix_file_layer());
  ASSERT_TRUE(store) << store.error().to_string();
  runtime::write_claim claim;
  claim.paths = {(fs::canonical(ws_) / "src/app/main.cpp").string()};
  auto until = runtime::system_clock().now() + 3'600'000;
  std::vector<runtime::state_change> changes = {
    runtime::replace_claim{task_name, claim},
    runtime::begin_work_unit{review->name, runtime::work_unit_of(*review)},
    runtime::set_counter{review->name, "reset_wait_until:review", until}};
  auto committed = (*store)->commit({changes});
  ASSERT_TRUE(committed) << committed.error().to_string();

  auto j = run_binary(agent_dispatch(), {"status", "--json", "--workspace", ws_.string()});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  auto lines = json_lines(j.out);
  const json* conflict = find_task(lines, "alpha/06+01_conflict");
  ASSERT_NE(conflict, nullptr);
  EXPECT_EQ(conflict->at("status"), "waiting") << conflict->dump();
  EXPECT_EQ(conflict->at("wait").at("kind"), "claim") << conflict->dump();
  EXPECT_EQ(conflict->at("wait").at("owner"), task_name) << conflict->dump();
  const json* reset = find_task(lines, review->name);
  ASSERT_NE(reset, nullptr);
  EXPECT_EQ(reset->at("status"), "waiting") << "the dispatcher holds it until the reset\n"
                                           << reset->dump();
  EXPECT_EQ(reset->at("wait").at("kind"), "quota-reset") << reset->dump();
  EXPECT_EQ(reset->at("wait").at("until"), runtime::format_utc_iso(until)) << reset->dump();
  EXPECT_EQ(lines.back().at("waiting").get<int>(),
            static_cast<int>(std::count_if(lines.begin(), lines.end(), [](const json& l) {
              return l.value("event", "") == "task" && l.value("status", "") == "waiting";
            })))
    << "the summary counts what the rows say";
  const json* running = find_task(lines, task_name);
  ASSERT_NE(running, nullptr);
  EXPECT_EQ(running->at("wait"), nullptr);
}

TEST_F(status_e2e, dead_agent_shows_stale) {
  start_agent();
  prepare_state();
  stop_agent();
  auto j = run_binary(agent_dispatch(), {"status", "--json", "--workspace", ws_.string()});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  auto lines = json_lines(j.out);
  const json* t = find_task(lines, task_name);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->at("live_attempts").size(), 1u);
  EXPECT_EQ(t->at("live_attempts")[0].at("liveness"), "stale");
  EXPECT_EQ(lines.front().at("present"), false);
}

TEST_F(status_e2e, append_in_flight_is_read_around_and_left_alone) {
  start_agent();
  prepare_state();
  // Half a record: what a reader sees while the dispatcher's write is in flight.
  {
    auto fd = fopen((root_ / "journal.log").c_str(), "ab");
    ASSERT_NE(fd, nullptr);
    const char partial[] = "\x01\x02\x03\x04\xff\x00\x00";
    fwrite(partial, 1, sizeof(partial) - 1, fd);
    fclose(fd);
  }
  auto size_before = fs::file_size(root_ / "journal.log");
  auto r = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("attempts=2"), std::string::npos) << r.out;
  EXPECT_EQ(fs::file_size(root_ / "journal.log"), size_before) << "status truncated the journal";
}

TEST_F(status_e2e, a_recorded_claim_violation_is_a_line_of_the_text_and_a_json_event) {
  // What the claim watcher of a run recorded: the task's attempt wrote
  // README.md outside its claim (policy block).
  auto store = runtime::durable_store::open(root_, identity_, runtime::posix_file_layer());
  ASSERT_TRUE(store) << store.error().to_string();
  auto readme = (fs::path(identity_.path) / "README.md").string();
  const std::string attempt = "alpha_02_ready__p1__worker__a01";
  std::vector<runtime::state_change> changes = {runtime::record_claim_violation{
    task_name, attempt, readme, "alpha/03_other", "fanotify", {}, "block", 1'800'000'000'000}};
  auto committed = (*store)->commit({changes});
  ASSERT_TRUE(committed) << committed.error().to_string();
  store->reset();

  auto r = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("claim violation: " + task_name + " attempt " + attempt + " wrote " +
                       readme + " outside its claim (claimed by alpha/03_other); fanotify, "
                                "block, 2027-01-15T08:00:00.000Z\n"),
            std::string::npos)
    << r.out;

  auto j = run_binary(agent_dispatch(), {"status", "--json", "--workspace", ws_.string()});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  auto lines = json_lines(j.out);
  const json* v = nullptr;
  for (const auto& line : lines)
    if (line.value("event", "") == "claim_violation")
      v = &line;
  ASSERT_NE(v, nullptr) << j.out;
  EXPECT_EQ(v->at("task"), task_name);
  EXPECT_EQ(v->at("attempt"), attempt);
  EXPECT_EQ(v->at("path"), readme);
  EXPECT_EQ(v->at("other_task"), "alpha/03_other");
  EXPECT_EQ(v->at("attribution"), "fanotify");
  EXPECT_EQ(v->at("action"), "block");
  EXPECT_EQ(lines.back().at("event"), "summary");
}

// A damaged state root was shown as a new one: `status` exited 0 with "no
// durable state yet", every task ready and attempts=0. Each of the four is
// an error naming the path and the fix, for status, run and doctor alike.
TEST_F(status_e2e, a_damaged_state_root_is_an_error_never_an_empty_state) {
  start_agent();
  prepare_state();
  if (HasFatalFailure())
    return;
  stop_agent();
  const fs::path saved = dir_.path() / "saved-root";
  fs::copy(root_, saved, fs::copy_options::recursive);
  struct damage {
    const char* name;
    std::function<void()> apply;
    std::string names; // the path the error must name
  };
  const fs::path journal = root_ / "journal.log";
  std::vector<damage> cases = {
    {"journal deleted", [&] { fs::remove(journal); }, journal.string()},
    {"journal a dangling link",
     [&] {
       fs::remove(journal);
       fs::create_symlink(root_ / "journal.log.gone", journal);
     },
     journal.string()},
    {"root replaced by a file",
     [&] {
       fs::remove_all(root_);
       ASSERT_TRUE(runtime::write_file_atomic(root_, "not a folder\n").is_ok());
     },
     root_.string()},
    {"root a link to /proc",
     [&] {
       fs::remove_all(root_);
       fs::create_symlink("/proc", root_);
     },
     root_.string()},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    fs::remove_all(root_);
    fs::copy(saved, root_, fs::copy_options::recursive);
    c.apply();
    auto status = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
    EXPECT_EQ(status.exit_code, 2) << status.out << status.err;
    EXPECT_EQ(status.out.find("no durable state yet"), std::string::npos) << status.out;
    EXPECT_NE(status.err.find(c.names), std::string::npos) << status.err;
    EXPECT_NE(status.err.find("Restore the state root from a backup, or move it aside to start over"),
              std::string::npos)
      << status.err;
    auto doctor = run_binary(agent_dispatch(), {"doctor", "--workspace", ws_.string(), "--json"});
    EXPECT_EQ(doctor.exit_code, 2) << doctor.out;
    EXPECT_NE(doctor.out.find("\"state\": \"damaged\""), std::string::npos) << doctor.out;
    auto run = run_binary(agent_dispatch(), {"run", "--workspace", ws_.string()});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find(c.names), std::string::npos) << run.err;
  }
  // Restored from the copy, it reads again.
  fs::remove_all(root_);
  fs::copy(saved, root_, fs::copy_options::recursive);
  auto status = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("attempts=2"), std::string::npos) << status.out;
}

TEST_F(status_e2e, unreadable_workspace_exits_2) {
  auto r = run_binary(agent_dispatch(), {"status", "--workspace", (dir_.path() / "none").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("status: "), std::string::npos) << r.err;
}

} // namespace
} // namespace ad::test

namespace ad::test {
namespace {

class status_hostile : public status_e2e {};

TEST_F(status_hostile, a_lock_file_with_odd_field_types_is_read_as_unknown_not_an_internal_error) {
  fs::create_directories(root_);
  ASSERT_TRUE(runtime::write_file_atomic(root_ / "lock", R"({"pid":"x","started_at":"y"})").is_ok());
  auto r = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(status_hostile, a_fifo_in_place_of_the_policy_or_the_state_is_an_error_not_a_hang) {
  ASSERT_EQ(::mkfifo((ws_ / "agent-dispatch.json").c_str(), 0644), 0);
  auto policy = run_binary(agent_dispatch(), {"policy", "check", "--workspace", ws_.string()});
  EXPECT_EQ(policy.exit_code, 2);
  EXPECT_NE(policy.err.find("is a FIFO, expected a regular file"), std::string::npos) << policy.err;
  fs::remove(ws_ / "agent-dispatch.json");
  fs::create_directories(root_);
  ASSERT_EQ(::mkfifo((root_ / "journal.log").c_str(), 0644), 0);
  auto status = run_binary(agent_dispatch(), {"status", "--workspace", ws_.string()});
  EXPECT_EQ(status.exit_code, 2) << status.out << status.err;
  EXPECT_NE(status.err.find("journal.log is a FIFO"), std::string::npos) << status.err;
}

} // namespace
} // namespace ad::test
