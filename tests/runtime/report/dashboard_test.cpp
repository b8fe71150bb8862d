#include "runtime/report/dashboard.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "runtime/report/event_fanout.hpp"

namespace ad::runtime {
namespace {

constexpr millis dashboard_t0 = 1'800'000'000'000;  // 2027-01-15T08:00:00.000Z

run_event ev(run_event_kind kind, std::string task, millis at = dashboard_t0) {
  run_event e;
  e.kind = kind;
  e.time = at;
  e.task = std::move(task);
  return e;
}

// A run with one task of each kind the overview shows.
dashboard_model four_tasks() {
  dashboard_options o;
  o.board.retry_command = "agent-dispatch run --workspace ws --retry-blocked";
  dashboard_model m(o);
  auto scan = ev(run_event_kind::tasks_scanned, "");
  scan.tasks = {{"g/01_run", "worker", "pending", ""},
                {"g/02_wait", "worker", "waiting", "waits for g/01_run", std::string(wait_dependency)},
                {"g/03_block", "review", "blocked", "no verdict"},
                {"g/04_done", "review", "complete", ""},
                {"g/05_stop", "user-review", "blocked", "USER_REVIEW: approve the milestone"}};
  m.apply(scan);
  auto started = ev(run_event_kind::attempt_started, "g/01_run", dashboard_t0 + 1000);
  started.role = "worker";
  started.target = "claude";
  started.attempt = 1;
  started.identity = "g__01_run__p1__worker__a01";
  started.locator = "/state/runs/x/locator.json";
  m.apply(started);
  auto cool = ev(run_event_kind::supervisor_wait, "g/02_wait", dashboard_t0 + 2000);
  cool.wait = std::string(wait_cool_down);
  cool.until = dashboard_t0 + 600'000;
  cool.target = "codex";
  cool.reason = "every target cools down";
  m.apply(cool);
  return m;
}

TEST(dashboard_model, the_overview_shows_each_task_with_its_status) {
  auto m = four_tasks();
  auto j = m.state(dashboard_t0 + 5000, [](const std::string& identity, const std::string& locator) {
    token_usage so_far;
    so_far.input_tokens = 12'300;
    so_far.output_tokens = 45;
    return identity == "g__01_run__p1__worker__a01" && locator == "/state/runs/x/locator.json"
             ? attempt_live{"tool: Write src/x.cpp", so_far}
             : attempt_live{};
  });
  EXPECT_EQ(j["time"], "2027-01-15T08:00:05.000Z");
  EXPECT_EQ(j["counts"]["running"], 1);
  EXPECT_EQ(j["counts"]["waiting"], 1);
  EXPECT_EQ(j["counts"]["blocked"], 2);
  EXPECT_EQ(j["counts"]["complete"], 1);
  EXPECT_EQ(j["counts"]["pending"], 0);
  ASSERT_EQ(j["running"].size(), 1u);
  EXPECT_EQ(j["running"][0]["task"], "g/01_run");
  EXPECT_EQ(j["running"][0]["target"], "claude");
  EXPECT_EQ(j["running"][0]["started"], "2027-01-15T08:00:01.000Z");
  EXPECT_EQ(j["running"][0]["output"], "tool: Write src/x.cpp");
  EXPECT_EQ(j["running"][0]["usage"], (json{{"input_tokens", 12'300}, {"output_tokens", 45}}));
  EXPECT_EQ(j["running"][0]["usage_text"], "12,300 in · 45 out");
  EXPECT_EQ(j["usage"], json::object()) << "nothing finished yet";
  EXPECT_EQ(j["usage_text"], "");
  ASSERT_EQ(j["waits"].size(), 1u);
  EXPECT_EQ(j["waits"][0]["kind"], "cool-down");
  EXPECT_EQ(j["waits"][0]["tasks"][0]["task"], "g/02_wait");
  EXPECT_EQ(j["waits"][0]["tasks"][0]["until"], "2027-01-15T08:10:00.000Z");
  EXPECT_EQ(j["waits"][0]["tasks"][0]["target"], "codex");
  ASSERT_EQ(j["blocked"].size(), 1u);
  EXPECT_EQ(j["blocked"][0]["task"], "g/03_block");
  EXPECT_EQ(j["blocked"][0]["reason"], "no verdict");
  EXPECT_EQ(j["blocked"][0]["retry"],
            "agent-dispatch run --workspace ws --retry-blocked --task-group g");
  ASSERT_EQ(j["user_review"].size(), 1u);
  EXPECT_EQ(j["user_review"][0]["task"], "g/05_stop");
  EXPECT_EQ(j["user_review"][0]["reason"], "USER_REVIEW: approve the milestone");
  EXPECT_EQ(j["finished"], false);
}

TEST(dashboard_model, a_task_shows_its_attempts_and_events) {
  auto m = four_tasks();
  auto finished = ev(run_event_kind::attempt_finished, "g/01_run", dashboard_t0 + 9000);
  finished.identity = "g__01_run__p1__worker__a01";
  finished.attempt_status = "failed";
  finished.exit_code = 1;
  finished.failure_class = "provider-quota";
  finished.evidence = "429\nToo Many Requests";
  finished.usage.input_tokens = 1200;
  finished.usage.cost_usd = 0.5;
  m.apply(finished);
  auto j = m.task("g/01_run", dashboard_t0 + 10'000);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["status"], "running");
  ASSERT_EQ((*j)["attempts"].size(), 1u);
  auto a = (*j)["attempts"][0];
  EXPECT_EQ(a["identity"], "g__01_run__p1__worker__a01");
  EXPECT_EQ(a["status"], "failed");
  EXPECT_EQ(a["failure_class"], "provider-quota");
  EXPECT_EQ(a["evidence"], "429 Too Many Requests");
  EXPECT_EQ(a["finished"], "2027-01-15T08:00:09.000Z");
  EXPECT_EQ(a["locator"], "/state/runs/x/locator.json");
  EXPECT_EQ(a["usage_text"], "1,200 in · $0.5000");
  EXPECT_EQ((*j)["usage_text"], "1,200 in · $0.5000");
  ASSERT_EQ((*j)["events"].size(), 2u);
  EXPECT_EQ((*j)["events"][1]["event"], "attempt_finished");
  EXPECT_FALSE(m.task("g/99_unknown", dashboard_t0));
  auto blocked = m.task("g/03_block", dashboard_t0);
  ASSERT_TRUE(blocked);
  EXPECT_EQ((*blocked)["blocked"]["retry"],
            "agent-dispatch run --workspace ws --retry-blocked --task-group g");
}

TEST(dashboard_model, the_run_spent_what_its_attempts_spent_then_what_the_summary_says) {
  auto m = four_tasks();
  for (int i = 1; i <= 2; ++i) {
    auto finished = ev(run_event_kind::attempt_finished, "g/01_run", dashboard_t0 + 9000);
    finished.identity = "g__01_run__p1__worker__a0" + std::to_string(i);
    finished.attempt_status = "succeeded";
    finished.usage.input_tokens = 1000;
    finished.usage.output_tokens = 10;
    m.apply(finished);
  }
  EXPECT_EQ(m.state(dashboard_t0 + 10'000)["usage"], (json{{"input_tokens", 2000}, {"output_tokens", 20}}));
  auto summary = ev(run_event_kind::summary, "", dashboard_t0 + 11'000);
  summary.usage.input_tokens = 5000;  // earlier runs' attempts too
  summary.usage.cost_usd = 1.25;
  m.apply(summary);
  auto j = m.state(dashboard_t0 + 12'000);
  EXPECT_EQ(j["usage"], (json{{"input_tokens", 5000}, {"cost_usd", 1.25}}));
  EXPECT_EQ(j["usage_text"], "5,000 in · $1.25");
}

TEST(dashboard_model, a_target_shows_its_quota_failures_usage_and_running_attempts) {
  auto m = four_tasks();  // g/01_run runs on claude
  auto quota_out = ev(run_event_kind::attempt_finished, "g/03_block", dashboard_t0 + 3000);
  quota_out.target = "codex";
  quota_out.identity = "g__03_block__p1__review__a01";
  quota_out.attempt_status = "failed";
  quota_out.failure_class = "provider-quota";
  quota_out.evidence = "You've hit your usage limit";
  quota_out.usage.input_tokens = 100;
  m.apply(quota_out);
  auto j = m.targets(dashboard_t0 + 4000);
  ASSERT_EQ(j["targets"].size(), 2u) << j.dump(2);
  auto claude = j["targets"][0];
  EXPECT_EQ(claude["target"], "claude");
  EXPECT_EQ(claude["quota"], "available");
  ASSERT_EQ(claude["running"].size(), 1u);
  EXPECT_EQ(claude["running"][0]["task"], "g/01_run");
  auto codex = j["targets"][1];
  EXPECT_EQ(codex["quota"], "exhausted");
  EXPECT_EQ(codex["until"], nullptr);
  EXPECT_EQ(codex["failure_counts"]["provider-quota"], 1);
  EXPECT_EQ(codex["failures"][0]["task"], "g/03_block");
  EXPECT_EQ(codex["failures"][0]["evidence"], "You've hit your usage limit");
  EXPECT_EQ(codex["usage_text"], "100 in");

  auto reset = ev(run_event_kind::supervisor_wait, "g/03_block", dashboard_t0 + 5000);
  reset.target = "codex";
  reset.wait = std::string(wait_quota_reset);
  reset.until = dashboard_t0 + 3'600'000;
  reset.reason = "waiting for the quota of codex to reset";
  m.apply(reset);
  codex = m.targets(dashboard_t0 + 6000)["targets"][1];
  EXPECT_EQ(codex["quota"], "quota-reset");
  EXPECT_EQ(codex["until"], "2027-01-15T09:00:00.000Z");
  EXPECT_EQ(m.targets(dashboard_t0 + 3'600'000)["targets"][1]["quota"], "available")
    << "a wait whose end has passed holds nothing back";
  auto again = ev(run_event_kind::attempt_started, "g/03_block", dashboard_t0 + 7000);
  again.target = "codex";
  again.identity = "g__03_block__p1__review__a02";
  m.apply(again);
  EXPECT_EQ(m.targets(dashboard_t0 + 8000)["targets"][1]["quota"], "available")
    << "the dispatcher started an attempt there again";
}

TEST(dashboard_model, a_target_cooling_down_shows_its_end_until_it_passes) {
  auto m = four_tasks();  // its events name claude and codex
  EXPECT_TRUE(m.set_cooldowns({{"pi", {dashboard_t0 + 1'800'000, "provider-quota on g/03_block"}}}));
  EXPECT_FALSE(m.set_cooldowns({{"pi", {dashboard_t0 + 1'800'000, "provider-quota on g/03_block"}}}))
    << "nothing changed";
  auto j = m.targets(dashboard_t0 + 1000);
  ASSERT_EQ(j["targets"].size(), 3u) << j.dump(2);
  auto pi = j["targets"][2];
  EXPECT_EQ(pi["target"], "pi") << "a cooling target shows though no event named it";
  EXPECT_EQ(pi["quota"], "cool-down");
  EXPECT_EQ(pi["until"], "2027-01-15T08:30:00.000Z");
  EXPECT_EQ(pi["quota_reason"], "provider-quota on g/03_block");
  EXPECT_EQ(m.targets(dashboard_t0 + 1'800'000)["targets"].size(), 2u) << "over: nothing to show";
}

TEST(dashboard_model, a_node_shows_its_attempts) {
  dashboard_model m;
  auto started = ev(run_event_kind::attempt_started, "g/01_a", dashboard_t0);
  started.identity = "g__01_a__p1__worker__a01";
  started.target = "claude";
  started.node = "gpu-1";
  m.apply(started);
  started.task = "g/02_b";
  started.identity = "g__02_b__p1__worker__a01";
  m.apply(started);
  auto finished = ev(run_event_kind::attempt_finished, "g/02_b", dashboard_t0 + 1000);
  finished.identity = "g__02_b__p1__worker__a01";
  finished.failure_class = "node-lost";
  m.apply(finished);
  auto j = m.nodes(dashboard_t0 + 2000);
  ASSERT_EQ(j["nodes"].size(), 1u);
  auto n = j["nodes"][0];
  EXPECT_EQ(n["node"], "gpu-1");
  EXPECT_EQ(n["started"], 2);
  EXPECT_EQ(n["finished"], 1);
  EXPECT_EQ(n["failed"], 1);
  ASSERT_EQ(n["running"].size(), 1u);
  EXPECT_EQ(n["running"][0]["task"], "g/01_a");
  EXPECT_EQ(n["failures"][0]["failure_class"], "node-lost");
}

TEST(dashboard_model, a_node_shows_its_slots_and_lease_from_its_latest_status) {
  dashboard_model m;
  auto status = ev(run_event_kind::node_status, "", dashboard_t0);
  status.node = "gpu-1";
  status.slots = 4;
  status.slots_in_use = 1;
  status.lease = "held";
  status.until = dashboard_t0 + 10'000;
  m.apply(status);
  auto n = m.nodes(dashboard_t0)["nodes"][0];
  EXPECT_EQ(n["node"], "gpu-1");
  EXPECT_EQ(n["slots"], 4);
  EXPECT_EQ(n["slots_in_use"], 1);
  EXPECT_EQ(n["lease"], "held");
  EXPECT_EQ(n["lease_until"], "2027-01-15T08:00:10.000Z");
  EXPECT_EQ(n["problem"], "");

  status.time = dashboard_t0 + 15'000;
  status.slots_in_use = 0;
  status.lease = "lost";
  status.until = dashboard_t0 + 12'000;
  status.reason = "connection refused\n(port 7000)";
  m.apply(status);
  n = m.nodes(dashboard_t0 + 15'000)["nodes"][0];
  EXPECT_EQ(n["slots_in_use"], 0);
  EXPECT_EQ(n["lease"], "lost");
  EXPECT_EQ(n["lease_until"], "2027-01-15T08:00:12.000Z");
  EXPECT_EQ(n["problem"], "connection refused (port 7000)");
  // A node status is no task's event.
  EXPECT_TRUE(m.board().task_statuses().empty());
}

TEST(dashboard_model, a_node_seen_only_through_its_attempts_has_no_lease_yet) {
  dashboard_model m;
  auto started = ev(run_event_kind::attempt_started, "g/01_a", dashboard_t0);
  started.identity = "g__01_a__p1__worker__a01";
  started.node = "gpu-1";
  m.apply(started);
  auto n = m.nodes(dashboard_t0)["nodes"][0];
  EXPECT_TRUE(n["lease"].is_null());
  EXPECT_TRUE(n["lease_until"].is_null());
}

TEST(event_fanout, every_subscriber_gets_every_message_in_order) {
  event_fanout f(4);
  auto a = f.subscribe();
  auto b = f.subscribe();
  f.publish("one");
  f.publish("two");
  for (auto* s : {a.get(), b.get()}) {
    EXPECT_EQ(s->take(std::chrono::milliseconds(0)).message, "one");
    EXPECT_EQ(s->take(std::chrono::milliseconds(0)).message, "two");
    EXPECT_EQ(s->take(std::chrono::milliseconds(0)).what,
              event_fanout::subscriber::state::idle);
  }
}

TEST(event_fanout, a_subscriber_that_does_not_read_is_dropped_and_publish_never_waits) {
  event_fanout f(3);
  auto slow = f.subscribe();
  auto fast = f.subscribe();
  for (int i = 0; i < 1000; ++i) {
    f.publish("m" + std::to_string(i));
    EXPECT_EQ(fast->take(std::chrono::milliseconds(0)).message, "m" + std::to_string(i));
  }
  EXPECT_EQ(slow->take(std::chrono::milliseconds(0)).what,
            event_fanout::subscriber::state::dropped);
  EXPECT_EQ(f.subscribers(), 1u);
  EXPECT_EQ(f.dropped(), 1);
}

TEST(event_fanout, take_wakes_on_publish_and_on_close) {
  event_fanout f;
  auto s = f.subscribe();
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    f.publish("hello");
  });
  auto t = s->take(std::chrono::seconds(10));
  later.join();
  EXPECT_EQ(t.message, "hello");
  f.close();
  EXPECT_EQ(s->take(std::chrono::seconds(10)).what, event_fanout::subscriber::state::closed);
  EXPECT_EQ(f.subscribe()->take(std::chrono::seconds(10)).what,
            event_fanout::subscriber::state::closed);
}

} // namespace
} // namespace ad::runtime
