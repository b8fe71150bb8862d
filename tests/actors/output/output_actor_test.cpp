// The output actor on CAF's deterministic scheduler: events become plain
// lines or JSON Lines in order, the board is redrawn in place on its timer
// (elapsed times from an injected manual clock), NO_COLOR mode writes no
// colour codes, and flush/stop reply only after everything is written.
#include <gtest/gtest.h>

#include <utility>

#include <algorithm>
#include <optional>
#include <sstream>

#include <caf/all.hpp>

#include "actors/output/output_actor.hpp"
#include "messages/run_events.hpp"
#include "messages/types.hpp"
#include "runtime/core/json.hpp"
#include "runtime/report/terminal_text.hpp"

namespace ad::actors {
namespace {

using namespace ad::messages;

struct test_config : caf::actor_system_config {
  test_config() {
    set("scheduler.policy", caf::atom("testing"));
    register_message_types(*this);
  }
};

constexpr int64_t t0 = 1'800'000'000'000;  // 2027-01-15T08:00:00.000Z

class output_actor_test : public ::testing::Test {
protected:
  output_actor_test()
      : sys_(cfg_), sched_(dynamic_cast<caf::scheduler::test_coordinator&>(sys_.scheduler())) {}

  void TearDown() override {
    if (actor_) {
      caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
      sched_.run();
    }
  }

  void start(output_format format, runtime::colour_mode colours = runtime::colour_mode::plain,
             output_config config = {}) {
    config.format = format;
    config.stream = out_;
    config.clock = clock_;
    config.colours = colours;
    config.redraw_interval = std::chrono::milliseconds(500);
    actor_ = spawn_output(sys_, config);
    sched_.run();
  }

  template <class Request>
  std::optional<output_flushed> ask(Request req) {
    auto reply = std::make_shared<std::optional<output_flushed>>();
    auto target = actor_;
    // The unused int: CAF 0.17.6 dereferences a null argument tuple when a
    // function actor is spawned without arguments.
    sys_.spawn(
      [=](caf::event_based_actor* self, int) {
        self->request(target, std::chrono::seconds(5), req)
          .then([=](output_flushed& r) { *reply = r; }, [](caf::error&) {});
      },
      0);
    sched_.run();
    return *reply;
  }

  static runtime::run_event event(runtime::run_event_kind kind, int64_t time, std::string task,
                                  std::string stage = "", std::string reason = "") {
    runtime::run_event e;
    e.kind = kind;
    e.time = time;
    e.task = std::move(task);
    e.stage = std::move(stage);
    e.reason = std::move(reason);
    return e;
  }

  runtime::run_event began(std::string task, std::string id) {
    auto e = event(runtime::run_event_kind::attempt_started, t0, std::move(task));
    e.role = "worker";
    e.target = "codex-high";
    e.cli = "codex";
    e.model = "gpt-5";
    e.attempt = 1;
    e.identity = std::move(id);
    e.locator = "/state/runs/x/locator.json";
    return e;
  }

  runtime::run_event summary(int64_t time, int64_t complete, std::string reason) {
    auto e = event(runtime::run_event_kind::summary, time, "");
    e.counts = {{"complete", complete}};
    e.exit_code = 0;
    e.reason = std::move(reason);
    return e;
  }

  test_config cfg_;
  caf::actor_system sys_;
  caf::scheduler::test_coordinator& sched_;
  std::shared_ptr<std::ostringstream> out_ = std::make_shared<std::ostringstream>();
  std::shared_ptr<runtime::manual_clock> clock_ = std::make_shared<runtime::manual_clock>(t0);
  output_actor actor_;
};

TEST_F(output_actor_test, plain_lines_in_arrival_order) {
  start(output_format::lines);
  caf::anon_send(actor_, event(runtime::run_event_kind::task_started, t0, "g/01_a", "worker"));
  caf::anon_send(actor_, event(runtime::run_event_kind::task_blocked, t0 + 1000, "g/02_b", "review", "no verdict"));
  sched_.run();
  EXPECT_EQ(out_->str(),
            "2027-01-15T08:00:00.000Z task_started g/01_a stage=worker\n"
            "2027-01-15T08:00:01.000Z task_blocked g/02_b stage=review: no verdict\n");
  auto flushed = ask(flush_output{});
  ASSERT_TRUE(flushed);
  EXPECT_EQ(flushed->events_written, 2);
}

// A stream that counts its flushes (std::ostream::flush calls pubsync).
struct counted_flushes : std::stringbuf {
  int flushes = 0;
  int sync() override {
    ++flushes;
    return std::stringbuf::sync();
  }
};
struct counting_stream : std::ostream {
  counting_stream() : std::ostream(nullptr) { rdbuf(&buf); }
  counted_flushes buf;
};

TEST_F(output_actor_test, a_burst_of_lines_is_flushed_once_after_its_last_line) {
  auto stream = std::make_shared<counting_stream>();
  auto& buf = stream->buf;
  output_config config;
  config.format = output_format::lines;
  config.stream = stream;
  config.clock = clock_;
  actor_ = spawn_output(sys_, config);
  sched_.run();
  // A first pass shows thousands of waiting tasks at once: they are in the
  // mailbox together, and written with one flush after the last.
  for (int i = 0; i < 3; ++i)
    caf::anon_send(actor_, event(runtime::run_event_kind::task_waiting, t0, "g/0" + std::to_string(i + 1) + "_a",
                                 "worker", "capacity: 8 of 8 running"));
  sched_.run();
  EXPECT_EQ(buf.flushes, 1);
  auto text = buf.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_NE(text.find("task_waiting g/03_a stage=worker: capacity: 8 of 8 running\n"), std::string::npos);
  // A line alone is flushed at once, without waiting for another.
  caf::anon_send(actor_, event(runtime::run_event_kind::task_started, t0 + 1, "g/04_a", "worker"));
  sched_.run();
  EXPECT_EQ(buf.flushes, 2);
  EXPECT_NE(buf.str().find("task_started g/04_a stage=worker\n"), std::string::npos);
}

TEST_F(output_actor_test, json_lines_end_with_the_summary) {
  start(output_format::json_lines);
  caf::anon_send(actor_, began("g/01_a", "g_01_a__p1__worker__a01"));
  auto ended = event(runtime::run_event_kind::attempt_finished, t0 + 5, "g/01_a");
  ended.role = "worker";
  ended.target = "codex-high";
  ended.identity = "g_01_a__p1__worker__a01";
  ended.attempt_status = "failed";
  ended.exit_code = 1;
  ended.failure_class = "provider-quota";
  ended.evidence = "429";
  ended.locator = "/l.json";
  caf::anon_send(actor_, ended);
  auto failover = event(runtime::run_event_kind::failover, t0 + 6, "g/01_a", "", "quota");
  failover.role = "worker";
  failover.from_target = "codex-high";
  failover.to_target = "claude";
  caf::anon_send(actor_, failover);
  caf::anon_send(actor_, summary(t0 + 7, 1, "all complete"));
  sched_.run();
  std::istringstream lines(out_->str());
  std::vector<runtime::json> events;
  for (std::string line; std::getline(lines, line);) {
    auto j = runtime::parse_json(line, "line");
    ASSERT_TRUE(j) << line;
    events.push_back(*j);
  }
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].at("event"), "attempt_started");
  EXPECT_EQ(events[0].at("identity"), "g_01_a__p1__worker__a01");
  EXPECT_EQ(events[1].at("event"), "attempt_finished");
  EXPECT_EQ(events[1].at("failure_class"), "provider-quota");
  EXPECT_EQ(events[2].at("event"), "failover");
  EXPECT_EQ(events[2].at("to_target"), "claude");
  EXPECT_EQ(events[3].at("event"), "summary");
  EXPECT_EQ(events[3].at("exit_code"), 0);
  EXPECT_EQ(events[3].at("complete"), 1);
}

TEST_F(output_actor_test, board_redraws_in_place_on_the_timer) {
  start(output_format::board);
  auto scanned = event(runtime::run_event_kind::tasks_scanned, t0, "");
  scanned.tasks = {{"g/01_a", "worker", "pending", ""}, {"g/02_b", "worker", "pending", ""}};
  caf::anon_send(actor_, scanned);
  caf::anon_send(actor_, began("g/01_a", "id1"));
  sched_.run();
  EXPECT_EQ(out_->str(), "");  // nothing before the first tick
  clock_->advance(3000);
  EXPECT_EQ(sched_.advance_time(std::chrono::milliseconds(500)), 1u);
  sched_.run();
  auto first = out_->str();
  EXPECT_EQ(first.rfind("\x1b[2K", 0), 0u);  // first frame: nothing to move over
  EXPECT_NE(first.find("1 running  1 pending"), std::string::npos);
  EXPECT_NE(first.find("g/01_a  worker    codex-high   #1  08:00:00 3s"), std::string::npos);
  EXPECT_EQ(first.find("\x1b[3"), std::string::npos);  // no colours in plain mode
  auto lines = std::count(first.begin(), first.end(), '\n');

  clock_->advance(62'000);
  EXPECT_EQ(sched_.advance_time(std::chrono::milliseconds(500)), 1u);
  sched_.run();
  auto second = out_->str().substr(first.size());
  EXPECT_EQ(second.rfind("\r\x1b[" + std::to_string(lines) + "A\x1b[2K", 0), 0u);
  EXPECT_NE(second.find("1m05s"), std::string::npos);
}

TEST_F(output_actor_test, board_fits_the_terminal_read_at_each_frame_and_redraws_on_a_resize) {
  auto size = std::make_shared<runtime::terminal_size>(runtime::terminal_size{80, 24});
  auto locators = std::make_shared<std::vector<std::string>>();
  output_config config;
  config.terminal = [size] { return *size; };
  config.live_output = [locators](const std::string& identity, const std::string& locator) {
    locators->push_back(identity + " " + locator);
    return runtime::attempt_live{std::string("tool: Write src/") + std::string(100, 'x') + ".cpp", {}};
  };
  start(output_format::board, runtime::colour_mode::plain, config);
  auto a = began("g/01_a", "id1");
  a.locator = "/state/runs/x/locator.json";
  caf::anon_send(actor_, a);
  sched_.run();
  sched_.advance_time(std::chrono::milliseconds(500));
  sched_.run();
  auto first = out_->str();
  ASSERT_FALSE(locators->empty());
  EXPECT_EQ(locators->back(), "id1 /state/runs/x/locator.json");
  EXPECT_NE(first.find("tool: Write src/xxx"), std::string::npos) << first;
  auto frame = first.substr(0, first.rfind("\x1b[J"));  // the lines, cleared ones included
  for (size_t start = 0, nl = frame.find('\n'); nl != std::string::npos;
       start = nl + 1, nl = frame.find('\n', start))
    EXPECT_LE(runtime::display_width(frame.substr(start, nl - start)), 80u);
  auto rows = runtime::frame_rows(frame, 80);

  // The terminal narrows to 30 columns: the 80-column lines drawn before
  // now take more rows, and the cursor goes back over all of them (and,
  // after the resize, clears what is above them).
  *size = {30, 24};
  sched_.advance_time(std::chrono::milliseconds(500));
  sched_.run();
  auto second = out_->str().substr(first.size());
  auto rows_now = runtime::frame_rows(frame, 30);
  EXPECT_GT(rows_now, rows);
  EXPECT_EQ(second.rfind("\r\x1b[" + std::to_string(rows_now) + "A\x1b[1J\x1b[2K", 0), 0u)
    << second;
}

TEST_F(output_actor_test, board_redraws_when_only_the_terminal_size_changed) {
  auto size = std::make_shared<runtime::terminal_size>(runtime::terminal_size{80, 24});
  output_config config;
  config.terminal = [size] { return *size; };
  start(output_format::board, runtime::colour_mode::plain, config);
  caf::anon_send(actor_, event(runtime::run_event_kind::task_waiting, t0, "g/01_a", "worker", "x"));
  sched_.run();
  sched_.advance_time(std::chrono::milliseconds(500));
  sched_.run();
  auto drawn = out_->str().size();
  sched_.advance_time(std::chrono::milliseconds(500));
  sched_.run();
  EXPECT_EQ(out_->str().size(), drawn);  // nothing changed: no frame
  *size = {100, 30};
  sched_.advance_time(std::chrono::milliseconds(500));
  sched_.run();
  EXPECT_GT(out_->str().size(), drawn);
}

TEST_F(output_actor_test, board_idle_without_changes_does_not_redraw) {
  start(output_format::board);
  caf::anon_send(actor_, event(runtime::run_event_kind::task_waiting, t0, "g/01_a", "worker", "dependency g/00"));
  sched_.run();
  sched_.advance_time(std::chrono::milliseconds(500));
  sched_.run();
  auto after_first = out_->str().size();
  EXPECT_GT(after_first, 0u);
  sched_.advance_time(std::chrono::milliseconds(500));
  sched_.run();
  EXPECT_EQ(out_->str().size(), after_first);
}

TEST_F(output_actor_test, board_colours_when_allowed) {
  start(output_format::board, runtime::colour_mode::ansi);
  caf::anon_send(actor_, event(runtime::run_event_kind::task_blocked, t0, "g/01_a", "review", "x"));
  sched_.run();
  ASSERT_TRUE(ask(flush_output{}));
  EXPECT_NE(out_->str().find("\x1b[31m1 blocked\x1b[0m"), std::string::npos);
}

TEST_F(output_actor_test, summary_draws_the_final_frame_and_stop_quits) {
  start(output_format::board);
  caf::anon_send(actor_, summary(t0, 2, "done"));
  sched_.run();
  EXPECT_NE(out_->str().find("summary 2 tasks: 2 complete; exit 0 (done)"), std::string::npos);
  auto reply = ask(stop_output{});
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->events_written, 1);
  // The actor is gone: a later flush gets no reply.
  EXPECT_FALSE(ask(flush_output{}));
  actor_ = nullptr;
}

// A warning logged while the board is on the screen is drawn inside the
// frame, among the recent lines, not written over it.
TEST_F(output_actor_test, board_shows_the_held_console_lines_in_its_frame) {
  output_config config;
  auto held = std::make_shared<std::vector<std::string>>(
    std::vector<std::string>{"warning: node n1: not reachable"});
  config.console_lines = [held] { return std::exchange(*held, {}); };
  start(output_format::board, runtime::colour_mode::plain, config);
  caf::anon_send(actor_, summary(t0, 2, "done"));
  sched_.run();
  auto text = out_->str();
  auto recent = text.find("recent:");
  ASSERT_NE(recent, std::string::npos) << text;
  EXPECT_NE(text.find("warning: node n1: not reachable", recent), std::string::npos) << text;
  EXPECT_TRUE(held->empty()) << "taken once";
}

TEST(output_format_choice, json_wins_then_terminal_means_board) {
  EXPECT_EQ(choose_output_format(stdout_kind::terminal, json_request::on), output_format::json_lines);
  EXPECT_EQ(choose_output_format(stdout_kind::terminal, json_request::off), output_format::board);
  EXPECT_EQ(choose_output_format(stdout_kind::pipe, json_request::off), output_format::lines);
}

} // namespace
} // namespace ad::actors
