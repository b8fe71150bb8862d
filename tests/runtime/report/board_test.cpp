#include "runtime/report/board.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

constexpr millis t0 = 1'800'000'000'000;

run_event scanned(std::vector<report_task_entry> tasks) {
  run_event e;
  e.kind = run_event_kind::tasks_scanned;
  e.time = t0;
  e.tasks = std::move(tasks);
  return e;
}

run_event attempt(run_event_kind kind, std::string task, std::string id, millis at) {
  run_event e;
  e.kind = kind;
  e.time = at;
  e.task = std::move(task);
  e.role = "worker";
  e.target = "codex-high";
  e.attempt = 1;
  e.identity = std::move(id);
  return e;
}

TEST(run_board, a_claim_violation_shows_among_the_recent_events_and_keeps_the_task_running) {
  run_board b;
  b.apply(attempt(run_event_kind::attempt_started, "g/01_a", "g_01_a__p1__worker__a01", t0));
  run_event v;
  v.kind = run_event_kind::claim_violation;
  v.time = t0 + 1000;
  v.task = "g/01_a";
  v.identity = "g_01_a__p1__worker__a01";
  v.path = "/ws/README.md";
  v.attribution = "fanotify";
  v.action = "warn";
  b.apply(v);
  EXPECT_EQ(b.task_statuses().at("g/01_a"), task_status_running);
  EXPECT_EQ(b.running().size(), 1u);
  auto frame = b.frame(t0 + 2000, colour_mode::plain);
  EXPECT_NE(frame.find("claim_violation g/01_a identity=g_01_a__p1__worker__a01 "
                       "path=/ws/README.md basis=fanotify action=warn"),
            std::string::npos)
    << frame;
}

TEST(format_elapsed, seconds_minutes_hours) {
  EXPECT_EQ(format_elapsed(0), "0s");
  EXPECT_EQ(format_elapsed(42'999), "42s");
  EXPECT_EQ(format_elapsed(187'000), "3m07s");
  EXPECT_EQ(format_elapsed(7'500'000), "2h05m");
  EXPECT_EQ(format_elapsed(-5), "0s");
}

TEST(colour_mode, no_color_non_empty_disables) {
  EXPECT_EQ(colour_mode_from_env(nullptr), colour_mode::ansi);
  EXPECT_EQ(colour_mode_from_env(""), colour_mode::ansi);
  EXPECT_EQ(colour_mode_from_env("1"), colour_mode::plain);
}

TEST(run_board, counts_running_rows_and_elapsed_with_manual_clock) {
  manual_clock clk(t0);
  run_board board;
  board.apply(scanned({{"g/01_a", "worker", "pending", ""},
                       {"g/02_b", "review", "blocked", "no verdict"},
                       {"g/03_c", "", "complete", ""}}));
  board.apply(attempt(run_event_kind::attempt_started, "g/01_a", "g_01_a__p1__worker__a01", t0));
  clk.advance(65'000);
  auto frame = board.frame(clk.now(), colour_mode::plain);
  EXPECT_EQ(frame,
            "agent-dispatch: 3 tasks  1 running  0 pending  0 waiting  1 blocked  0 failed  1 "
            "complete\n"
            "  g/01_a  worker    codex-high   #1  1m05s\n"
            "recent:\n"
            "  2027-01-15T08:00:00.000Z attempt_started g/01_a role=worker target=codex-high "
            "attempt=1\n");
  EXPECT_EQ(frame.find('\x1b'), std::string::npos);
}

TEST(run_board, finished_attempt_leaves_the_rows_and_completion_counts) {
  run_board board;
  board.apply(scanned({{"g/01_a", "worker", "pending", ""}}));
  board.apply(attempt(run_event_kind::attempt_started, "g/01_a", "id1", t0));
  board.apply(attempt(run_event_kind::attempt_finished, "g/01_a", "id1", t0 + 1000));
  run_event done;
  done.kind = run_event_kind::task_finished;
  done.time = t0 + 2000;
  done.task = "g/01_a";
  done.outcome = "complete";
  board.apply(done);
  EXPECT_TRUE(board.running().empty());
  EXPECT_EQ(board.task_statuses().at("g/01_a"), "complete");
  auto frame = board.frame(t0 + 3000, colour_mode::plain);
  EXPECT_NE(frame.find("1 complete"), std::string::npos);
  EXPECT_EQ(frame.find("#1"), std::string::npos);
}

TEST(run_board, the_count_line_shows_what_the_finished_attempts_spent) {
  run_board board;
  board.apply(scanned({{"g/01_a", "worker", "pending", ""}, {"g/02_b", "worker", "pending", ""}}));
  EXPECT_EQ(board.frame(t0, colour_mode::plain).find("spent"), std::string::npos)
    << "nothing spent: no figure";
  for (auto [task, id] : {std::pair{"g/01_a", "id1"}, std::pair{"g/02_b", "id2"}}) {
    board.apply(attempt(run_event_kind::attempt_started, task, id, t0));
    auto end = attempt(run_event_kind::attempt_finished, task, id, t0 + 1000);
    end.usage.input_tokens = 1200;
    end.usage.output_tokens = 40;
    board.apply(end);
  }
  auto frame = board.frame(t0 + 2000, colour_mode::plain);
  auto first_line = frame.substr(0, frame.find('\n'));
  EXPECT_NE(first_line.find("  spent 2,400 in · 80 out"), std::string::npos) << frame;
}

TEST(run_board, keeps_only_the_last_events) {
  run_board board(board_options{2, 20});
  for (int i = 0; i < 5; ++i) {
    run_event e;
    e.kind = run_event_kind::task_waiting;
    e.time = t0;
    e.task = "g/0" + std::to_string(i);
    e.reason = "dependency";
    board.apply(e);
  }
  auto frame = board.frame(t0, colour_mode::plain);
  EXPECT_EQ(frame.find("g/02"), std::string::npos);
  EXPECT_NE(frame.find("g/03"), std::string::npos);
  EXPECT_NE(frame.find("g/04"), std::string::npos);
  EXPECT_NE(frame.find("5 waiting"), std::string::npos);
}

TEST(run_board, ansi_colours_only_when_allowed) {
  run_board board;
  board.apply(scanned({{"g/01_a", "", "blocked", "x"}}));
  EXPECT_NE(board.frame(t0, colour_mode::ansi).find("\x1b[31m1 blocked\x1b[0m"), std::string::npos);
  EXPECT_EQ(board.frame(t0, colour_mode::plain).find('\x1b'), std::string::npos);
}

TEST(run_board, summary_ends_the_board) {
  run_board board;
  run_event s;
  s.kind = run_event_kind::summary;
  s.time = t0;
  s.counts = {{"complete", 1}};
  s.exit_code = 0;
  board.apply(s);
  EXPECT_TRUE(board.finished());
  auto frame = board.frame(t0, colour_mode::plain);
  EXPECT_NE(frame.find("summary 1 tasks: 1 complete; exit 0"), std::string::npos);
}

TEST(run_board, many_attempts_are_summarized) {
  run_board board(board_options{5, 2});
  for (int i = 0; i < 4; ++i)
    board.apply(attempt(run_event_kind::attempt_started, "g/0" + std::to_string(i),
                        "id" + std::to_string(i), t0));
  auto frame = board.frame(t0, colour_mode::plain);
  EXPECT_NE(frame.find("... and 2 more running"), std::string::npos);
}

TEST(redraw, moves_up_over_the_previous_frame_and_clears) {
  EXPECT_EQ(redraw("a\nb\n", 0), "\x1b[Ja\nb\n");
  EXPECT_EQ(redraw("a\n", 3), "\r\x1b[3A\x1b[Ja\n");
  EXPECT_EQ(frame_lines("a\nb\nc\n"), 3u);
}

} // namespace
} // namespace ad::runtime
