#include "runtime/schedule/review_outcome.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

review_source log(std::string path, int64_t mtime, std::optional<review_verdict> v, std::string hash = "h") {
  return {std::move(path), hash + std::to_string(mtime), mtime, review_source_kind::review_log, v};
}

review_source file(std::string path, int64_t mtime, std::optional<review_verdict> v, std::string hash = "f") {
  return {std::move(path), hash + std::to_string(mtime), mtime, review_source_kind::review_file, v};
}

review_folder active(std::vector<review_source> sources) {
  review_folder f;
  f.path = "/ws/agent-task/g/01_a";
  f.place = review_folder_place::active;
  f.sources = std::move(sources);
  return f;
}

review_folder archived(std::string path, std::vector<review_source> sources) {
  review_folder f;
  f.path = std::move(path);
  f.place = review_folder_place::archive;
  f.has_complete_log = true;
  f.sources = std::move(sources);
  return f;
}

struct outcome_case {
  std::string label;
  review_observation before;
  review_observation after;
  review_outcome_kind kind;
  std::optional<review_verdict> verdict;
  std::string review_log;
  review_next next;
};

const std::string dir = "/ws/agent-task/g/01_a";
const std::string old_log = dir + "/code_review_cloud_G05_1.log";
const std::string new_log = dir + "/code_review_cloud_G05_2.log";
const std::string review_md = dir + "/CODE_REVIEW-cloud-G05.md";

std::vector<outcome_case> outcome_cases() {
  using k = review_outcome_kind;
  using v = review_verdict;
  std::vector<outcome_case> out;
  auto before = review_observation{{active({log(old_log, 100, v::fail), file(review_md, 90, std::nullopt)})}};
  {
    auto f = active({log(old_log, 100, v::fail), log(new_log, 200, v::warn), file(review_md, 210, std::nullopt)});
    out.push_back({"new log beside a new review generation is a follow-up", before, {{f}}, k::follow_up,
                   v::warn, new_log, review_next::rescan});
  }
  {
    auto f = active({log(old_log, 100, v::fail), file(review_md, 200, v::pass)});
    out.push_back({"verdict written into the active review file is finalization-pending", before, {{f}},
                   k::finalization_pending, v::pass, review_md, review_next::rescan});
  }
  {
    auto f = active({log(old_log, 100, v::fail), log(new_log, 200, v::pass)});
    f.has_complete_log = true;
    out.push_back({"complete.log not yet archived is complete-finalization", before, {{f}},
                   k::complete_finalization, v::pass, new_log, review_next::rescan});
  }
  {
    auto f = active({log(old_log, 100, v::fail), log(new_log, 200, v::pass)});
    f.has_user_review = true;
    f.has_complete_log = true;
    out.push_back({"USER_REVIEW.md is checked before complete.log", before, {{f}}, k::user_review, v::pass,
                   new_log, review_next::rescan});
  }
  {
    auto a = archived("/ws/agent-task/archive/2026/11/g/01_a",
                      {log("/ws/agent-task/archive/2026/11/g/01_a/code_review_cloud_G05_2.log", 300, v::pass)});
    out.push_back({"PASS moved to the archive completes", before, {{a}}, k::archived, v::pass,
                   "/ws/agent-task/archive/2026/11/g/01_a/code_review_cloud_G05_2.log", review_next::complete});
  }
  {
    auto a = archived("/ws/agent-task/archive/2026/11/g/01_a",
                      {log("/ws/agent-task/archive/2026/11/g/01_a/code_review_cloud_G05_2.log", 300, v::fail)});
    out.push_back({"a non-PASS archive is an error", before, {{a}}, k::archived, v::fail,
                   "/ws/agent-task/archive/2026/11/g/01_a/code_review_cloud_G05_2.log", review_next::error});
  }
  {
    auto a1 = archived("/ws/agent-task/archive/2026/10/g/01_a",
                       {log("/ws/agent-task/archive/2026/10/g/01_a/code_review_cloud_G05_1.log", 50, v::pass)});
    auto a2 = archived("/ws/agent-task/archive/2026/11/g/01_a_2",
                       {log("/ws/agent-task/archive/2026/11/g/01_a_2/code_review_cloud_G05_3.log", 400, v::pass)});
    review_observation prior{{a1}};
    out.push_back({"among archive folders the newest unseen verdict decides", prior, {{a1, a2}}, k::archived,
                   v::pass, "/ws/agent-task/archive/2026/11/g/01_a_2/code_review_cloud_G05_3.log",
                   review_next::complete});
  }
  {
    out.push_back({"no new verdict is changed with an unknown verdict", before, before, k::changed, std::nullopt,
                   "unknown", review_next::error});
  }
  {
    auto f = active({log(old_log, 100, v::fail), log(new_log, 500, std::nullopt), file(review_md, 90, std::nullopt)});
    out.push_back({"a new log without a verdict does not count", before, {{f}}, k::changed, std::nullopt,
                   "unknown", review_next::error});
  }
  {
    auto f = active({log(old_log, 100, v::fail), log(new_log, 200, v::pass)});
    out.push_back({"a verdict with no next folder state is changed", before, {{f}}, k::changed, v::pass, new_log,
                   review_next::error});
  }
  {
    // The old log was rewritten: same path, new content hash, so it is new.
    auto f = active({log(old_log, 300, v::pass, "rewritten"), file(review_md, 90, std::nullopt)});
    out.push_back({"a rewritten log is a new verdict source", before, {{f}}, k::follow_up, v::pass, old_log,
                   review_next::rescan});
  }
  {
    auto f = active({log(new_log, 200, v::warn), log(dir + "/code_review_cloud_G05_3.log", 200, v::fail),
                     file(review_md, 90, std::nullopt)});
    out.push_back({"an mtime tie keeps the first source", before, {{f}}, k::follow_up, v::warn, new_log,
                   review_next::rescan});
  }
  return out;
}

TEST(review_outcome, classifies_like_the_reference_dispatcher) {
  for (const auto& c : outcome_cases()) {
    auto seen = collect_seen_sources(c.before);
    auto o = classify_review_outcome(c.after, seen, dir);
    EXPECT_EQ(to_string(o.kind), to_string(c.kind)) << c.label;
    EXPECT_EQ(verdict_label(o.verdict), verdict_label(c.verdict)) << c.label;
    EXPECT_EQ(o.review_log, c.review_log) << c.label;
    auto s = settle_review(o);
    EXPECT_EQ(static_cast<int>(s.next), static_cast<int>(c.next)) << c.label;
    EXPECT_EQ(s.reason.empty(), c.next != review_next::error) << c.label;
  }
}

TEST(review_outcome, folder_names_the_deciding_source_or_the_task_folder) {
  review_observation none;
  auto o = classify_review_outcome(none, {}, "/ws/agent-task/g/01_a");
  EXPECT_EQ(o.folder, "/ws/agent-task/g/01_a");
  EXPECT_EQ(o.kind, review_outcome_kind::changed);
  auto a = archived("/ws/agent-task/archive/2026/11/g/01_a", {log("/x.log", 1, review_verdict::pass)});
  EXPECT_EQ(classify_review_outcome({{a}}, {}, "/ws/agent-task/g/01_a").folder,
            "/ws/agent-task/archive/2026/11/g/01_a");
}

TEST(review_outcome, names_and_verdicts_round_trip) {
  EXPECT_EQ(to_string(review_outcome_kind::complete_finalization), "complete-finalization");
  EXPECT_EQ(to_string(review_outcome_kind::finalization_pending), "finalization-pending");
  EXPECT_EQ(to_string(review_outcome_kind::follow_up), "follow-up");
  EXPECT_EQ(to_string(review_outcome_kind::user_review), "user-review");
  EXPECT_EQ(verdict_label(review_verdict::pass), "PASS");
  EXPECT_EQ(verdict_label(review_verdict::warn), "WARN");
  EXPECT_EQ(verdict_label(review_verdict::fail), "FAIL");
  EXPECT_EQ(verdict_label(std::nullopt), "UNKNOWN");
}

TEST(review_outcome, settlement_reasons_name_the_verdict) {
  review_outcome o;
  o.kind = review_outcome_kind::archived;
  o.verdict = review_verdict::warn;
  o.folder = "/ws/agent-task/archive/2026/11/g/01_a";
  EXPECT_EQ(settle_review(o).reason,
            "a review with verdict WARN moved the task to the archive: /ws/agent-task/archive/2026/11/g/01_a");
}

} // namespace
} // namespace ad::runtime
