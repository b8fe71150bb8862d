#include "runtime/report/dashboard.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "runtime/report/event_fanout.hpp"

namespace ad::runtime {
namespace {

constexpr millis t0 = 1'800'000'000'000;  // 2027-01-15T08:00:00.000Z

run_event ev(run_event_kind kind, std::string task, millis at = t0) {
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
  auto started = ev(run_event_kind::attempt_started, "g/01_run", t0 + 1000);
  started.role = "worker";
  started.target = "claude";
  started.attempt = 1;
  started.identity = "g__01_run__p1__worker__a01";
  started.locator = "/state/runs/x/locator.json";
  m.apply(started);
  auto cool = ev(run_event_kind::supervisor_wait, "g/02_wait", t0 + 2000);
  cool.wait = std::string(wait_cool_down);
  cool.until = t0 + 600'000;
  cool.target = "codex";
  cool.reason = "every target cools down";
  m.apply(cool);
  return m;
}

TEST(dashboard_model, the_overview_shows_each_task_with_its_status) {
  auto m = four_tasks();
  auto j = m.state(t0 + 5000, [](const std::string& identity, const std::string& locator) {
    return identity == "g__01_run__p1__worker__a01" && locator == "/state/runs/x/locator.json"
             ? "tool: Write src/x.cpp"
             : "";
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
  auto finished = ev(run_event_kind::attempt_finished, "g/01_run", t0 + 9000);
  finished.identity = "g__01_run__p1__worker__a01";
  finished.attempt_status = "failed";
  finished.exit_code = 1;
  finished.failure_class = "provider-quota";
  finished.evidence = "429\nToo Many Requests";
  m.apply(finished);
  auto j = m.task("g/01_run", t0 + 10'000);
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
  ASSERT_EQ((*j)["events"].size(), 2u);
  EXPECT_EQ((*j)["events"][1]["event"], "attempt_finished");
  EXPECT_FALSE(m.task("g/99_unknown", t0));
  auto blocked = m.task("g/03_block", t0);
  ASSERT_TRUE(blocked);
  EXPECT_EQ((*blocked)["blocked"]["retry"],
            "agent-dispatch run --workspace ws --retry-blocked --task-group g");
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
