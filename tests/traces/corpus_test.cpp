// The message-trace corpus (tests/traces/corpus, re-recorded by
// tools/record-traces.sh): every trace replays identically under its
// recorded policy, holds no host path, and a changed supervisor rule is
// reported at the first decision it changes.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "runtime/replay/decision_records.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/replay/replay_run.hpp"

namespace ad::tools {
namespace {

namespace fs = std::filesystem;
using runtime::json;

fs::path corpus_dir() {
  return test::source_dir() / "tests" / "traces" / "corpus";
}

std::vector<std::string> corpus_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(corpus_dir(), ec))
    if (e.path().extension() == ".jsonl")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

runtime::trace_file load(const std::string& name) {
  auto t = runtime::read_trace(corpus_dir() / (name + ".jsonl"));
  EXPECT_TRUE(t.is_ok()) << t.error().message();
  return t.is_ok() ? std::move(*t) : runtime::trace_file{};
}

class trace_corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(trace_corpus, replays_identically_under_the_recorded_policy) {
  auto trace = load(GetParam());
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok()) << pol.error().message();
  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  EXPECT_FALSE(report->divergence) << runtime::render_divergence(*report->divergence);
  EXPECT_GT(report->compared, 0);
  // Every recorded run ends with its exit code, and that decision replays.
  EXPECT_EQ(report->not_replayed.count("run.exit"), 0u);
  EXPECT_EQ(report->not_replayed.count("supervisor.step"), 0u);
  EXPECT_EQ(report->not_replayed.count("task.target"), 0u);
}

void expect_no_absolute_strings(const json& j, const std::string& where) {
  if (j.is_string()) {
    EXPECT_NE(j.get<std::string>().rfind('/', 0), 0u) << where << ": " << j.get<std::string>();
  } else if (j.is_structured()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (j.is_object()) {
        EXPECT_NE(it.key().rfind('/', 0), 0u) << where << ": key " << it.key();
      }
      expect_no_absolute_strings(it.value(), where);
    }
  }
}

TEST_P(trace_corpus, holds_no_host_paths) {
  auto trace = load(GetParam());
  expect_no_absolute_strings(trace.header.policy, "header");
  for (const auto& r : trace.records)
    expect_no_absolute_strings(r.body, "record " + std::to_string(r.seq));
}

INSTANTIATE_TEST_SUITE_P(corpus, trace_corpus, ::testing::ValuesIn(corpus_names()),
                         [](const auto& info) {
                           auto name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(trace_corpus_cover, holds_the_recorded_branches) {
  std::set<std::string> steps;
  std::set<std::string> patterns;
  std::set<int> exits;
  for (const auto& name : corpus_names())
    for (const auto& r : load(name).records) {
      if (r.kind == "supervisor.step") {
        steps.insert(r.body["step"].get<std::string>());
        for (const auto& e : r.body["events"])
          if (e.contains("pattern_ids"))
            for (const auto& id : e["pattern_ids"])
              patterns.insert(id.get<std::string>());
      }
      if (r.kind == "run.exit")
        exits.insert(r.body["code"].get<int>());
    }
  for (const char* s : {"retry_same", "failover", "promote", "block"})
    EXPECT_TRUE(steps.count(s)) << s;
  EXPECT_TRUE(patterns.count("file-already-exists"));
  EXPECT_TRUE(patterns.count("file-not-found"));
  EXPECT_TRUE(exits.count(0));
  EXPECT_TRUE(exits.count(2));
}

// The first recorded supervisor.step satisfying pred.
const runtime::trace_record* first_step(const runtime::trace_file& t,
                                        const std::function<bool(const json&)>& pred) {
  for (const auto& r : t.records)
    if (r.kind == "supervisor.step" && pred(r.body))
      return &r;
  return nullptr;
}

TEST(trace_mutation, a_smaller_failure_budget_diverges_at_the_first_retry) {
  // The rule changed: a task is blocked after its first failure.
  auto trace = load("failure-classes");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  pol->budgets.recovery_failures = 1;
  const auto* first = first_step(trace, [](const json& b) { return b["step"] != "block"; });
  ASSERT_NE(first, nullptr);

  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  ASSERT_TRUE(report->divergence);
  const auto& d = *report->divergence;
  EXPECT_EQ(d.seq, first->seq);
  EXPECT_EQ(d.cause, first->cause);
  EXPECT_EQ(d.edge_kind, "supervisor.failure");
  EXPECT_EQ(d.kind, "supervisor.step");
  EXPECT_EQ(d.expected["step"], first->body["step"]);
  EXPECT_EQ(d.actual["step"], "block");
  ASSERT_FALSE(d.recent.empty());
  EXPECT_EQ(d.recent.back().seq, first->cause);
  auto text = runtime::render_divergence(d);
  EXPECT_NE(text.find("divergence at record " + std::to_string(first->seq)), std::string::npos)
    << text;
}

TEST(trace_mutation, dropping_the_promotion_rule_diverges_at_the_first_promotion) {
  // The supervisor rule "a promotable worker failure promotes along the
  // chain" is replaced, in this test only, by "retry the same target".
  auto trace = load("failure-classes");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  const auto* promotion = first_step(trace, [](const json& b) { return b["step"] == "promote"; });
  ASSERT_NE(promotion, nullptr);

  auto report = replay_recorded_run(trace, *pol, [](runtime::replay_handlers& h) {
    auto& handler = h.at("supervisor.failure");
    handler.fn = [inner = handler.fn](const json& body)
      -> runtime::result<std::vector<runtime::replayed_decision>> {
      auto out = inner(body);
      if (out.is_ok())
        for (auto& d : *out)
          if (d.body["step"] == "promote") {
            auto previous = d.body["detail"]["decision"]["previous_target"];
            d.body["step"] = "retry_same";
            d.body["detail"] = json{{"step", "retry_same"}, {"target", previous}};
          }
      return out;
    };
  });
  ASSERT_TRUE(report.is_ok()) << report.error().message();
  ASSERT_TRUE(report->divergence);
  EXPECT_EQ(report->divergence->seq, promotion->seq);
  EXPECT_EQ(report->divergence->edge_kind, "supervisor.failure");
  EXPECT_EQ(report->divergence->expected["step"], "promote");
  EXPECT_EQ(report->divergence->actual["step"], "retry_same");
}

TEST(trace_mutation, a_tampered_edge_diverges_there) {
  // A recorded clock reading moved one hour: the target decision records
  // its evaluation time, so the replayed decision differs at that edge.
  auto trace = load("clean");
  auto pol = recorded_policy(trace);
  ASSERT_TRUE(pol.is_ok());
  runtime::trace_record* begin = nullptr;
  for (auto& r : trace.records)
    if (r.kind == "task.begin") {
      begin = &r;
      break;
    }
  ASSERT_NE(begin, nullptr);
  begin->body["now"] = begin->body["now"].get<int64_t>() + 3'600'000;
  auto report = replay_recorded_run(trace, *pol);
  ASSERT_TRUE(report.is_ok());
  ASSERT_TRUE(report->divergence);
  EXPECT_EQ(report->divergence->cause, begin->seq);
  EXPECT_EQ(report->divergence->kind, "task.target");
}

} // namespace
} // namespace ad::tools
