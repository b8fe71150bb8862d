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

TEST(run_board, a_node_whose_lease_is_not_held_shows_among_the_recent_events_in_local_time) {
  run_board b(board_options{.utc_offset = [](millis) { return int32_t{3600}; }});
  run_event s;
  s.kind = run_event_kind::node_status;
  s.time = t0;
  s.node = "gpu-1";
  s.slots = 4;
  s.slots_in_use = 2;
  s.lease = std::string(lease_held);
  s.until = t0 + 10'000;
  b.apply(s);
  EXPECT_EQ(b.frame(t0, colour_mode::plain).find("gpu-1"), std::string::npos)
    << "a held lease is no news";
  s.time = t0 + 6'000;
  s.lease = std::string(lease_expiring);
  s.reason = "connection refused";
  b.apply(s);
  s.time = t0 + 11'000;
  s.lease = std::string(lease_lost);
  b.apply(s);
  auto frame = b.frame(t0 + 11'000, colour_mode::plain);
  // t0 is 08:00:00 UTC, 09:00:00 at an hour east.
  EXPECT_NE(frame.find("09:00:06 node gpu-1: lease expiring ends 09:00:10, 2/4 slots in use: "
                       "connection refused"),
            std::string::npos)
    << frame;
  EXPECT_NE(frame.find("09:00:11 node gpu-1: lease lost ended 09:00:10"), std::string::npos)
    << frame;
  EXPECT_EQ(frame.find("T08:"), std::string::npos) << "no UTC stamp: " << frame;
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
            "complete  08:01:05\n"
            "running:\n"
            "  g/01_a  worker    codex-high   #1  08:00:00 1m05s\n"
            "blocked:\n"
            "  g/02_b: no verdict\n"
            "recent:\n"
            "  08:00:00 attempt_started g/01_a role=worker target=codex-high attempt=1\n");
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
  run_board board(board_options{.recent_events = 2, .max_attempt_rows = 20});
  for (int i = 0; i < 5; ++i) {
    run_event e;
    e.kind = run_event_kind::task_waiting;
    e.time = t0;
    e.task = "g/0" + std::to_string(i);
    e.reason = "dependency";
    board.apply(e);
  }
  auto frame = board.frame(t0, colour_mode::plain);
  auto recent = frame.substr(frame.find("recent:"));
  EXPECT_EQ(recent.find("g/02"), std::string::npos) << frame;
  EXPECT_NE(recent.find("g/03"), std::string::npos) << frame;
  EXPECT_NE(recent.find("g/04"), std::string::npos) << frame;
  EXPECT_NE(frame.find("5 waiting"), std::string::npos);
}

TEST(run_board, a_note_is_one_recent_line_in_local_time) {
  run_board board(board_options{.recent_events = 2, .max_attempt_rows = 20});
  board.note(t0, "warning: node n1: not reachable\n(connection refused)");
  auto frame = board.frame(t0, colour_mode::plain);
  auto recent = frame.substr(frame.find("recent:"));
  EXPECT_NE(recent.find("warning: node n1: not reachable (connection refused)"), std::string::npos)
    << frame;
  EXPECT_EQ(recent.find('Z'), std::string::npos) << "no UTC stamp: " << frame;
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
  run_board board(board_options{.recent_events = 5, .max_attempt_rows = 2});
  for (int i = 0; i < 4; ++i)
    board.apply(attempt(run_event_kind::attempt_started, "g/0" + std::to_string(i),
                        "id" + std::to_string(i), t0));
  auto frame = board.frame(t0, colour_mode::plain);
  EXPECT_NE(frame.find("... and 2 more running"), std::string::npos);
}

run_event waiting(std::string task, std::string_view wait, millis until = 0,
                  std::string target = "") {
  run_event e;
  e.kind = until > 0 ? run_event_kind::supervisor_wait : run_event_kind::task_waiting;
  e.time = t0;
  e.task = std::move(task);
  e.wait = std::string(wait);
  e.until = until;
  e.target = std::move(target);
  e.reason = "a reason";
  return e;
}

TEST(run_board, times_are_local_clock_times) {
  board_options o;
  o.utc_offset = [](millis) { return 9 * 3600; };
  run_board board(o);
  board.apply(attempt(run_event_kind::attempt_started, "g/01_a", "id1", t0));
  auto frame = board.frame(t0 + 7000, colour_mode::plain);
  EXPECT_NE(frame.find("complete  17:00:07\n"), std::string::npos) << frame;
  EXPECT_NE(frame.find("#1  17:00:00 7s"), std::string::npos) << frame;
  EXPECT_NE(frame.find("  17:00:00 attempt_started g/01_a"), std::string::npos) << frame;
  EXPECT_EQ(frame.find("2027-"), std::string::npos) << frame;
}

TEST(run_board, waits_are_grouped_by_what_they_wait_for) {
  run_board board;
  board.apply(scanned({{"g/03_c", "worker", "waiting", "waits for 01", std::string(wait_dependency)},
                       {"g/04_d", "worker", "waiting", "waits for 01", std::string(wait_dependency)}}));
  board.apply(waiting("g/05_e", wait_capacity));
  board.apply(waiting("h/01_a", wait_cool_down, t0 + 600'000, "claude"));
  board.apply(waiting("h/02_b", wait_quota_reset, t0 + 3'600'000, "codex"));
  auto frame = board.frame(t0, colour_mode::plain);
  EXPECT_NE(frame.find("waiting:\n"
                       "  quota-reset 1: h/02_b until 09:00:00 (codex)\n"
                       "  cool-down   1: h/01_a until 08:10:00 (claude)\n"
                       "  capacity    1: g/05_e\n"
                       "  dependency  2: g/03_c, g/04_d\n"),
            std::string::npos)
    << frame;
  // A wait ends when the task runs again.
  board.apply(attempt(run_event_kind::attempt_started, "h/01_a", "id1", t0 + 600'000));
  EXPECT_EQ(board.waits().count("h/01_a"), 0u);
  EXPECT_EQ(board.frame(t0, colour_mode::plain).find("cool-down"), std::string::npos);
}

TEST(run_board, blocked_tasks_show_the_command_that_retries_them) {
  board_options o;
  o.retry_command = "agent-dispatch run --workspace demo-workspace --retry-blocked";
  run_board board(o);
  run_event b;
  b.kind = run_event_kind::task_blocked;
  b.time = t0;
  b.task = "billing/03_currency_format";
  b.reason = "worker budget exhausted";
  board.apply(b);
  auto frame = board.frame(t0, colour_mode::plain);
  EXPECT_NE(frame.find("blocked:\n"
                       "  billing/03_currency_format: worker budget exhausted\n"
                       "    retry: agent-dispatch run --workspace demo-workspace --retry-blocked "
                       "--task-group billing\n"),
            std::string::npos)
    << frame;
  // On a narrow terminal the command is broken at spaces, never cut.
  auto narrow = board.frame(t0, colour_mode::plain, {40, 30});
  EXPECT_NE(narrow.find("    retry: agent-dispatch run\n"
                        "      --workspace demo-workspace\n"
                        "      --retry-blocked --task-group\n"
                        "      billing\n"),
            std::string::npos)
    << narrow;
  EXPECT_EQ(board.retry_command_for("my group/01"),
            "agent-dispatch run --workspace demo-workspace --retry-blocked --task-group "
            "'my group'");
}

TEST(run_board, a_running_attempt_shows_its_last_output_line) {
  run_board board;
  board.apply(attempt(run_event_kind::attempt_started, "g/01_a", "id1", t0));
  board.set_live("id1", {"tool: Write src/x.cpp", {}});
  board.set_live("gone", {"never shown", {}});
  auto frame = board.frame(t0 + 1000, colour_mode::plain);
  EXPECT_NE(frame.find("#1  08:00:00 1s  tool: Write src/x.cpp\n"), std::string::npos) << frame;
  EXPECT_EQ(frame.find("never shown"), std::string::npos);
}

TEST(run_board, a_running_attempt_shows_its_tokens_so_far) {
  run_board board;
  board.apply(attempt(run_event_kind::attempt_started, "g/01_a", "id1", t0));
  token_usage so_far;
  so_far.input_tokens = 12000;
  so_far.output_tokens = 345;
  so_far.cache_read_tokens = 1000;
  board.set_live("id1", {"assistant: reading", so_far});
  auto frame = board.frame(t0 + 1000, colour_mode::plain);
  EXPECT_NE(frame.find("#1  08:00:00 1s  13,345 tok  assistant: reading\n"), std::string::npos)
    << frame;
  // Nothing reported yet: no token column.
  board.set_live("id1", {"assistant: reading", {}});
  frame = board.frame(t0 + 2000, colour_mode::plain);
  EXPECT_NE(frame.find("#1  08:00:00 2s  assistant: reading\n"), std::string::npos) << frame;
}

TEST(run_board, the_frame_fits_the_terminal_and_never_scrolls) {
  run_board board;
  std::vector<report_task_entry> tasks;
  for (int i = 0; i < 40; ++i)
    tasks.push_back({"group/" + std::to_string(10 + i) + "_a_long_task_name_\uCF54\uB4DC", "worker",
                     "waiting", "waits", std::string(wait_dependency)});
  board.apply(scanned(tasks));
  for (int i = 0; i < 12; ++i) {
    auto a = attempt(run_event_kind::attempt_started, "run/" + std::to_string(i),
                     "id" + std::to_string(i), t0);
    a.locator = "/state/runs/20270115T080000Z__run__" + std::to_string(i) + "/locator.json";
    board.apply(a);
    board.set_live("id" + std::to_string(i), {"assistant: " + std::string(200, 'x'), {}});
  }
  for (int i = 0; i < 6; ++i) {
    run_event b;
    b.kind = run_event_kind::task_blocked;
    b.time = t0;
    b.task = "blocked/0" + std::to_string(i);
    b.reason = std::string(300, 'r');
    board.apply(b);
  }
  for (terminal_size size : {terminal_size{80, 30}, terminal_size{40, 12}, terminal_size{200, 6}}) {
    auto frame = board.frame(t0, colour_mode::ansi, size);
    size_t start = 0;
    size_t lines = 0;
    for (auto nl = frame.find('\n'); nl != std::string::npos; nl = frame.find('\n', start)) {
      EXPECT_LE(display_width(std::string_view(frame).substr(start, nl - start)), size.columns)
        << frame;
      start = nl + 1;
      ++lines;
    }
    EXPECT_EQ(frame_rows(frame, size.columns), lines);
    EXPECT_LE(lines, size.rows - 1) << frame;
    EXPECT_EQ(frame.rfind("agent-dispatch: 58 tasks", 0), 0u);
  }
  // At 17 rows the running attempts come first, then a cut that says so.
  auto frame = board.frame(t0, colour_mode::plain, {80, 17});
  EXPECT_NE(frame.find("running:\n  run/0 "), std::string::npos) << frame;
  EXPECT_NE(frame.find("blocked:\n  ... and 6 more blocked\n"), std::string::npos) << frame;
  EXPECT_EQ(frame.find("recent:"), std::string::npos) << frame;
}

TEST(board_screen, moves_back_over_the_rows_the_last_frame_takes_now) {
  board_screen screen;
  std::string wide(60, 'x');
  auto first = screen.replace(wide + "\n" + wide + "\nshort\n", {80, 24});
  EXPECT_EQ(first, "\x1b[2K" + wide + "\n\x1b[2K" + wide + "\n\x1b[2Kshort\n\x1b[J");
  // Same width: one row per line.
  auto second = screen.replace(wide + "\n" + wide + "\nshort\n", {80, 24});
  EXPECT_EQ(second.rfind("\r\x1b[3A\x1b[2K", 0), 0u);
  // Narrowed to 40 columns: the terminal rewrapped the 60-column lines into
  // two rows each, so the cursor goes up 5 rows (and, after the resize,
  // clears what is above them).
  auto third = screen.replace("a\n", {40, 24});
  EXPECT_EQ(third, "\r\x1b[5A\x1b[1J\x1b[2Ka\n\x1b[J");
  auto fourth = screen.replace("b\n", {40, 24});
  EXPECT_EQ(fourth, "\r\x1b[1A\x1b[2Kb\n\x1b[J");
}

TEST(board_screen, after_a_resize_clears_the_screen_above_the_frame_once) {
  board_screen screen;
  screen.replace("a\nb\n", {60, 24});
  // Same size: only the frame's own rows are written over.
  EXPECT_EQ(screen.replace("a\nb\n", {60, 24}), "\r\x1b[2A\x1b[2Ka\n\x1b[2Kb\n\x1b[J");
  // Taller: the terminal brought rows of its history back above the frame;
  // they go with everything else above it.
  EXPECT_EQ(screen.replace("c\n", {100, 30}), "\r\x1b[2A\x1b[1J\x1b[2Kc\n\x1b[J");
  EXPECT_EQ(screen.replace("d\n", {100, 30}), "\r\x1b[1A\x1b[2Kd\n\x1b[J");
  // Narrower: the same, once.
  EXPECT_EQ(screen.replace("e\n", {50, 30}), "\r\x1b[1A\x1b[1J\x1b[2Ke\n\x1b[J");
}

TEST(redraw, moves_up_over_the_previous_frame_and_clears) {
  EXPECT_EQ(redraw("a\nb\n", 0), "\x1b[2Ka\n\x1b[2Kb\n\x1b[J");
  EXPECT_EQ(redraw("a\n", 3), "\r\x1b[3A\x1b[2Ka\n\x1b[J");
  EXPECT_EQ(redraw("a\n", 3, true), "\r\x1b[3A\x1b[1J\x1b[2Ka\n\x1b[J");
}

} // namespace
} // namespace ad::runtime
