#include "runtime/records/decision_records.hpp"

#include <gtest/gtest.h>

#include "runtime/policy/policy.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/stage_steps.hpp"

namespace ad::runtime {
namespace {

const std::string task_folder = "/ws/agent-task/g/01_a";
const std::string archive_folder = "/ws/agent-task/archive/2026/11/g/01_a";

review_source source(std::string path, std::string sha, int64_t mtime_ns, review_source_kind kind,
                     std::optional<review_verdict> verdict) {
  review_source s;
  s.path = std::move(path);
  s.sha256 = std::move(sha);
  s.mtime_ns = mtime_ns;
  s.kind = kind;
  s.verdict = verdict;
  return s;
}

// Two folders (one of each place, each flag set in one of them), sources of
// both kinds with every verdict label, large mtimes, two seen sources and
// distinct signatures.
review_reading sample_reading() {
  review_reading r;
  r.observed = true;
  review_folder active;
  active.path = task_folder;
  active.place = review_folder_place::active;
  active.has_user_review = true;
  active.has_complete_log = false;
  active.sources = {
    source(task_folder + "/code_review_a_G1_1.log", std::string(64, 'a'), 1795000000000000001,
           review_source_kind::review_log, review_verdict::pass),
    source(task_folder + "/CODE_REVIEW-a-G1.md", std::string(64, 'b'), 1795000000000000500,
           review_source_kind::review_file, review_verdict::warn)};
  review_folder archive;
  archive.path = archive_folder;
  archive.place = review_folder_place::archive;
  archive.has_user_review = false;
  archive.has_complete_log = true;
  archive.sources = {
    source(archive_folder + "/code_review_a_G1_2.log", std::string(64, 'c'), 1795000000000000900,
           review_source_kind::review_log, review_verdict::fail),
    source(archive_folder + "/CODE_REVIEW-a-G1.md", std::string(64, 'd'), 1795000000000000999,
           review_source_kind::review_file, std::nullopt)};
  r.after.folders = {active, archive};
  // The archived FAIL log was seen before, so the active WARN file decides.
  r.before = {{archive_folder + "/code_review_a_G1_2.log", std::string(64, 'c')},
              {task_folder + "/code_review_a_G1_0.log", std::string(64, 'e')}};
  r.signature_before = "sig-before-0123";
  r.signature_after = "sig-after-4567";
  return r;
}

void expect_same_reading(const review_reading& a, const review_reading& b) {
  EXPECT_EQ(a.observed, b.observed);
  ASSERT_EQ(a.after.folders.size(), b.after.folders.size());
  for (size_t i = 0; i < a.after.folders.size(); ++i) {
    SCOPED_TRACE("folder " + std::to_string(i));
    const auto& fa = a.after.folders[i];
    const auto& fb = b.after.folders[i];
    EXPECT_EQ(fa.path, fb.path);
    EXPECT_EQ(fa.place, fb.place);
    EXPECT_EQ(fa.has_user_review, fb.has_user_review);
    EXPECT_EQ(fa.has_complete_log, fb.has_complete_log);
    ASSERT_EQ(fa.sources.size(), fb.sources.size());
    for (size_t k = 0; k < fa.sources.size(); ++k) {
      SCOPED_TRACE("source " + std::to_string(k));
      EXPECT_EQ(fa.sources[k].path, fb.sources[k].path);
      EXPECT_EQ(fa.sources[k].sha256, fb.sources[k].sha256);
      EXPECT_EQ(fa.sources[k].mtime_ns, fb.sources[k].mtime_ns);
      EXPECT_EQ(fa.sources[k].kind, fb.sources[k].kind);
      EXPECT_EQ(fa.sources[k].verdict, fb.sources[k].verdict);
    }
  }
  EXPECT_EQ(a.before, b.before);
  EXPECT_EQ(a.signature_before, b.signature_before);
  EXPECT_EQ(a.signature_after, b.signature_after);
}

void expect_same_outcome(const review_outcome& a, const review_outcome& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.folder, b.folder);
  EXPECT_EQ(a.review_log, b.review_log);
}

TEST(decision_records, review_reading_round_trips_field_by_field) {
  auto r = sample_reading();
  json body = review_reading_body(r);
  auto back = review_reading_from_json(body);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  expect_same_reading(*back, r);
  EXPECT_EQ(review_reading_body(*back), body);

  // Through the text a trace file holds, too.
  auto reparsed = parse_json(dump_json(body), "reading");
  ASSERT_TRUE(reparsed.is_ok());
  auto from_text = review_reading_from_json(*reparsed);
  ASSERT_TRUE(from_text.is_ok()) << from_text.error().message();
  expect_same_reading(*from_text, r);
}

TEST(decision_records, review_reading_body_uses_the_documented_names) {
  json body = review_reading_body(sample_reading());
  EXPECT_EQ(body["observed"], true);
  ASSERT_EQ(body["folders"].size(), 2u);
  EXPECT_EQ(body["folders"][0]["place"], "active");
  EXPECT_EQ(body["folders"][1]["place"], "archive");
  const json& s = body["folders"][0]["sources"];
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0]["kind"], "log");
  EXPECT_EQ(s[0]["verdict"], "PASS");
  EXPECT_EQ(s[1]["kind"], "file");
  EXPECT_EQ(s[1]["verdict"], "WARN");
  EXPECT_EQ(body["folders"][1]["sources"][0]["verdict"], "FAIL");
  EXPECT_EQ(body["folders"][1]["sources"][1]["verdict"], "UNKNOWN");
  EXPECT_EQ(s[0]["mtime_ns"].get<int64_t>(), 1795000000000000001);
  ASSERT_EQ(body["seen_before"].size(), 2u);
  EXPECT_EQ(body["seen_before"][0].size(), 2u); // [path, sha256]
}

TEST(decision_records, round_tripped_reading_classifies_like_the_original) {
  auto r = sample_reading();
  auto back = review_reading_from_json(review_reading_body(r));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  auto original = classify_review_outcome(r.after, r.before, task_folder);
  expect_same_outcome(classify_review_outcome(back->after, back->before, task_folder), original);
  // The seen set survived: the archived FAIL log does not decide.
  EXPECT_EQ(original.kind, review_outcome_kind::user_review);
  EXPECT_EQ(original.verdict, review_verdict::warn);
  EXPECT_EQ(original.folder, task_folder);

  // Without the seen set the archived FAIL log is newest: a different
  // outcome, and the round trip still agrees.
  r.before.clear();
  back = review_reading_from_json(review_reading_body(r));
  ASSERT_TRUE(back.is_ok());
  original = classify_review_outcome(r.after, r.before, task_folder);
  EXPECT_EQ(original.kind, review_outcome_kind::archived);
  EXPECT_EQ(original.verdict, review_verdict::fail);
  EXPECT_EQ(original.folder, archive_folder);
  expect_same_outcome(classify_review_outcome(back->after, back->before, task_folder), original);
}

TEST(decision_records, unobserved_empty_reading_round_trips) {
  review_reading r;
  auto back = review_reading_from_json(review_reading_body(r));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  expect_same_reading(*back, r);
}

void expect_reading_rejected(const json& j) {
  auto r = review_reading_from_json(j);
  ASSERT_FALSE(r.is_ok()) << j.dump();
  EXPECT_TRUE(r.error().is_invalid_argument()) << r.error().to_string();
}

TEST(decision_records, unknown_verdict_label_is_an_error) {
  json body = review_reading_body(sample_reading());
  body["folders"][0]["sources"][1]["verdict"] = "MAYBE";
  auto r = review_reading_from_json(body);
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(r.error().is_invalid_argument());
  EXPECT_NE(r.error().message().find("MAYBE"), std::string::npos) << r.error().message();
  body["folders"][0]["sources"][1]["verdict"] = "pass"; // labels are exact
  expect_reading_rejected(body);
}

TEST(decision_records, wrong_field_types_are_errors) {
  const json good = review_reading_body(sample_reading());
  json j = good;
  j["observed"] = "yes";
  expect_reading_rejected(j);
  j = good;
  j["signature_after"] = 7;
  expect_reading_rejected(j);
  j = good;
  j["folders"][0]["sources"][0]["mtime_ns"] = "1795000000000000001";
  expect_reading_rejected(j);
  j = good;
  j["folders"][1]["complete_log"] = "true";
  expect_reading_rejected(j);
  j = good;
  j["seen_before"][0] = "path-without-hash";
  expect_reading_rejected(j);
  j = good;
  j["seen_before"][0] = json::array({"only-a-path"});
  expect_reading_rejected(j);
  j = good;
  j["folders"] = "none";
  expect_reading_rejected(j);
}

TEST(decision_records, missing_fields_are_errors_naming_them) {
  const json good = review_reading_body(sample_reading());
  for (const auto& [key, value] : good.items()) {
    SCOPED_TRACE(key);
    json j = good;
    j.erase(key);
    auto r = review_reading_from_json(j);
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.error().is_invalid_argument());
    EXPECT_NE(r.error().message().find(key), std::string::npos) << r.error().message();
  }
  for (const char* key : {"path", "place", "user_review", "complete_log", "sources"}) {
    SCOPED_TRACE(key);
    json j = good;
    j["folders"][1].erase(key);
    expect_reading_rejected(j);
  }
  for (const char* key : {"path", "sha256", "mtime_ns", "kind", "verdict"}) {
    SCOPED_TRACE(key);
    json j = good;
    j["folders"][0]["sources"][0].erase(key);
    expect_reading_rejected(j);
  }
}

// An unknown place or source kind is as wrong as an unknown verdict label: it
// must not be read as some other value.
TEST(decision_records, unknown_place_and_source_kind_are_errors) {
  const json good = review_reading_body(sample_reading());
  json j = good;
  j["folders"][0]["place"] = "attic";
  expect_reading_rejected(j);
  j = good;
  j["folders"][0]["sources"][0]["kind"] = "diary";
  expect_reading_rejected(j);
}

// A list given as null is the wrong type, not an empty list.
TEST(decision_records, null_lists_are_errors_not_empty) {
  const json good = review_reading_body(sample_reading());
  json j = good;
  j["folders"] = nullptr;
  expect_reading_rejected(j);
  j = good;
  j["seen_before"] = nullptr;
  expect_reading_rejected(j);
  j = good;
  j["folders"][0]["sources"] = nullptr;
  expect_reading_rejected(j);
}

TEST(decision_records, json_text_becomes_a_value_or_stays_text) {
  EXPECT_EQ(json_or_text(R"({"a":1})"), (json{{"a", 1}}));
  EXPECT_EQ(json_or_text("{broken"), json("{broken"));
}

std::vector<active_stage_reading> sample_readings() {
  active_stage_reading live;
  live.task = "g/01_a";
  live.state.active_stage = "worker";
  live.probe = {active_probe_kind::live, "pid 7 alive", "/s/runs/a/locator.json", "running", true, {}};
  active_stage_reading gone;
  gone.task = "g/02_b";
  gone.state.active_stage = "review";
  gone.probe = {active_probe_kind::stale, "agent gone", "/s/runs/b/locator.json", "running", true, {}};
  active_stage_reading done;
  done.task = "g/03_c";
  done.state.active_stage = "selfcheck";
  done.probe = {active_probe_kind::stale, "locator status is succeeded", "/s/runs/c/locator.json",
                "succeeded", true, {}};
  done.locator_read = true;
  done.locator_role = "selfcheck";
  done.checklist_read = true;
  done.checklist = {checklist_state::complete, 3, 0};
  return {live, gone, done};
}

TEST(decision_records, readings_of_active_stages_round_trip_and_decide_alike) {
  auto pol = parse_policy_text("{}", "test");
  ASSERT_TRUE(pol.is_ok());
  auto readings = sample_readings();
  auto body = active_stage_readings_body(readings);
  auto back = active_stage_readings_from_json(body);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(active_stage_readings_body(*back), body);
  auto expected = decide_active_stages(readings, &pol->value);
  EXPECT_EQ(expected.live.size(), 1u);
  EXPECT_EQ(expected.cleared.size(), 1u);
  EXPECT_EQ(expected.finished.size(), 1u); // the self-check finished from its locator
  EXPECT_EQ(active_review_body(decide_active_stages(*back, &pol->value)),
            active_review_body(expected));
}

TEST(decision_records, a_reading_of_an_unknown_probe_kind_is_an_error) {
  auto body = active_stage_readings_body(sample_readings());
  body["readings"][0]["probe"]["kind"] = "maybe";
  auto back = active_stage_readings_from_json(body);
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.error().message().find("\"kind\""), std::string::npos) << back.error().message();
  body = active_stage_readings_body(sample_readings());
  body["readings"][2]["checklist"]["state"] = 9;
  EXPECT_FALSE(active_stage_readings_from_json(body).is_ok());
}

} // namespace
} // namespace ad::runtime
