#include "runtime/replay/scheduler_replay.hpp"

#include <gtest/gtest.h>

#include "runtime/records/scheduler_records.hpp"
#include "runtime/trace/trace_kinds.hpp"

namespace ad::runtime {
namespace {

// A run of the scheduler machine recorded as the scheduler actor records
// it: each event with its clock reading, then the commands it returned.
struct recorder {
  explicit recorder(const scheduler_context& ctx) : machine(ctx) {}

  void feed(millis now, const scheduler_event& e) {
    auto body = to_json(e);
    body["now"] = now;
    auto commands = machine.step(now, e);
    auto edge = ++seq;
    trace.records.push_back({edge, trace_direction::edge, std::string(trace_kinds::scheduler_event),
                             0, body});
    trace.records.push_back({++seq, trace_direction::decision,
                             std::string(trace_kinds::scheduler_commands), edge,
                             json{{"commands", commands_to_json(commands)}}});
  }

  scheduler_machine machine;
  trace_file trace;
  int64_t seq = 0;
};

class scheduler_replay_test : public ::testing::Test {
protected:
  scheduler_replay_test() {
    ctx.pol = &pol;
    ctx.zone = &zone;
    ctx.task_root = "/w/agent-task";
    ctx.max_parallel = 2;
  }

  replay_report replay(const trace_file& t) {
    replay_handlers h;
    add_scheduler_machine_replay(h, pol, zone, ctx);
    return replay_trace(t, h, trace_paths{});
  }

  // A run that starts, finds one task, starts it, and ends when it ends.
  trace_file one_task_run() {
    recorder r(ctx);
    r.feed(1000, sched_ev::begun{});
    r.feed(1001, sched_ev::state_snapshot{0, {}});
    r.feed(1001, sched_ev::active_stages_read{});
    scanned_task t;
    t.name = "g/01_a";
    t.directory = "/w/agent-task/g/01_a";
    t.grade = 5;
    scan_reading reading;
    reading.full = true;
    reading.changed = {"g/01_a"};
    reading.tasks = {t};
    r.feed(1001, sched_ev::scan_read{reading});
    r.feed(1001, sched_ev::archives_found{});
    r.feed(1002, sched_ev::state_published{1, {}});
    r.feed(1002, sched_ev::state_applied{1});
    r.feed(2000, sched_ev::task_ended{"g/01_a", "worker", "error", "timeout", 0});
    return r.trace;
  }

  policy pol = *parse_policy(default_policy_json(), "default");
  time_zone zone = time_zone::fixed("UTC", 0);
  scheduler_context ctx;
};

TEST_F(scheduler_replay_test, a_recorded_run_replays_identically_and_ends) {
  auto t = one_task_run();
  bool ends = false;
  for (const auto& r : t.records)
    ends = ends || ends_run(r);
  EXPECT_TRUE(ends);
  auto same = replay(t);
  EXPECT_FALSE(same.divergence) << render_divergence(*same.divergence);
  EXPECT_EQ(same.compared, static_cast<int>(t.records.size() / 2));
  EXPECT_TRUE(same.not_replayed.empty());
}

TEST_F(scheduler_replay_test, another_option_or_reading_diverges_at_its_commands) {
  auto t = one_task_run();
  // A scan that read no task: nothing is admitted where the run started one.
  for (auto& r : t.records)
    if (r.kind == "scheduler.event" && r.body["event"] == "scan_read") {
      r.body["reading"]["tasks"] = json::array();
      auto d = replay(t).divergence;
      ASSERT_TRUE(d);
      EXPECT_EQ(d->cause, r.seq);
      EXPECT_EQ(d->kind, "scheduler.commands");
      break;
    }
}

TEST_F(scheduler_replay_test, an_event_that_does_not_decode_is_an_error_naming_it) {
  auto t = one_task_run();
  t.records[6].body["reading"]["full"] = "yes";
  auto report = replay(t);
  ASSERT_TRUE(report.divergence);
  EXPECT_NE(report.divergence->actual.dump().find("scheduler.event"), std::string::npos)
    << report.divergence->actual.dump();
}

TEST_F(scheduler_replay_test, every_event_round_trips_through_its_json_form) {
  for (const auto& r : one_task_run().records) {
    if (r.kind != "scheduler.event")
      continue;
    auto e = scheduler_event_from_json(r.body);
    ASSERT_TRUE(e.is_ok()) << e.error().message();
    auto back = to_json(*e);
    back["now"] = r.body["now"];
    EXPECT_EQ(back, r.body);
  }
  EXPECT_FALSE(scheduler_event_from_json(json{{"event", "nothing"}}).is_ok());
}

} // namespace
} // namespace ad::runtime
