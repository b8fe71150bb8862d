// The task lifecycle machine, transition by transition, without actors: each
// test feeds events as the task actor would and checks the commands that
// come back (their kinds in order, and what they carry).

#include "runtime/run/task_machine.hpp"

#include <gtest/gtest.h>

#include "runtime/core/json.hpp"
#include "runtime/report/event_render.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/state/change.hpp"

namespace ad::runtime {
namespace {

constexpr const char* policy_text = R"({
  "targets": [
    {"id": "sim-a", "adapter": "command", "model": "a", "execution_class": "cloud_model", "argv": ["x", "{prompt}"]},
    {"id": "sim-b", "adapter": "command", "model": "b", "execution_class": "cloud_model", "argv": ["x"]}
  ],
  "rules": [{"id": "workers", "stage": "worker", "lanes": ["cloud"], "grades": [1, 10],
             "candidates": ["sim-a", "sim-b"]}],
  "review_target": "sim-a",
  "promotion": {"sim-a": "sim-b"}
})";

const std::string task_name = "g/01_x";
const std::string work_unit = "g/01_x::plan-1::tag-a";
constexpr millis t0 = 1'800'000'000'000;

using cmds = std::vector<task_command>;

std::vector<std::string> names(const cmds& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs)
    out.emplace_back(command_name(c));
  return out;
}

template <class T>
const T& the(const cmds& cs) {
  const T* found = nullptr;
  for (const auto& c : cs)
    if (const auto* x = std::get_if<T>(&c)) {
      EXPECT_EQ(found, nullptr) << "two commands of the same kind";
      found = x;
    }
  if (!found)
    throw std::runtime_error("no such command in " + dump_json(commands_to_json(cs)));
  return *found;
}

std::vector<std::string> change_names(const std::vector<state_change>& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes)
    out.push_back(change_name(c));
  return out;
}

attempt_result result_of(const task_machine& m, std::string status, std::string failure = "") {
  attempt_result r;
  r.identity = m.identity();
  r.attempt_dir = "/state/runs/20261203T000000Z__" + m.identity();
  r.locator_path = r.attempt_dir + "/locator.json";
  r.status = std::move(status);
  r.exit_code = r.status == "succeeded" ? 0 : 1;
  r.failure_class = std::move(failure);
  r.evidence = r.failure_class.empty() ? "" : "the agent said " + r.failure_class;
  return r;
}

class task_machine_test : public ::testing::Test {
protected:
  void SetUp() override {
    auto loaded = parse_policy_text(policy_text, "policy.json");
    ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
    pol_ = loaded->value;
    ctx_.pol = &pol_;
    ctx_.zone = &zone_;
    ctx_.workspace = "/ws";
    ctx_.workspace_id = "wsid";
    ctx_.task_root = "/ws/agent-task";
    ctx_.runs_dir = "/state/runs";
    state_.work_unit_id = work_unit;
  }

  task_spec spec(task_stage stage = task_stage::worker) const {
    task_spec s;
    s.name = task_name;
    s.stage = stage;
    s.task_dir = "/ws/agent-task/g/01_x";
    s.plan = s.task_dir + "/PLAN-cloud-G05.md";
    s.review = s.task_dir + "/CODE_REVIEW-cloud-G05.md";
    s.lane = "cloud";
    s.grade = 5;
    s.plan_number = 1;
    s.work_unit_id = work_unit;
    s.write_paths = {"/ws/src/a.cpp"};
    return s;
  }

  // Feeds the events that bring a fresh worker to its first running
  // attempt; returns the commands of the last one (the launch).
  cmds to_running(task_machine& m) {
    EXPECT_EQ(names(m.step(t0, task_ev::begun{})), (std::vector<std::string>{"read_cooldowns"}));
    EXPECT_EQ(names(m.step(t0, task_ev::cooldowns_read{})),
              (std::vector<std::string>{"read_task_state"}));
    EXPECT_EQ(names(m.step(t0, task_ev::task_state_read{true, state_})),
              (std::vector<std::string>{"show", "read_for_launch"}));
    auto persist = m.step(t0, task_ev::launch_read{});
    EXPECT_EQ(names(persist), (std::vector<std::string>{"make_durable"}));
    EXPECT_EQ(change_names(the<task_cmd::make_durable>(persist).changes),
              (std::vector<std::string>{"record_decision", "record_attempt_started",
                                        "record_write_set"}));
    auto launch = m.step(t0, task_ev::durable{});
    EXPECT_EQ(names(launch), (std::vector<std::string>{"checkpoint", "show", "start_attempt"}));
    EXPECT_EQ(m.phase(), task_phase::running);
    return launch;
  }

  // Ends the running attempt as failed and brings the task to the
  // supervisor; returns the ask.
  task_cmd::ask_supervisor to_supervisor(task_machine& m, const std::string& failure) {
    auto ended = m.step(t0 + 10, task_ev::attempt_finished{result_of(m, "failed", failure)});
    EXPECT_EQ(names(ended), (std::vector<std::string>{"checkpoint", "show", "read_after_attempt"}));
    EXPECT_FALSE(the<task_cmd::read_after_attempt>(ended).succeeded);
    EXPECT_EQ(names(m.step(t0 + 10, task_ev::attempt_read{})),
              (std::vector<std::string>{"make_durable"}));
    EXPECT_EQ(names(m.step(t0 + 10, task_ev::durable{})),
              (std::vector<std::string>{"read_task_state"}));
    auto ask = m.step(t0 + 10, task_ev::task_state_read{true, state_});
    EXPECT_EQ(names(ask), (std::vector<std::string>{"ask_supervisor"}));
    return the<task_cmd::ask_supervisor>(ask);
  }

  policy pol_;
  time_zone zone_ = time_zone::fixed("UTC", 0);
  task_context ctx_;
  task_state state_;
};

TEST_F(task_machine_test, a_worker_runs_one_attempt_and_advances_after_its_success) {
  task_machine m(ctx_, spec());
  auto launch = to_running(m);
  const auto& order = the<task_cmd::start_attempt>(launch).order;
  EXPECT_EQ(order.task, task_name);
  EXPECT_EQ(order.role, "worker");
  EXPECT_EQ(order.attempt, 1);
  EXPECT_EQ(order.model, "a");
  EXPECT_EQ(order.workspace, "/ws");
  EXPECT_EQ(order.runs_dir, "/state/runs");
  EXPECT_TRUE(order.has_selector_evidence);
  EXPECT_EQ(order.selector_evidence.selected_target, "sim-a");
  EXPECT_EQ(the<task_cmd::checkpoint>(launch).name, "before-launch");
  EXPECT_EQ(the<task_cmd::show>(launch).event.kind, run_event_kind::attempt_started);
  EXPECT_EQ(m.identity(), "g__01_x__p1__worker__a01");

  auto ended = m.step(t0 + 5, task_ev::attempt_finished{result_of(m, "succeeded")});
  EXPECT_TRUE(the<task_cmd::read_after_attempt>(ended).succeeded);
  EXPECT_EQ(the<task_cmd::show>(ended).event.attempt_status, "succeeded");
  attempt_reading reading;
  reading.runtime_identity = {"command", "a"};
  auto after = m.step(t0 + 5, task_ev::attempt_read{reading});
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(after).changes),
            (std::vector<std::string>{"record_write_set"}));
  EXPECT_EQ(names(m.step(t0 + 5, task_ev::durable{})),
            (std::vector<std::string>{"read_task_state"}));
  // The step is decided on the state read back: its decision is durable now.
  state_.decisions["worker"] = the<task_cmd::start_attempt>(launch).order.selector_evidence;
  auto step = m.step(t0 + 5, task_ev::task_state_read{true, state_});
  ASSERT_EQ(names(step), (std::vector<std::string>{"make_durable"}));
  auto changes = change_names(the<task_cmd::make_durable>(step).changes);
  EXPECT_NE(std::find(changes.begin(), changes.end(), "set_completing_decision"), changes.end());
  auto end = m.step(t0 + 6, task_ev::durable{});
  ASSERT_EQ(names(end), (std::vector<std::string>{"end_task"}));
  EXPECT_EQ(the<task_cmd::end_task>(end).outcome, "advance");
  EXPECT_TRUE(m.ended());
  EXPECT_TRUE(m.step(t0 + 7, task_ev::woke{}).empty()) << "an ended machine does nothing";
}

TEST_F(task_machine_test, a_retry_waits_for_its_delay_then_reads_the_state_and_launches_again) {
  task_machine m(ctx_, spec());
  to_running(m);
  auto ask = to_supervisor(m, "generic-error");
  EXPECT_EQ(ask.request.failure.failure_class, "generic-error");
  EXPECT_EQ(ask.request.failure.attempt_id, m.identity());
  EXPECT_EQ(ask.request.failure.raw_log,
            "/state/runs/20261203T000000Z__g__01_x__p1__worker__a01/stream.log");
  task_ev::supervisor_decided d;
  d.step = retry_same{"sim-a", "continue from the locator", 2000, "generic"};
  d.changes = {set_counter{task_name, "x", 1}};
  auto persist = m.step(t0 + 20, d);
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(persist).changes),
            (std::vector<std::string>{"set_counter"}));
  auto after = m.step(t0 + 30, task_ev::durable{});
  EXPECT_EQ(names(after), (std::vector<std::string>{"checkpoint", "show", "wake_at"}));
  EXPECT_EQ(the<task_cmd::show>(after).event.kind, run_event_kind::task_failed);
  EXPECT_EQ(the<task_cmd::wake_at>(after).at, t0 + 30 + 2000);
  EXPECT_TRUE(m.step(t0 + 40, task_ev::durable{}).empty()) << "a stray answer changes nothing";
  EXPECT_EQ(names(m.step(t0 + 2030, task_ev::woke{})),
            (std::vector<std::string>{"read_task_state"}));
  EXPECT_EQ(names(m.step(t0 + 2030, task_ev::task_state_read{true, state_})),
            (std::vector<std::string>{"read_for_launch"}));
  auto persist2 = m.step(t0 + 2030, task_ev::launch_read{});
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(persist2).changes),
            (std::vector<std::string>{"record_attempt_started", "record_write_set"}));
  auto launch = m.step(t0 + 2030, task_ev::durable{});
  const auto& order = the<task_cmd::start_attempt>(launch).order;
  EXPECT_EQ(order.attempt, 2);
  EXPECT_EQ(order.prompt, "continue from the locator");
  EXPECT_EQ(m.identity(), "g__01_x__p1__worker__a02");
}

TEST_F(task_machine_test, a_failover_shows_the_move_and_launches_the_new_target_at_once) {
  task_machine m(ctx_, spec());
  to_running(m);
  to_supervisor(m, "provider-quota");
  failover_step f;
  f.target = "sim-b";
  f.prompt = "continue on b";
  f.decision.selected_target = "sim-b";
  auto persist = m.step(t0 + 20, task_ev::supervisor_decided{f, {}, {}});
  // Nothing to make durable: the step is carried out at once.
  EXPECT_EQ(names(persist), (std::vector<std::string>{"checkpoint", "show", "read_task_state"}));
  const auto& shown = the<task_cmd::show>(persist).event;
  EXPECT_EQ(shown.kind, run_event_kind::failover);
  EXPECT_EQ(shown.from_target, "sim-a");
  EXPECT_EQ(shown.to_target, "sim-b");
  m.step(t0 + 20, task_ev::task_state_read{true, state_});
  m.step(t0 + 20, task_ev::launch_read{});
  auto launch = m.step(t0 + 20, task_ev::durable{});
  EXPECT_EQ(the<task_cmd::start_attempt>(launch).order.model, "b");
}

TEST_F(task_machine_test, a_block_step_clears_the_stage_and_ends_blocked_with_its_reason) {
  task_machine m(ctx_, spec());
  to_running(m);
  to_supervisor(m, "generic-error");
  task_ev::supervisor_decided d;
  d.step = block_step{"recovery failure limit reached", "{}"};
  d.changes = {set_blocked{task_name, {"recovery failure limit reached", "{}"}}};
  m.step(t0 + 20, d);
  auto after = m.step(t0 + 20, task_ev::durable{});
  EXPECT_EQ(names(after), (std::vector<std::string>{"checkpoint", "make_durable"}));
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(after).changes),
            (std::vector<std::string>{"clear_active_stage"}));
  auto end = m.step(t0 + 20, task_ev::durable{});
  EXPECT_EQ(the<task_cmd::end_task>(end).outcome, "blocked");
  EXPECT_EQ(the<task_cmd::end_task>(end).reason, "recovery failure limit reached");
}

TEST_F(task_machine_test, a_step_naming_an_unknown_target_blocks_the_task) {
  task_machine m(ctx_, spec());
  to_running(m);
  to_supervisor(m, "generic-error");
  m.step(t0 + 20, task_ev::supervisor_decided{retry_same{"gone", "p", 0, "generic"}, {}, {}});
  auto blocked = m.step(t0 + 20, task_ev::task_state_read{true, state_});
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(blocked).changes),
            (std::vector<std::string>{"set_blocked"}));
  auto end = m.step(t0 + 20, task_ev::durable{});
  EXPECT_EQ(the<task_cmd::end_task>(end).outcome, "blocked");
  EXPECT_EQ(the<task_cmd::end_task>(end).reason, "unknown target gone");
}

TEST_F(task_machine_test, a_stop_while_the_attempt_runs_cancels_it_and_ends_cancelled) {
  task_machine m(ctx_, spec());
  to_running(m);
  auto stop = m.step(t0 + 1, task_ev::stop{});
  EXPECT_EQ(names(stop), (std::vector<std::string>{"cancel_attempt"}));
  EXPECT_EQ(the<task_cmd::cancel_attempt>(stop).identity, m.identity());
  EXPECT_TRUE(m.step(t0 + 2, task_ev::stop{}).empty()) << "a second stop adds nothing";
  auto ended = m.step(t0 + 3, task_ev::attempt_finished{result_of(m, "failed", "cancelled")});
  EXPECT_EQ(names(ended), (std::vector<std::string>{"checkpoint", "show", "make_durable"}));
  EXPECT_EQ(the<task_cmd::show>(ended).event.attempt_status, "cancelled");
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(ended).changes),
            (std::vector<std::string>{"clear_active_stage"}));
  auto end = m.step(t0 + 3, task_ev::durable{});
  EXPECT_EQ(the<task_cmd::end_task>(end).outcome, "cancelled");
}

TEST_F(task_machine_test, a_stop_during_a_wait_ends_the_task_at_once) {
  task_machine m(ctx_, spec());
  to_running(m);
  to_supervisor(m, "generic-error");
  m.step(t0 + 20, task_ev::supervisor_decided{retry_same{"sim-a", "p", 5000, "generic"}, {}, {}});
  EXPECT_EQ(m.phase(), task_phase::launch_waiting);
  auto stop = m.step(t0 + 21, task_ev::stop{});
  EXPECT_EQ(names(stop), (std::vector<std::string>{"end_task"}));
  EXPECT_EQ(the<task_cmd::end_task>(stop).outcome, "cancelled");
  EXPECT_TRUE(m.step(t0 + 5020, task_ev::woke{}).empty()) << "the late timer starts nothing";
}

TEST_F(task_machine_test, a_stop_while_the_supervisor_decides_ends_before_the_next_wait) {
  task_machine m(ctx_, spec());
  to_running(m);
  to_supervisor(m, "generic-error");
  EXPECT_TRUE(m.step(t0 + 15, task_ev::stop{}).empty()) << "a request is open: nothing yet";
  task_ev::supervisor_decided d;
  d.step = retry_same{"sim-a", "p", 5000, "generic"};
  d.changes = {set_counter{task_name, "x", 1}};
  m.step(t0 + 20, d);
  auto after = m.step(t0 + 20, task_ev::durable{});
  EXPECT_EQ(names(after), (std::vector<std::string>{"checkpoint", "show", "end_task"}));
  EXPECT_EQ(the<task_cmd::end_task>(after).outcome, "cancelled");
}

TEST_F(task_machine_test, a_stop_while_the_start_is_made_durable_clears_the_stage_instead) {
  task_machine m(ctx_, spec());
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{});
  m.step(t0, task_ev::task_state_read{true, state_});
  m.step(t0, task_ev::launch_read{});
  EXPECT_EQ(m.phase(), task_phase::launch_persisting);
  EXPECT_TRUE(m.step(t0, task_ev::stop{}).empty());
  auto durable = m.step(t0, task_ev::durable{});
  EXPECT_EQ(names(durable), (std::vector<std::string>{"make_durable"}))
    << "no agent may start after the stop";
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(durable).changes),
            (std::vector<std::string>{"clear_active_stage"}));
  EXPECT_EQ(the<task_cmd::end_task>(m.step(t0, task_ev::durable{})).outcome, "cancelled");
}

// Distributed mode: brings a fresh worker to its placement request.
cmds to_placing(task_machine& m, const task_state& st) {
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{});
  m.step(t0, task_ev::task_state_read{true, st});
  m.step(t0, task_ev::launch_read{});
  return m.step(t0, task_ev::durable{});
}

TEST_F(task_machine_test, on_nodes_the_attempt_is_placed_before_it_starts_and_names_its_node) {
  ctx_.place_on_nodes = true;
  task_machine m(ctx_, spec());
  auto place = to_placing(m, state_);
  ASSERT_EQ(names(place), (std::vector<std::string>{"checkpoint", "place_attempt"}));
  EXPECT_EQ(the<task_cmd::place_attempt>(place).identity, m.identity());
  EXPECT_EQ(the<task_cmd::place_attempt>(place).adapter, "command");
  EXPECT_EQ(m.phase(), task_phase::placing);

  // No node has room: the reason is shown once, and the task asks again.
  auto wait = m.step(t0 + 1, task_ev::placed{"", "waiting for a free slot on a node"});
  ASSERT_EQ(names(wait), (std::vector<std::string>{"show", "wake_at"}));
  EXPECT_EQ(the<task_cmd::show>(wait).event.kind, run_event_kind::task_waiting);
  EXPECT_EQ(the<task_cmd::show>(wait).event.reason, "waiting for a free slot on a node");
  EXPECT_EQ(the<task_cmd::wake_at>(wait).at, t0 + 201);
  EXPECT_EQ(names(m.step(t0 + 201, task_ev::woke{})), (std::vector<std::string>{"place_attempt"}));
  EXPECT_EQ(names(m.step(t0 + 202, task_ev::placed{"", "waiting for a free slot on a node"})),
            (std::vector<std::string>{"wake_at"}))
    << "the same reason is not shown again";
  m.step(t0 + 402, task_ev::woke{});

  auto start = m.step(t0 + 403, task_ev::placed{"n2", ""});
  ASSERT_EQ(names(start), (std::vector<std::string>{"show", "start_attempt"}));
  EXPECT_EQ(the<task_cmd::show>(start).event.kind, run_event_kind::attempt_started);
  EXPECT_EQ(the<task_cmd::show>(start).event.node, "n2");
  EXPECT_EQ(the<task_cmd::start_attempt>(start).order.node, "n2");
  EXPECT_EQ(m.phase(), task_phase::running);
  EXPECT_EQ(run_event_json(the<task_cmd::show>(start).event).value("node", ""), "n2");
}

TEST_F(task_machine_test, a_stop_while_waiting_for_a_node_clears_the_stage_and_starts_nothing) {
  ctx_.place_on_nodes = true;
  task_machine m(ctx_, spec());
  to_placing(m, state_);
  m.step(t0 + 1, task_ev::placed{"", "waiting for a node: none of 2 is connected"});
  EXPECT_EQ(m.phase(), task_phase::placing_waiting);
  auto stop = m.step(t0 + 2, task_ev::stop{});
  ASSERT_EQ(names(stop), (std::vector<std::string>{"make_durable"}));
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(stop).changes),
            (std::vector<std::string>{"clear_active_stage"}));
  EXPECT_EQ(the<task_cmd::end_task>(m.step(t0 + 3, task_ev::durable{})).outcome, "cancelled");
}

TEST_F(task_machine_test, a_stop_while_the_host_places_starts_nothing_once_it_answers) {
  ctx_.place_on_nodes = true;
  task_machine m(ctx_, spec());
  to_placing(m, state_);
  EXPECT_TRUE(m.step(t0 + 1, task_ev::stop{}).empty()) << "a request is open: nothing yet";
  auto placed = m.step(t0 + 2, task_ev::placed{"n1", ""});
  ASSERT_EQ(names(placed), (std::vector<std::string>{"make_durable"}))
    << "no agent may start after the stop";
  EXPECT_EQ(the<task_cmd::end_task>(m.step(t0 + 3, task_ev::durable{})).outcome, "cancelled");
}

// Both policy targets cool down: sim-a until t0 + 60 s, sim-b until t0 + 90 s.
target_cooldowns both_cooling() {
  target_cooldowns cooling;
  cooling.mark_exhausted("sim-a", t0, t0 + 60'000, 0, "quota");
  cooling.mark_exhausted("sim-b", t0, t0 + 90'000, 0, "quota");
  return cooling;
}

TEST_F(task_machine_test, every_target_cooling_down_is_a_wait_then_a_new_choice) {
  task_machine m(ctx_, spec());
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{both_cooling()});
  auto wait = m.step(t0, task_ev::task_state_read{true, state_});
  // The wait is made durable first (status shows it, a restart keeps it).
  ASSERT_EQ(names(wait), (std::vector<std::string>{"show", "make_durable"}));
  EXPECT_EQ(the<task_cmd::show>(wait).event.kind, run_event_kind::supervisor_wait);
  EXPECT_EQ(the<task_cmd::show>(wait).event.target, "sim-a") << "the target free first";
  EXPECT_EQ(the<task_cmd::show>(wait).event.wait, wait_cool_down);
  state_model model;
  model.tasks[task_name] = state_;
  for (const auto& c : the<task_cmd::make_durable>(wait).changes)
    ASSERT_TRUE(apply_change(model, c).is_ok());
  auto recorded = pending_cooldown_wait(model.tasks.at(task_name), "worker", t0);
  ASSERT_TRUE(recorded.has_value());
  EXPECT_EQ(recorded->target, "sim-a");
  EXPECT_EQ(recorded->until, t0 + 60'000);
  auto timer = m.step(t0 + 5, task_ev::durable{});
  EXPECT_EQ(names(timer), (std::vector<std::string>{"checkpoint", "wake_at"}));
  EXPECT_EQ(the<task_cmd::wake_at>(timer).at, t0 + 60'000);
  EXPECT_EQ(names(m.step(t0 + 60'000, task_ev::woke{})),
            (std::vector<std::string>{"read_cooldowns"}));
}

TEST_F(task_machine_test, a_stop_while_a_cool_down_wait_is_made_durable_ends_the_task) {
  task_machine m(ctx_, spec());
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{both_cooling()});
  m.step(t0, task_ev::task_state_read{true, state_});
  EXPECT_TRUE(m.step(t0 + 1, task_ev::stop{}).empty()) << "a request is open";
  EXPECT_EQ(the<task_cmd::end_task>(m.step(t0 + 2, task_ev::durable{})).outcome, "cancelled");
}

TEST_F(task_machine_test, a_durable_cool_down_wait_holds_the_stage_after_a_restart) {
  task_machine m(ctx_, spec());
  state_.counters["cooldown_wait:worker:sim-b"] = t0 + 40'000;
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{}); // a new dispatcher: no cool-downs in memory
  auto wait = m.step(t0, task_ev::task_state_read{true, state_});
  EXPECT_EQ(names(wait), (std::vector<std::string>{"show", "wake_at"}));
  EXPECT_EQ(the<task_cmd::wake_at>(wait).at, t0 + 40'000);
  EXPECT_EQ(the<task_cmd::show>(wait).event.target, "sim-b");
  EXPECT_NE(the<task_cmd::show>(wait).event.reason.find("recorded before a restart"),
            std::string::npos);
  // After it, the stage chooses again (and starts: nothing cools down).
  EXPECT_EQ(names(m.step(t0 + 40'000, task_ev::woke{})),
            (std::vector<std::string>{"read_cooldowns"}));
}

TEST_F(task_machine_test, a_durable_quota_reset_wait_holds_the_stage_after_a_restart) {
  task_machine m(ctx_, spec());
  state_.counters["reset_wait_until:worker"] = t0 + 30'000;
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{});
  auto wait = m.step(t0, task_ev::task_state_read{true, state_});
  EXPECT_EQ(names(wait), (std::vector<std::string>{"show", "wake_at"}));
  EXPECT_EQ(the<task_cmd::wake_at>(wait).at, t0 + 30'000);
  EXPECT_NE(the<task_cmd::show>(wait).event.reason.find("recorded before a restart"),
            std::string::npos);
}

TEST_F(task_machine_test, an_error_answer_ends_the_task_naming_the_peer) {
  task_machine m(ctx_, spec());
  m.step(t0, task_ev::begun{});
  // Without the shared cool-downs the task chooses with none.
  EXPECT_EQ(names(m.step(t0, task_ev::request_failed{task_peer::supervisor, "timeout"})),
            (std::vector<std::string>{"read_task_state"}));
  auto end = m.step(t0, task_ev::request_failed{task_peer::state_store, "disk full"});
  EXPECT_EQ(the<task_cmd::end_task>(end).outcome, "error");
  EXPECT_EQ(the<task_cmd::end_task>(end).reason, "state store: disk full");
}

TEST_F(task_machine_test, a_failure_naming_a_file_reads_what_is_known_about_it) {
  task_machine m(ctx_, spec());
  to_running(m);
  auto r = result_of(m, "failed", "generic-error");
  r.evidence = "Error: file already exists: src/a.cpp";
  m.step(t0 + 10, task_ev::attempt_finished{r});
  auto named = m.step(t0 + 10, task_ev::attempt_read{});
  ASSERT_EQ(names(named), (std::vector<std::string>{"read_named_files"}));
  const auto& q = the<task_cmd::read_named_files>(named).query;
  EXPECT_EQ(q.paths_as_written, (std::vector<std::string>{"src/a.cpp"}));
  EXPECT_EQ(q.task, task_name);
  named_file f;
  f.as_written = "src/a.cpp";
  m.step(t0 + 10, task_ev::named_files_read{{f}});
  m.step(t0 + 10, task_ev::durable{});
  auto ask = m.step(t0 + 10, task_ev::task_state_read{true, state_});
  ASSERT_EQ(the<task_cmd::ask_supervisor>(ask).request.named_files.size(), 1u);
}

TEST_F(task_machine_test, a_review_asks_for_its_baseline_before_it_starts) {
  task_machine m(ctx_, spec(task_stage::review));
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{});
  auto read = m.step(t0, task_ev::task_state_read{true, state_});
  EXPECT_TRUE(the<task_cmd::read_for_launch>(read).review_baseline);
}

TEST_F(task_machine_test, events_survive_their_trace_form) {
  attempt_reading reading;
  reading.write_set = {file_snapshot{"/ws/src/a.cpp", true, 3, 7, "abc"}};
  reading.runtime_identity = {"codex", "m"};
  reading.stream_tail = "tail";
  task_ev::supervisor_decided d;
  d.step = retry_same{"sim-a", "p", 5, "generic"};
  d.changes = {clear_active_stage{task_name}};
  std::vector<task_event> events{
    task_ev::begun{}, task_ev::cooldowns_read{}, task_ev::task_state_read{true, state_},
    task_ev::durable{}, task_ev::launch_read{}, task_ev::attempt_finished{attempt_result{}},
    task_ev::attempt_read{reading}, task_ev::named_files_read{}, d, task_ev::placed{"n1", ""},
    task_ev::placed{"", "no node"}, task_ev::spend_read{token_usage{100, 5, {}, {}, {}, 0.25}, {}},
    task_ev::woke{},
    task_ev::stop{}, task_ev::request_failed{task_peer::attempt, "gone"}};
  for (const auto& e : events) {
    auto j = to_json(e);
    auto back = task_event_from_json(j);
    ASSERT_TRUE(back.is_ok()) << back.error().to_string() << "\n" << j.dump();
    EXPECT_EQ(to_json(*back), j);
  }
  auto bad = task_event_from_json(json{{"event", "attempt_finished"}, {"result", 5}});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.error().message().find("json.exception"), std::string::npos)
    << bad.error().message();
}

TEST_F(task_machine_test, an_attempts_usage_survives_its_trace_form_and_old_results_still_read) {
  attempt_result r;
  r.identity = "g__01_x__p1__worker__a01";
  r.usage.input_tokens = 1200;
  r.usage.output_tokens = 40;
  r.usage.cost_usd = 0.0028;
  auto j = to_json(task_event{task_ev::attempt_finished{r}});
  EXPECT_EQ(j["result"]["usage"], (json{{"input_tokens", 1200}, {"output_tokens", 40},
                                        {"cost_usd", 0.0028}}));
  auto back = task_event_from_json(j);
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  EXPECT_EQ(std::get<task_ev::attempt_finished>(*back).result, r);

  // A result recorded before usage existed has none, and no key is written
  // for an empty one.
  auto old = to_json(task_event{task_ev::attempt_finished{attempt_result{}}});
  EXPECT_FALSE(old["result"].contains("usage"));
  auto old_back = task_event_from_json(old);
  ASSERT_TRUE(old_back.is_ok());
  EXPECT_TRUE(std::get<task_ev::attempt_finished>(*old_back).result.usage.empty());

  j["result"]["usage"]["output_tokens"] = -1;
  auto bad = task_event_from_json(j);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("output_tokens"), std::string::npos) << bad.error().message();
}

TEST_F(task_machine_test, the_order_carries_the_targets_prices_and_a_commands_usage_format) {
  pol_.prices["sim-a"] = token_prices{.input = 2.0, .output = 10.0, .cache_read = 0.5, .cache_write = {}};
  pol_.targets[0].usage_reader = usage_format::pi;
  task_machine m(ctx_, spec());
  auto launch = to_running(m);
  const auto& order = the<task_cmd::start_attempt>(launch).order;
  EXPECT_EQ(order.usage_reader, "pi");
  ASSERT_TRUE(order.has_prices);
  EXPECT_EQ(order.prices, pol_.prices["sim-a"]);
  auto back = attempt_order_from_json(to_json(order));
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  EXPECT_EQ(*back, order);

  // Without prices and a usage format the order's trace form is as before.
  pol_.prices.clear();
  pol_.targets[0].usage_reader = usage_format::none;
  task_machine plain(ctx_, spec());
  auto plain_launch = to_running(plain);
  auto j = to_json(the<task_cmd::start_attempt>(plain_launch).order);
  EXPECT_FALSE(j.contains("prices"));
  EXPECT_FALSE(j.contains("usage_reader"));
}

TEST_F(task_machine_test, what_an_attempt_spent_is_durable_with_its_end) {
  task_machine m(ctx_, spec());
  to_running(m);
  auto r = result_of(m, "failed", "generic-error");
  r.usage.input_tokens = 1200;
  r.usage.output_tokens = 40;
  auto ended_run = m.step(t0 + 10, task_ev::attempt_finished{r});
  EXPECT_EQ(the<task_cmd::show>(ended_run).event.usage, r.usage) << "the attempt_finished event";
  auto after = m.step(t0 + 10, task_ev::attempt_read{});
  const auto& changes = the<task_cmd::make_durable>(after).changes;
  ASSERT_EQ(change_names(changes),
            (std::vector<std::string>{"record_write_set", "record_attempt_usage"}));
  const auto& spent = std::get<record_attempt_usage>(changes[1]);
  EXPECT_EQ(spent.attempt_id, m.identity());
  EXPECT_EQ(spent.task, task_name);
  EXPECT_EQ(spent.target, "sim-a");
  EXPECT_EQ(spent.usage, r.usage);

  // A cancelled attempt's spend is durable too.
  task_machine c(ctx_, spec());
  to_running(c);
  c.step(t0 + 20, task_ev::stop{});
  auto rc = result_of(c, "failed", "cancelled");
  rc.usage.output_tokens = 7;
  auto ended = c.step(t0 + 21, task_ev::attempt_finished{rc});
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(ended).changes),
            (std::vector<std::string>{"clear_active_stage", "record_attempt_usage"}));
}

// Ceilings (policy "limits"): with limits set, every attempt start reads
// what the task and the run spent first; a reached ceiling blocks the task
// with check_ceiling's reason, the run's before the task's.
class task_machine_limits_test : public task_machine_test {
protected:
  void SetUp() override {
    task_machine_test::SetUp();
    pol_.limits.task.tokens = 1000;
    pol_.limits.run.cost_usd = 2.0;
  }

  // A fresh worker to its launch's spend reading.
  void to_spend_read(task_machine& m) {
    m.step(t0, task_ev::begun{});
    m.step(t0, task_ev::cooldowns_read{});
    EXPECT_EQ(names(m.step(t0, task_ev::task_state_read{true, state_})),
              (std::vector<std::string>{"show", "read_spend"}));
    EXPECT_EQ(m.phase(), task_phase::launch_spending);
  }

  // The block that follows a spend reading: its changes and the end.
  void expect_blocked(task_machine& m, const cmds& blocked, const std::string& setting,
                      const std::string& reason_start) {
    ASSERT_EQ(names(blocked), (std::vector<std::string>{"make_durable"}));
    const auto& changes = the<task_cmd::make_durable>(blocked).changes;
    ASSERT_EQ(change_names(changes),
              (std::vector<std::string>{"clear_active_stage", "set_blocked"}));
    const auto& info = std::get<set_blocked>(changes[1]).info;
    EXPECT_EQ(info.evidence, setting);
    EXPECT_EQ(info.reason.rfind(reason_start, 0), 0u) << info.reason;
    auto end = m.step(t0 + 1, task_ev::durable{});
    ASSERT_EQ(names(end), (std::vector<std::string>{"end_task"}));
    EXPECT_EQ(the<task_cmd::end_task>(end).outcome, "blocked");
    EXPECT_EQ(the<task_cmd::end_task>(end).reason, info.reason);
    EXPECT_TRUE(m.ended());
  }
};

TEST_F(task_machine_limits_test, a_task_under_its_ceilings_reads_its_spend_then_launches) {
  task_machine m(ctx_, spec());
  to_spend_read(m);
  token_usage task{400, 20, {}, {}, {}, 0.5};
  EXPECT_EQ(names(m.step(t0, task_ev::spend_read{task, task})),
            (std::vector<std::string>{"read_for_launch"}));
  auto persist = m.step(t0, task_ev::launch_read{});
  EXPECT_EQ(change_names(the<task_cmd::make_durable>(persist).changes),
            (std::vector<std::string>{"record_decision", "record_attempt_started",
                                      "record_write_set"}));
  EXPECT_EQ(names(m.step(t0, task_ev::durable{})),
            (std::vector<std::string>{"checkpoint", "show", "start_attempt"}));
}

TEST_F(task_machine_limits_test, a_task_over_its_token_ceiling_blocks_before_it_starts) {
  task_machine m(ctx_, spec());
  to_spend_read(m);
  token_usage task{990, 10, {}, {}, {}, 0.1};
  auto blocked = m.step(t0, task_ev::spend_read{task, task});
  expect_blocked(m, blocked, "/limits/task/tokens",
                 "task token ceiling reached: 1,000 tokens spent, /limits/task/tokens is 1,000");
}

TEST_F(task_machine_limits_test, a_run_over_its_ceiling_blocks_a_task_that_spent_nothing) {
  task_machine m(ctx_, spec());
  to_spend_read(m);
  auto blocked = m.step(t0, task_ev::spend_read{{}, token_usage{5000, 10, {}, {}, {}, 2.5}});
  // The run's ceiling is checked first: the task's own is not reached.
  expect_blocked(m, blocked, "/limits/run/cost_usd",
                 "run cost ceiling reached: $2.50 spent, /limits/run/cost_usd is $2.00");
}

TEST_F(task_machine_limits_test, a_retry_is_checked_again_and_blocks_once_the_attempt_spent_it) {
  task_machine m(ctx_, spec());
  to_spend_read(m);
  m.step(t0, task_ev::spend_read{});
  m.step(t0, task_ev::launch_read{});
  m.step(t0, task_ev::durable{});
  to_supervisor(m, "generic-error");
  m.step(t0 + 20, task_ev::supervisor_decided{retry_same{"sim-a", "again", 0, "generic"}, {}, {}});
  auto read = m.step(t0 + 20, task_ev::task_state_read{true, state_});
  ASSERT_EQ(names(read), (std::vector<std::string>{"read_spend"}));
  token_usage spent{1500, 30, {}, {}, {}, 0.1};
  expect_blocked(m, m.step(t0 + 20, task_ev::spend_read{spent, spent}), "/limits/task/tokens",
                 "task token ceiling reached: 1,530 tokens spent");
}

TEST_F(task_machine_limits_test, a_cost_nobody_knows_is_one_warning_never_a_block) {
  task_machine m(ctx_, spec());
  to_spend_read(m);
  token_usage no_cost{100, 10, {}, {}, {}, {}};
  auto go = m.step(t0, task_ev::spend_read{no_cost, no_cost});
  ASSERT_EQ(names(go), (std::vector<std::string>{"note", "read_for_launch"}));
  EXPECT_NE(the<task_cmd::note>(go).text.find("run cost ceiling cannot see"), std::string::npos)
    << the<task_cmd::note>(go).text;
  m.step(t0, task_ev::launch_read{});
  m.step(t0, task_ev::durable{});
  to_supervisor(m, "generic-error");
  m.step(t0 + 20, task_ev::supervisor_decided{retry_same{"sim-a", "again", 0, "generic"}, {}, {}});
  m.step(t0 + 20, task_ev::task_state_read{true, state_});
  EXPECT_EQ(names(m.step(t0 + 20, task_ev::spend_read{no_cost, no_cost})),
            (std::vector<std::string>{"read_for_launch"}))
    << "the warning is given once";
}

TEST_F(task_machine_limits_test, a_stop_while_the_spend_is_read_starts_nothing) {
  task_machine m(ctx_, spec());
  to_spend_read(m);
  EXPECT_TRUE(m.step(t0, task_ev::stop{}).empty());
  auto end = m.step(t0, task_ev::spend_read{});
  EXPECT_EQ(the<task_cmd::end_task>(end).outcome, "cancelled");
}

TEST_F(task_machine_limits_test, an_adopted_attempt_is_never_checked) {
  auto s = spec();
  s.adopting = true;
  s.last_attempt = 2;
  s.adopted = {"/state/runs/x/locator.json", 4242, "777", "command", "b", ""};
  task_machine m(ctx_, s);
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{});
  auto adopt = m.step(t0, task_ev::task_state_read{true, state_});
  EXPECT_EQ(names(adopt), (std::vector<std::string>{"show", "show", "adopt_attempt"}));
}

TEST_F(task_machine_test, without_limits_no_spend_is_read) {
  ASSERT_TRUE(pol_.limits.empty());
  task_machine m(ctx_, spec());
  auto launch = to_running(m); // read_for_launch right after the state: no read_spend
  EXPECT_EQ(names(launch), (std::vector<std::string>{"checkpoint", "show", "start_attempt"}));
}

// A restart's adoption: the task follows the attempt its keeper runs instead
// of choosing a target and launching; nothing is made durable before (the
// attempt start was recorded by the run that started it), and its end is
// handled as any attempt's.
TEST_F(task_machine_test, an_adopted_attempt_is_followed_not_launched) {
  auto s = spec();
  s.last_attempt = 3;
  s.adopting = true;
  s.adopted = {"/state/runs/x/locator.json", 4242, "777", "command", "b", ""};
  task_machine m(ctx_, s);
  EXPECT_EQ(names(m.step(t0, task_ev::begun{})), (std::vector<std::string>{"read_cooldowns"}));
  EXPECT_EQ(names(m.step(t0, task_ev::cooldowns_read{})),
            (std::vector<std::string>{"read_task_state"}));
  auto follow = m.step(t0, task_ev::task_state_read{true, state_});
  EXPECT_EQ(names(follow), (std::vector<std::string>{"show", "show", "adopt_attempt"}));
  const auto& adopt = the<task_cmd::adopt_attempt>(follow);
  EXPECT_EQ(adopt.locator, "/state/runs/x/locator.json");
  EXPECT_EQ(adopt.keeper_pid, 4242);
  EXPECT_EQ(adopt.keeper_start_token, "777");
  EXPECT_EQ(adopt.order.attempt, 3);
  EXPECT_EQ(adopt.order.model, "b");
  const auto& started = std::get<task_cmd::show>(follow[1]).event;
  // No decision in state: the policy's target of the attempt's adapter and model.
  EXPECT_EQ(started.target, "sim-b");
  EXPECT_EQ(started.kind, run_event_kind::attempt_started);
  EXPECT_NE(started.reason.find("adopted from its keeper (pid 4242)"), std::string::npos);
  EXPECT_EQ(m.phase(), task_phase::running);
  EXPECT_EQ(m.identity(), "g__01_x__p1__worker__a03");

  auto ended = m.step(t0 + 10, task_ev::attempt_finished{result_of(m, "succeeded")});
  EXPECT_EQ(names(ended), (std::vector<std::string>{"checkpoint", "show", "read_after_attempt"}));
  EXPECT_TRUE(the<task_cmd::read_after_attempt>(ended).succeeded);
}

// Adoption of an attempt the policy no longer names: a target made up of
// the attempt's adapter and model; it is followed all the same.
TEST_F(task_machine_test, an_attempt_adopted_through_its_node_names_the_node) {
  auto s = spec();
  s.last_attempt = 3;
  s.adopting = true;
  s.adopted = {"/state/runs/x/locator.json", 4242, "777", "command", "b", "n2"};
  task_machine m(ctx_, s);
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{});
  auto follow = m.step(t0, task_ev::task_state_read{true, state_});
  ASSERT_EQ(names(follow), (std::vector<std::string>{"show", "show", "adopt_attempt"}));
  const auto& began = std::get<task_cmd::show>(follow[1]).event;
  EXPECT_EQ(began.kind, run_event_kind::attempt_started);
  EXPECT_EQ(began.node, "n2");
  EXPECT_NE(began.reason.find("adopted through node n2"), std::string::npos) << began.reason;
  EXPECT_EQ(the<task_cmd::adopt_attempt>(follow).order.node, "n2");
}

TEST_F(task_machine_test, an_adopted_attempt_of_an_unknown_target_is_followed_all_the_same) {
  auto s = spec();
  s.last_attempt = 1;
  s.adopting = true;
  s.adopted = {"/state/runs/y/locator.json", 99, "5", "codex", "gpt-old", ""};
  task_machine m(ctx_, s);
  m.step(t0, task_ev::begun{});
  m.step(t0, task_ev::cooldowns_read{});
  auto follow = m.step(t0, task_ev::task_state_read{true, state_});
  const auto& adopt = the<task_cmd::adopt_attempt>(follow);
  EXPECT_EQ(std::get<task_cmd::show>(follow[1]).event.target, "codex:gpt-old");
  EXPECT_EQ(adopt.order.adapter, "codex");
  EXPECT_EQ(adopt.order.model, "gpt-old");
}

} // namespace
} // namespace ad::runtime
