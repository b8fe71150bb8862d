#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/core/files.hpp"
#include "runtime/trace/trace_paths.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "runtime/trace/trace_replay.hpp"
#include "runtime/trace/trace_writer.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

trace_header sample_header() {
  trace_header h;
  h.binary_version = "9.9.9";
  h.policy = json{{"timezone", "UTC"}, {"probe", "/home/u/ws/bin/probe"}};
  h.policy_sha256 = trace_policy_hash(h.policy);
  h.time_zone = "UTC";
  h.options = json{{"max_parallel", 2}};
  return h;
}

trace_paths host_paths() {
  trace_paths p;
  p.add_root("/home/u/ws", "workspace");
  p.add_root("/home/u/ws/.git/agent-dispatch", "state");
  p.add_root("/home/u", "home");
  return p;
}

TEST(trace_paths, replaces_longest_root_first_anywhere_in_strings) {
  auto p = host_paths();
  EXPECT_EQ(p.relativize_text("Read /home/u/ws/agent-task/a/PLAN.md now"),
            "Read ${workspace}/agent-task/a/PLAN.md now");
  EXPECT_EQ(p.relativize_text("/home/u/ws/.git/agent-dispatch/runs/x"), "${state}/runs/x");
  EXPECT_EQ(p.relativize_text("/home/u/.claude/projects"), "${home}/.claude/projects");
  EXPECT_EQ(p.relativize_text("/srv/other"), "/srv/other");
  json j{{"/home/u/ws/k", json::array({"/home/u/ws/a", 3, true})}};
  auto rel = p.relativize(j);
  EXPECT_EQ(rel, (json{{"${workspace}/k", json::array({"${workspace}/a", 3, true})}}));
  trace_paths other;
  other.add_root("/r/ws", "workspace");
  other.add_root("/r/state", "state");
  other.add_root("/r/home", "home");
  EXPECT_EQ(other.expand(rel), (json{{"/r/ws/k", json::array({"/r/ws/a", 3, true})}}));
  EXPECT_EQ(other.relativize(other.expand(rel)), rel);
}

TEST(trace_paths, ignores_the_file_system_root_and_trailing_slashes) {
  trace_paths p;
  p.add_root("/", "root");
  p.add_root("/w/", "workspace");
  EXPECT_EQ(p.relativize_text("/w/x /y"), "${workspace}/x /y");
  EXPECT_EQ(p.roots().size(), 1u);
}

TEST(trace_format, record_round_trip_and_validation) {
  trace_record r{7, trace_direction::decision, "supervisor.step", 3, json{{"step", "block"}}};
  auto back = trace_record_from_json(to_json(r));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(back->seq, 7);
  EXPECT_EQ(back->dir, trace_direction::decision);
  EXPECT_EQ(back->cause, 3);
  EXPECT_EQ(back->body, r.body);
  EXPECT_FALSE(trace_record_from_json(json{{"seq", 1}, {"dir", "sideways"}, {"kind", "x"}, {"body", 1}}).is_ok());
  EXPECT_FALSE(trace_record_from_json(json{{"seq", 0}, {"dir", "edge"}, {"kind", "x"}, {"body", 1}}).is_ok());
  EXPECT_FALSE(trace_record_from_json(json{{"seq", 2}, {"dir", "decision"}, {"kind", "x"}, {"body", 1}}).is_ok());
}

TEST(trace_format, a_record_whose_body_is_not_an_object_is_refused) {
  for (const json& body : {json("x"), json::array(), json(5), json(nullptr)}) {
    auto r = trace_record_from_json(
      json{{"seq", 1}, {"dir", "edge"}, {"kind", "scheduler.inbound"}, {"body", body}});
    ASSERT_FALSE(r.is_ok()) << body.dump();
    EXPECT_NE(r.error().message().find("\"body\" must be a JSON object"), std::string::npos)
      << r.error().message();
  }
}

TEST(trace_format, header_checks_schema_and_policy_hash) {
  auto j = to_json(sample_header());
  ASSERT_TRUE(trace_header_from_json(j).is_ok());
  auto wrong_schema = j;
  wrong_schema["schema"] = 99;
  auto st = trace_header_from_json(wrong_schema);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.error().message().find("schema 99"), std::string::npos);
  // A trace recorded before the scheduler recorded its machine: its
  // scheduler records would be skipped as unknown, so it is refused.
  wrong_schema["schema"] = 2;
  st = trace_header_from_json(wrong_schema);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.error().message().find("schema 2 is not supported (this binary reads 3)"),
            std::string::npos)
    << st.error().message();
  EXPECT_NE(st.error().message().find("record the run again"), std::string::npos);
  auto tampered = j;
  tampered["policy"]["timezone"] = "Europe/Berlin";
  EXPECT_FALSE(trace_header_from_json(tampered).is_ok());
}

TEST(trace_format, header_carries_the_zone_data_as_hex) {
  auto h = sample_header();
  h.time_zone = "Asia/Seoul";
  h.time_zone_tzif = std::string("TZif2\0\x01\xff\x7f", 9);
  auto j = to_json(h);
  EXPECT_EQ(j["time_zone_tzif"], "545a6966320001ff7f");
  auto back = trace_header_from_json(j);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(back->time_zone_tzif, h.time_zone_tzif);

  for (const char* bad : {"545", "54zz", "545A"}) {
    auto broken = j;
    broken["time_zone_tzif"] = bad;
    auto st = trace_header_from_json(broken);
    ASSERT_FALSE(st.is_ok()) << bad;
    EXPECT_NE(st.error().message().find("time_zone_tzif"), std::string::npos);
  }
  auto older = j;
  older.erase("time_zone_tzif"); // written before the field existed
  auto read = trace_header_from_json(older);
  ASSERT_TRUE(read.is_ok());
  EXPECT_TRUE(read->time_zone_tzif.empty());
}

TEST(trace_writer, writes_relative_records_that_read_back_in_order) {
  test::temp_dir dir;
  auto file = dir.path() / "t.jsonl";
  auto w = trace_writer::open(file, sample_header(), host_paths(), 64);
  ASSERT_TRUE(w.is_ok()) << w.error().message();
  auto e = (*w)->edge("attempt.result", json{{"locator", "/home/u/ws/.git/agent-dispatch/runs/a/locator.json"}});
  auto d = (*w)->decision("supervisor.step", e, json{{"step", "retry_same"}});
  EXPECT_EQ(e, 1);
  EXPECT_EQ(d, 2);
  ASSERT_TRUE((*w)->stop().is_ok());
  EXPECT_EQ((*w)->edge("late", json::object()), 0); // stopped: dropped

  auto text = read_file(file);
  ASSERT_TRUE(text.is_ok());
  EXPECT_EQ(text->find("/home/u"), std::string::npos) << *text;
  auto t = read_trace(file);
  ASSERT_TRUE(t.is_ok()) << t.error().message();
  EXPECT_EQ(t->header.binary_version, "9.9.9");
  EXPECT_EQ(t->header.policy["probe"], "${workspace}/bin/probe");
  ASSERT_EQ(t->records.size(), 2u);
  EXPECT_EQ(t->records[0].body["locator"], "${state}/runs/a/locator.json");
  EXPECT_EQ(t->records[1].cause, 1);
}

TEST(trace_writer, by_default_each_record_is_in_the_file_when_appended) {
  // Nothing waits in a buffer: a dispatcher that dies now (no stop(), no
  // destructor) leaves every record it appended.
  test::temp_dir dir;
  auto file = dir.path() / "t.jsonl";
  auto w = trace_writer::open(file, sample_header(), host_paths());
  ASSERT_TRUE(w.is_ok()) << w.error().message();
  auto e = (*w)->edge("supervisor.failure", json{{"n", 1}});
  (*w)->decision("supervisor.step", e, json{{"step", "wait_until"}});
  auto t = read_trace(file);
  ASSERT_TRUE(t.is_ok()) << t.error().message();
  ASSERT_EQ(t->records.size(), 2u);
  EXPECT_EQ(t->records[1].kind, "supervisor.step");
  EXPECT_EQ(t->cut_last_line, 0u);
  ASSERT_TRUE((*w)->stop().is_ok());
}

TEST(trace_writer, an_edge_and_its_decision_are_written_together) {
  auto w = trace_writer::in_memory(host_paths());
  w->edge("first", json::object());
  auto e = w->edge_and_decision("task.event", json{{"path", "/home/u/ws/a"}}, "task.commands",
                                json{{"commands", json::array()}});
  EXPECT_EQ(e, 2);
  auto kept = w->kept_records();
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[1].body["path"], "${workspace}/a");
  EXPECT_EQ(kept[2].dir, trace_direction::decision);
  EXPECT_EQ(kept[2].kind, "task.commands");
  EXPECT_EQ(kept[2].cause, 2);
  ASSERT_TRUE(w->stop().is_ok());
  EXPECT_EQ(w->edge_and_decision("late", json::object(), "late", json::object()), 0);
}

TEST(trace_writer, in_memory_keeps_relative_records_until_stopped) {
  auto w = trace_writer::in_memory(host_paths());
  auto e = w->edge("attempt.result", json{{"locator", "/home/u/ws/.git/agent-dispatch/runs/a"}});
  auto d = w->decision("task.end", e, json{{"outcome", "complete"}});
  auto e2 = w->edge("task.wake", json::object());
  EXPECT_EQ(e, 1);
  EXPECT_EQ(d, 2);
  EXPECT_EQ(e2, 3);
  EXPECT_EQ(w->kept_edges(), 2u);
  auto kept = w->kept_records();
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].body["locator"], "${state}/runs/a");
  EXPECT_EQ(kept[1].dir, trace_direction::decision);
  EXPECT_EQ(kept[1].cause, 1);
  EXPECT_EQ(kept[2].kind, "task.wake");
  ASSERT_TRUE(w->stop().is_ok());
  EXPECT_EQ(w->edge("late", json::object()), 0);
  EXPECT_EQ(w->kept_records().size(), 3u);
}

TEST(trace_writer, concurrent_appends_get_unique_increasing_seq) {
  test::temp_dir dir;
  auto file = dir.path() / "t.jsonl";
  auto w = trace_writer::open(file, sample_header(), host_paths(), 512);
  ASSERT_TRUE(w.is_ok());
  auto writer = *w;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([writer, t] {
      for (int i = 0; i < 250; ++i)
        writer->edge("tick", json{{"thread", t}, {"i", i}});
    });
  for (auto& th : threads)
    th.join();
  ASSERT_TRUE(writer->stop().is_ok());
  auto tr = read_trace(file);
  ASSERT_TRUE(tr.is_ok()) << tr.error().message();
  ASSERT_EQ(tr->records.size(), 1000u);
  for (std::size_t i = 0; i < tr->records.size(); ++i)
    EXPECT_EQ(tr->records[i].seq, static_cast<int64_t>(i + 1));
}

TEST(trace_writer, reports_an_unwritable_file) {
  auto w = trace_writer::open("/nonexistent-folder/t.jsonl", sample_header(), host_paths());
  ASSERT_FALSE(w.is_ok());
  EXPECT_NE(w.error().message().find("/nonexistent-folder/t.jsonl"), std::string::npos);
}

std::string header_line() {
  return dump_json(to_json(sample_header())) + "\n";
}

TEST(trace_reader, a_last_line_cut_by_a_crash_is_left_out_and_reported) {
  auto header = dump_json(to_json(sample_header()));
  std::string whole = header + "\n" +
                      "{\"seq\":1,\"dir\":\"edge\",\"kind\":\"e\",\"cause\":0,\"body\":{}}\n";
  std::string cut = "{\"seq\":2,\"dir\":\"deci";
  auto t = parse_trace(whole + cut, "t");
  ASSERT_TRUE(t.is_ok()) << t.error().message();
  EXPECT_EQ(t->records.size(), 1u);
  EXPECT_EQ(t->cut_last_line, 3u);

  // Ended by a newline, the same line was written whole: an error.
  auto bad = parse_trace(whole + cut + "\n", "t");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.error().message().rfind("t:3:", 0), 0u) << bad.error().message();
  // A cut header is no trace.
  EXPECT_FALSE(parse_trace(header.substr(0, 20), "t").is_ok());
  // A complete last line without its newline is read.
  auto last = parse_trace(whole.substr(0, whole.size() - 1), "t");
  ASSERT_TRUE(last.is_ok()) << last.error().message();
  EXPECT_EQ(last->records.size(), 1u);
  EXPECT_EQ(last->cut_last_line, 0u);
}

TEST(trace_reader, names_the_bad_line) {
  auto bad_json = parse_trace(header_line() + "{\"seq\":1,\"dir\":\"edge\",\"kind\":\"a\",\"body\":{}}\n{oops\n", "t");
  ASSERT_FALSE(bad_json.is_ok());
  EXPECT_EQ(bad_json.error().message().rfind("t:3: ", 0), 0u) << bad_json.error().message();

  auto bad_order = parse_trace(header_line() +
                                 "{\"seq\":2,\"dir\":\"edge\",\"kind\":\"a\",\"body\":{}}\n"
                                 "{\"seq\":2,\"dir\":\"edge\",\"kind\":\"a\",\"body\":{}}\n",
                               "t");
  ASSERT_FALSE(bad_order.is_ok());
  EXPECT_EQ(bad_order.error().message().rfind("t:3: seq 2 does not follow 2", 0), 0u)
    << bad_order.error().message();

  auto bad_cause = parse_trace(header_line() +
                                 "{\"seq\":1,\"dir\":\"decision\",\"kind\":\"d\",\"cause\":5,\"body\":{}}\n",
                               "t");
  ASSERT_FALSE(bad_cause.is_ok());
  EXPECT_NE(bad_cause.error().message().find("t:2: cause 5"), std::string::npos);

  auto empty = parse_trace("", "t");
  ASSERT_FALSE(empty.is_ok());
  EXPECT_NE(empty.error().message().find("no header"), std::string::npos);

  auto bad_header = parse_trace("{\"schema\":1}\n", "t");
  ASSERT_FALSE(bad_header.is_ok());
  EXPECT_EQ(bad_header.error().message().rfind("t:1: header", 0), 0u);
}

// A trace of a counter: each "add" edge decides the running total. A whole
// run's trace ends with the scheduler's finish_run (no handler here).
trace_file counter_trace(const std::vector<int>& adds, const std::vector<int>& totals) {
  trace_file t;
  t.header = sample_header();
  int64_t seq = 0;
  for (std::size_t i = 0; i < adds.size(); ++i) {
    auto e = ++seq;
    t.records.push_back({e, trace_direction::edge, "add", 0, json{{"n", adds[i]}, {"path", "${workspace}/x"}}});
    t.records.push_back({++seq, trace_direction::decision, "total", e, json{{"total", totals[i]}, {"path", "${workspace}/x"}}});
    t.records.push_back({++seq, trace_direction::decision, "launch", e, json{{"argv", "x"}}});
  }
  auto last = ++seq;
  t.records.push_back({last, trace_direction::edge, "scheduler.event", 0, json::object()});
  t.records.push_back({++seq, trace_direction::decision, "scheduler.commands", last,
                       json{{"commands", json::array({json{{"command", "finish_run"}}})}}});
  return t;
}

replay_handlers counter_handlers(int& total, int bias) {
  replay_handlers h;
  h["add"] = {{"total"}, [&total, bias](const json& body) -> result<std::vector<replayed_decision>> {
                EXPECT_EQ(body["path"], "/replay/ws/x"); // expanded for the handler
                total += body["n"].get<int>() + bias;
                return std::vector<replayed_decision>{{"total", json{{"total", total}, {"path", body["path"]}}}};
              }};
  return h;
}

trace_paths replay_roots() {
  trace_paths p;
  p.add_root("/replay/ws", "workspace");
  return p;
}

TEST(trace_replay, matching_decisions_pass_and_unhandled_kinds_are_counted) {
  int total = 0;
  auto report = replay_trace(counter_trace({1, 2, 3}, {1, 3, 6}), counter_handlers(total, 0), replay_roots());
  EXPECT_FALSE(report.divergence) << render_divergence(*report.divergence);
  EXPECT_EQ(report.compared, 3);
  EXPECT_EQ(report.edges_fed, 3);
  EXPECT_EQ(report.decisions, 7);
  EXPECT_EQ(report.not_replayed["launch"], 3);
  EXPECT_NE(render_replay_summary(report).find("3 decisions compared"), std::string::npos);
}

TEST(trace_replay, reports_the_first_divergence_with_its_message_and_history) {
  int total = 0;
  // Recorded totals diverge from the replay at the second edge (seq 4 -> decision seq 5).
  auto report = replay_trace(counter_trace({1, 2, 3}, {1, 4, 7}), counter_handlers(total, 0), replay_roots(), 2);
  ASSERT_TRUE(report.divergence);
  const auto& d = *report.divergence;
  EXPECT_EQ(d.seq, 5);
  EXPECT_EQ(d.cause, 4);
  EXPECT_EQ(d.kind, "total");
  EXPECT_EQ(d.expected["total"], 4);
  EXPECT_EQ(d.actual["total"], 3);
  EXPECT_EQ(d.actual["path"], "${workspace}/x"); // relativized back
  ASSERT_EQ(d.recent.size(), 2u);
  EXPECT_EQ(d.recent.back().seq, 4);
  auto text = render_divergence(d);
  EXPECT_NE(text.find("divergence at record 5 (total)"), std::string::npos) << text;
  EXPECT_NE(text.find("message: record 4 (add)"), std::string::npos) << text;
  EXPECT_NE(text.find("differs at /total: expected 4, actual 3"), std::string::npos) << text;
  EXPECT_EQ(report.compared, 1);
}

TEST(trace_replay, reports_the_earliest_recorded_decision_that_differs) {
  // Edge 1's decision is written after edge 3 and its own decision (as a
  // scheduler pass's record comes after the edges its steps read). Both
  // differ: the one written first (seq 4) is reported, not the one of the
  // earlier edge (seq 5).
  trace_file t;
  t.header = sample_header();
  auto add = [&t](int64_t seq, int n) {
    t.records.push_back({seq, trace_direction::edge, "add", 0,
                         json{{"n", n}, {"path", "${workspace}/x"}}});
  };
  auto total_of = [&t](int64_t seq, int64_t cause, int total) {
    t.records.push_back({seq, trace_direction::decision, "total", cause,
                         json{{"total", total}, {"path", "${workspace}/x"}}});
  };
  add(1, 1);
  t.records.push_back({2, trace_direction::edge, "other", 0, json::object()});
  add(3, 2);
  total_of(4, 3, 99);
  total_of(5, 1, 98);
  add(6, 3);
  total_of(7, 6, 0);
  int total = 0;
  auto report = replay_trace(t, counter_handlers(total, 0), replay_roots());
  ASSERT_TRUE(report.divergence);
  EXPECT_EQ(report.divergence->seq, 4);
  EXPECT_EQ(report.divergence->cause, 3);
  EXPECT_EQ(report.divergence->actual["total"], 3);
  // The walk stops there: the edge after the difference is not fed.
  EXPECT_EQ(report.edges_fed, 2);
}

TEST(trace_replay, a_missing_or_extra_decision_and_a_handler_error_diverge) {
  auto t = counter_trace({1}, {1});
  t.records.erase(t.records.begin() + 1); // the recorded total is gone
  int total = 0;
  auto extra = replay_trace(t, counter_handlers(total, 0), replay_roots());
  ASSERT_TRUE(extra.divergence);
  EXPECT_TRUE(extra.divergence->expected.is_null());
  EXPECT_EQ(extra.divergence->seq, 1);

  replay_handlers failing;
  failing["add"] = {{"total"}, [](const json&) -> result<std::vector<replayed_decision>> {
                      return status::invalid_argument("bad edge");
                    }};
  auto err = replay_trace(counter_trace({1}, {1}), failing, replay_roots());
  ASSERT_TRUE(err.divergence);
  EXPECT_EQ(err.divergence->actual["error"], "bad edge");

  replay_handlers silent;
  silent["add"] = {{"total"}, [](const json&) -> result<std::vector<replayed_decision>> {
                     return std::vector<replayed_decision>{};
                   }};
  auto missing = replay_trace(counter_trace({1}, {1}), silent, replay_roots());
  ASSERT_TRUE(missing.divergence);
  EXPECT_TRUE(missing.divergence->actual.is_null());
  EXPECT_EQ(missing.divergence->seq, 2);
}

TEST(trace_replay, a_trace_cut_before_its_final_edge_lost_its_last_edges_decisions) {
  // The run crashed right after its second add: its total never reached
  // the trace. Replay compares what the trace holds.
  auto t = counter_trace({1, 2}, {1, 3});
  t.records.resize(t.records.size() - 4); // the 2nd total, its launch, the run's end
  ASSERT_EQ(t.records.back().kind, "add");
  int total = 0;
  auto cut = replay_trace(t, counter_handlers(total, 0), replay_roots());
  EXPECT_FALSE(cut.divergence) << render_divergence(*cut.divergence);
  EXPECT_EQ(cut.compared, 1);
  // Only the last edge: an earlier edge that lost its total diverges.
  auto earlier = counter_trace({1, 2}, {1, 3});
  earlier.records.erase(earlier.records.begin() + 1);
  earlier.records.resize(earlier.records.size() - 2); // no end of the run
  total = 0;
  auto missing = replay_trace(earlier, counter_handlers(total, 0), replay_roots());
  ASSERT_TRUE(missing.divergence);
  EXPECT_EQ(missing.divergence->cause, 1);
  EXPECT_TRUE(missing.divergence->expected.is_null());
  // Another actor's edge recorded after the second add, before the crash:
  // the add's total may still have been lost in the cut, as nothing was
  // decided after it.
  auto interleaved = counter_trace({1, 2}, {1, 3});
  interleaved.records.resize(interleaved.records.size() - 4);
  interleaved.records.push_back({7, trace_direction::edge, "other", 0, json::object()});
  total = 0;
  auto later = replay_trace(interleaved, counter_handlers(total, 0), replay_roots());
  EXPECT_FALSE(later.divergence) << render_divergence(*later.divergence);
  EXPECT_EQ(later.compared, 1);
}

TEST(trace_replay, a_cut_can_fall_among_an_edges_decisions_after_another_actors_edge) {
  // Each "pair" edge decides "a" then "b". The run stopped while the first
  // pair's decisions were being written, after another actor's edge came
  // between the pair and its decisions: its "b" was lost in the cut.
  replay_handlers h;
  h["pair"] = {{"a", "b"}, [](const json&) -> result<std::vector<replayed_decision>> {
                 return std::vector<replayed_decision>{{"a", json{{"v", 1}}}, {"b", json{{"v", 2}}}};
               }};
  h["other"] = {{"o"}, [](const json&) -> result<std::vector<replayed_decision>> {
                  return std::vector<replayed_decision>{{"o", json{{"v", 3}}}};
                }};
  trace_file t;
  t.header = sample_header();
  t.records.push_back({1, trace_direction::edge, "pair", 0, json::object()});
  t.records.push_back({2, trace_direction::edge, "other", 0, json::object()});
  t.records.push_back({3, trace_direction::decision, "a", 1, json{{"v", 1}}});
  auto report = replay_trace(t, h, replay_roots());
  EXPECT_FALSE(report.divergence) << render_divergence(*report.divergence);
  // The other edge's decision written after the pair's "a": the pair's "b"
  // would have come before it, so its absence is a divergence.
  t.records.push_back({4, trace_direction::decision, "o", 2, json{{"v", 3}}});
  auto mixed = replay_trace(t, h, replay_roots());
  ASSERT_TRUE(mixed.divergence);
  EXPECT_EQ(mixed.divergence->cause, 1);
  EXPECT_EQ(mixed.divergence->kind, "b");
}

TEST(trace_replay, an_edge_the_handler_does_not_decide_is_not_fed_and_its_decisions_not_compared) {
  // The second add's recorded total is wrong, but this handler does not
  // decide edges with n == 2: no divergence, its total counted as recorded
  // only, and the running total skips it.
  int total = 0;
  auto h = counter_handlers(total, 0);
  h["add"].decides = [](const json& body) { return body["n"] != 2; };
  auto report = replay_trace(counter_trace({1, 2, 3}, {1, 99, 4}), h, replay_roots());
  EXPECT_FALSE(report.divergence) << render_divergence(*report.divergence);
  EXPECT_EQ(report.edges_fed, 2);
  EXPECT_EQ(report.compared, 2);
  EXPECT_EQ(report.not_replayed["total"], 1);
  EXPECT_EQ(total, 4);
}

} // namespace
} // namespace ad::runtime
