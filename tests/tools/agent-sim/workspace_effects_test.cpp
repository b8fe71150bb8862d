#include "tools/agent-sim/workspace_effects.hpp"

#include <gtest/gtest.h>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::agent_sim {
namespace {

constexpr std::string_view effects_plan_text = R"(<!-- task=auth/02+01_api plan=3 tag=v1 -->
# Plan

## Modified Files Summary

| File | Change |
|------|--------|
| `src/api.cpp:12:4` `src/api.hpp` | add endpoint |
| `docs/api.md` | document |

## Steps
- do it
)";

constexpr std::string_view effects_review_text = R"(# Review

## Implementation Checklist

- [ ] endpoint
- [ ] docs

## Notes
- [ ] not a checklist item
)";

std::string read_text(const fs::path& p) {
  auto t = runtime::read_file(p);
  EXPECT_TRUE(t.is_ok()) << p;
  return t.is_ok() ? *t : "";
}

class workspace_effects : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = tmp_.path() / "agent-task" / "auth" / "02+01_api";
    plan_ = tmp_.write("agent-task/auth/02+01_api/PLAN-local-G03.md", effects_plan_text);
    review_ = tmp_.write("agent-task/auth/02+01_api/CODE_REVIEW-local-G03.md", effects_review_text);
  }
  task_files task() {
    auto t = task_from_name(tmp_.path(), "auth/02+01_api");
    EXPECT_TRUE(t.is_ok()) << t.error().to_string();
    return t.is_ok() ? *t : task_files{};
  }
  test::temp_dir tmp_;
  fs::path dir_, plan_, review_;
};

TEST(workspace_parsing, reads_identity_and_modified_files) {
  auto id = read_plan_identity(effects_plan_text);
  ASSERT_TRUE(id.is_ok());
  EXPECT_EQ(id->task, "auth/02+01_api");
  EXPECT_EQ(id->plan, 3);
  EXPECT_EQ(id->tag, "v1");
  auto files = modified_files(effects_plan_text);
  ASSERT_TRUE(files.is_ok());
  EXPECT_EQ(*files, (std::vector<std::string>{"src/api.cpp", "src/api.hpp", "docs/api.md"}));
  EXPECT_FALSE(read_plan_identity("# no header").is_ok());
  EXPECT_FALSE(modified_files("# Plan\n## Other\n| `a` |\n").is_ok());
}

TEST(workspace_parsing, fills_only_the_implementation_checklist) {
  EXPECT_FALSE(checklist_complete(effects_review_text));
  std::string first = fill_checklist(effects_review_text, checklist_fill::first);
  EXPECT_NE(first.find("- [x] endpoint\n- [ ] docs"), std::string::npos) << first;
  EXPECT_FALSE(checklist_complete(first));
  std::string all = fill_checklist(effects_review_text, checklist_fill::all);
  EXPECT_TRUE(checklist_complete(all));
  EXPECT_NE(all.find("- [ ] not a checklist item"), std::string::npos);
  EXPECT_EQ(fill_checklist(effects_review_text, checklist_fill::none), effects_review_text);
  EXPECT_FALSE(checklist_complete("## Implementation Checklist\nnothing\n"));
}

TEST(workspace_parsing, role_from_prompt_wording) {
  EXPECT_EQ(role_from_prompt("Read /w/CODE_REVIEW-local-G03.md and start the review."), "review");
  EXPECT_EQ(role_from_prompt("Continue the review for /w/agent-task/a/01_x."), "review");
  EXPECT_EQ(role_from_prompt("Read /r.md and fill every missing implementation field. This is a "
                             "self-check of completed work, not a review."),
            "selfcheck");
  EXPECT_EQ(role_from_prompt("Read /w/PLAN-local-G03.md and complete the task."), "worker");
}

TEST_F(workspace_effects, finds_the_task_from_plan_review_folder_and_locator_prompts) {
  auto by_plan = task_from_prompt(tmp_.path(), "Read " + plan_.string() + " and complete the task.");
  ASSERT_TRUE(by_plan.is_ok()) << by_plan.error().to_string();
  EXPECT_EQ(by_plan->name, "auth/02+01_api");
  EXPECT_EQ(by_plan->lane, "local");
  EXPECT_EQ(by_plan->grade, "03");
  EXPECT_EQ(by_plan->review, review_);

  auto by_review = task_from_prompt(tmp_.path(), "Read " + review_.string() + " and start the review.");
  ASSERT_TRUE(by_review.is_ok());
  EXPECT_EQ(by_review->plan, plan_);

  auto by_folder = task_from_prompt(tmp_.path(), "Continue the review for " + dir_.string() + ".");
  ASSERT_TRUE(by_folder.is_ok()) << by_folder.error().to_string();
  EXPECT_EQ(by_folder->name, "auth/02+01_api");

  fs::path locator = tmp_.write("state/runs/x/locator.json", R"({"task": "auth/02+01_api", "role": "worker"})");
  auto by_locator = task_from_prompt(tmp_.path(), "Continue from " + locator.parent_path().string() +
                                                      ". Check the saved context and current workspace.");
  ASSERT_TRUE(by_locator.is_ok()) << by_locator.error().to_string();
  EXPECT_EQ(by_locator->name, "auth/02+01_api");

  auto by_package = task_from_prompt(tmp_.path(), "Read plan=" + plan_.string() + ", locator=" +
                                                      locator.string() + " and complete the task.");
  ASSERT_TRUE(by_package.is_ok());
  EXPECT_EQ(by_package->name, "auth/02+01_api");

  EXPECT_FALSE(task_from_prompt(tmp_.path(), "Say hello.").is_ok());
  EXPECT_FALSE(task_from_prompt(tmp_.path(), "Read /elsewhere/agent-task/a/01_b/PLAN-local-G03.md").is_ok());
}

TEST(workspace_parsing, a_quoted_span_is_one_prompt_word) {
  EXPECT_EQ(prompt_words(R"(Read "/home/me/my project/PLAN.md" and go.)"),
            (std::vector<std::string>{"Read", "/home/me/my project/PLAN.md", "and", "go."}));
  EXPECT_EQ(prompt_words(R"(a "q\"uote\\d" b)"),
            (std::vector<std::string>{"a", "q\"uote\\d", "b"}));
  EXPECT_EQ(prompt_words("  one\ttwo\n"), (std::vector<std::string>{"one", "two"}));
}

TEST(workspace_paths, a_workspace_whose_path_has_spaces_is_found_from_a_quoted_prompt) {
  test::temp_dir tmp;
  fs::path ws = tmp.path() / "my project" / "with  two spaces";
  fs::create_directories(ws / "agent-task" / "auth" / "02+01_api");
  fs::path plan = ws / "agent-task" / "auth" / "02+01_api" / "PLAN-local-G03.md";
  ASSERT_TRUE(runtime::write_file_atomic(plan, std::string(effects_plan_text)).is_ok());
  std::string quoted = "\"" + plan.string() + "\"";
  auto found = task_from_prompt(ws, "Read " + quoted + " and complete the task.");
  ASSERT_TRUE(found.is_ok()) << found.error().to_string();
  EXPECT_EQ(found->name, "auth/02+01_api");
  // The same path unquoted is ambiguous: the simulator does not guess.
  EXPECT_FALSE(task_from_prompt(ws, "Read " + plan.string() + " and complete the task.").is_ok());
}

TEST_F(workspace_effects, confine_refuses_escapes_and_symlinks_out) {
  EXPECT_TRUE(confine(tmp_.path(), "src/a.cpp").is_ok());
  EXPECT_FALSE(confine(tmp_.path(), "../outside.txt").is_ok());
  EXPECT_FALSE(confine(tmp_.path(), "src/../../outside.txt").is_ok());
  EXPECT_FALSE(confine(tmp_.path(), "/etc/passwd").is_ok());
  EXPECT_FALSE(confine(tmp_.path(), ".").is_ok());
  test::temp_dir other;
  fs::create_symlink(other.path(), tmp_.path() / "link");
  auto through_link = confine(tmp_.path(), "link/file.txt");
  ASSERT_FALSE(through_link.is_ok());
  EXPECT_NE(through_link.error().message().find("outside the workspace"), std::string::npos);
}

TEST_F(workspace_effects, work_appends_to_every_claimed_file_and_fills_the_checklist) {
  tmp_.write("src/api.cpp", "existing\n");
  effect_report report;
  action a;
  ASSERT_TRUE(do_work(task(), a, "stamp-1", report).is_ok());
  EXPECT_EQ(read_text(tmp_.path() / "src/api.cpp"), "existing\nstamp-1\n");
  EXPECT_EQ(read_text(tmp_.path() / "src/api.hpp"), "stamp-1\n");
  EXPECT_EQ(read_text(tmp_.path() / "docs/api.md"), "stamp-1\n");
  EXPECT_TRUE(checklist_complete(read_text(review_)));
  EXPECT_EQ(report.written.size(), 4u);
  EXPECT_TRUE(report.refused.empty());

  a.mode = write_mode::touch;
  ASSERT_TRUE(do_work(task(), a, "stamp-2", report).is_ok());
  EXPECT_EQ(read_text(tmp_.path() / "src/api.hpp"), "stamp-1\n");
}

TEST_F(workspace_effects, work_refuses_paths_outside_the_workspace) {
  tmp_.write("agent-task/auth/02+01_api/PLAN-local-G03.md",
             "<!-- task=auth/02+01_api plan=1 tag=t -->\n## Modified Files Summary\n| File |\n|---|\n"
             "| `../../evil.txt` |\n| `ok.txt` |\n");
  effect_report report;
  ASSERT_TRUE(do_work(task(), action{}, "s", report).is_ok());
  EXPECT_EQ(report.refused, std::vector<std::string>{"../../evil.txt"});
  EXPECT_FALSE(fs::exists(tmp_.path().parent_path().parent_path() / "evil.txt"));
  EXPECT_TRUE(fs::exists(tmp_.path() / "ok.txt"));
}

TEST_F(workspace_effects, selfcheck_fills_missing_boxes) {
  effect_report report;
  ASSERT_TRUE(do_selfcheck(task(), report).is_ok());
  EXPECT_TRUE(checklist_complete(read_text(review_)));
  EXPECT_EQ(report.written, std::vector<std::string>{review_.string()});
}

TEST_F(workspace_effects, pass_review_archives_the_task) {
  effect_report report;
  auto t = runtime::parse_utc_iso("2026-03-05T10:00:00Z");
  ASSERT_TRUE(t.is_ok());
  ASSERT_TRUE(do_review(task(), "PASS", review_follow_up::next_generation, *t, report).is_ok());
  fs::path archived = tmp_.path() / "agent-task/archive/2026/03/auth/02+01_api";
  EXPECT_FALSE(fs::exists(dir_));
  ASSERT_TRUE(fs::is_directory(archived));
  EXPECT_TRUE(fs::exists(archived / "complete.log"));
  std::string log = read_text(archived / "code_review_local_G03_3.log");
  EXPECT_NE(log.find("## Code Review Result\n\nOverall Verdict: PASS\n"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(archived / "CODE_REVIEW-local-G03.md"));

  // A second completion of the same name gets a _1 suffix.
  plan_ = tmp_.write("agent-task/auth/02+01_api/PLAN-local-G03.md", effects_plan_text);
  review_ = tmp_.write("agent-task/auth/02+01_api/CODE_REVIEW-local-G03.md", effects_review_text);
  ASSERT_TRUE(do_review(task(), "PASS", review_follow_up::next_generation, *t, report).is_ok());
  EXPECT_TRUE(fs::exists(tmp_.path() / "agent-task/archive/2026/03/auth/02+01_api_1/complete.log"));
}

TEST_F(workspace_effects, fail_review_starts_the_next_plan_generation) {
  tmp_.write("agent-task/auth/02+01_api/CODE_REVIEW-local-G03.md",
             fill_checklist(effects_review_text, checklist_fill::all));
  effect_report report;
  ASSERT_TRUE(do_review(task(), "FAIL", review_follow_up::next_generation, 0, report).is_ok());
  std::string old_plan = read_text(dir_ / "plan_local_G03_3.log");
  EXPECT_NE(old_plan.find("plan=3 tag=v1"), std::string::npos);
  EXPECT_NE(read_text(dir_ / "code_review_local_G03_3.log").find("Overall Verdict: FAIL"), std::string::npos);
  std::string next_plan = read_text(plan_);
  auto id = read_plan_identity(next_plan);
  ASSERT_TRUE(id.is_ok());
  EXPECT_EQ(id->plan, 4);
  EXPECT_EQ(id->tag, "v1");
  EXPECT_TRUE(modified_files(next_plan).is_ok());
  std::string next_review = read_text(review_);
  EXPECT_FALSE(checklist_complete(next_review));
  EXPECT_EQ(next_review.find("Code Review Result"), std::string::npos);
}

// A recovery folder: the previous review moved the PLAN and CODE_REVIEW to
// their logs (FAIL) and stopped before the next generation. The review prompt
// names the folder; the reviewer reviews that generation again.
class recovery_review : public workspace_effects {
protected:
  void SetUp() override {
    dir_ = tmp_.path() / "agent-task" / "auth" / "02+01_api";
    tmp_.write("agent-task/auth/02+01_api/plan_local_G03_1.log", effects_plan_text);
    tmp_.write("agent-task/auth/02+01_api/code_review_local_G03_1.log",
               std::string(effects_review_text) + "\n## Code Review Result\n\nOverall Verdict: FAIL\n");
  }
  task_files recovery_task() {
    auto t = task_from_prompt(tmp_.path(), "Read " + dir_.string() + " and start the review.");
    EXPECT_TRUE(t.is_ok()) << t.error().to_string();
    return t.is_ok() ? *t : task_files{};
  }
};

TEST_F(recovery_review, the_folder_prompt_finds_the_newest_logs) {
  tmp_.write("agent-task/auth/02+01_api/plan_local_G03_0.log", effects_plan_text);
  auto t = recovery_task();
  EXPECT_TRUE(t.plan.empty());
  EXPECT_TRUE(t.review.empty());
  EXPECT_EQ(t.review_log, dir_ / "code_review_local_G03_1.log");
  EXPECT_EQ(t.plan_log, dir_ / "plan_local_G03_1.log");
  EXPECT_EQ(t.lane, "local");
  EXPECT_EQ(t.grade, "03");
}

TEST_F(recovery_review, pass_writes_a_new_verdict_log_and_archives) {
  effect_report report;
  auto t = runtime::parse_utc_iso("2026-03-05T10:00:00Z");
  ASSERT_TRUE(t.is_ok());
  ASSERT_TRUE(
    do_review(recovery_task(), "PASS", review_follow_up::next_generation, *t, report)
      .is_ok());
  fs::path archived = tmp_.path() / "agent-task/archive/2026/03/auth/02+01_api";
  EXPECT_FALSE(fs::exists(dir_));
  ASSERT_TRUE(fs::exists(archived / "complete.log"));
  EXPECT_NE(read_text(archived / "complete.log").find("plan=3"), std::string::npos);
  // The earlier FAIL log stays; the new verdict is in its own log.
  EXPECT_NE(read_text(archived / "code_review_local_G03_1.log").find("Overall Verdict: FAIL"),
            std::string::npos);
  std::string log = read_text(archived / "code_review_local_G03_3.log");
  EXPECT_NE(log.find("## Code Review Result\n\nOverall Verdict: PASS\n"), std::string::npos) << log;
  EXPECT_EQ(log.find("Overall Verdict: FAIL"), std::string::npos) << log;
}

TEST_F(recovery_review, a_legacy_korean_verdict_is_replaced_not_kept_beside_the_new_one) {
  // Two schemas in one file would be no verdict at all (SPEC section 2).
  tmp_.write("agent-task/auth/02+01_api/code_review_local_G03_1.log",
             std::string(effects_review_text) + "\n## 코드리뷰 결과\n\n### 종합 판정\n\n**FAIL**\n");
  effect_report report;
  ASSERT_TRUE(
    do_review(recovery_task(), "PASS", review_follow_up::next_generation, 0, report)
      .is_ok());
  std::string log = read_text(tmp_.path() / "agent-task/archive/1970/01/auth/02+01_api/code_review_local_G03_3.log");
  EXPECT_NE(log.find("Overall Verdict: PASS"), std::string::npos) << log;
  EXPECT_EQ(log.find("코드리뷰 결과"), std::string::npos) << log;
  EXPECT_EQ(log.find("**FAIL**"), std::string::npos) << log;
  EXPECT_NE(log.find("## Implementation Checklist"), std::string::npos) << log;
}

TEST_F(recovery_review, fail_restores_the_next_generation_from_the_plan_log) {
  effect_report report;
  ASSERT_TRUE(
    do_review(recovery_task(), "FAIL", review_follow_up::next_generation, 0, report)
      .is_ok());
  EXPECT_NE(read_text(dir_ / "code_review_local_G03_3.log").find("Overall Verdict: FAIL"),
            std::string::npos);
  std::string next_plan = read_text(dir_ / "PLAN-local-G03.md");
  auto id = read_plan_identity(next_plan);
  ASSERT_TRUE(id.is_ok());
  EXPECT_EQ(id->plan, 4);
  EXPECT_EQ(id->tag, "v1");
  EXPECT_TRUE(modified_files(next_plan).is_ok());
  std::string next_review = read_text(dir_ / "CODE_REVIEW-local-G03.md");
  EXPECT_FALSE(checklist_complete(next_review));
  EXPECT_EQ(next_review.find("Code Review Result"), std::string::npos);
  // The next run sees an ordinary task again.
  auto again = task_from_name(tmp_.path(), "auth/02+01_api");
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->plan, dir_ / "PLAN-local-G03.md");
  EXPECT_TRUE(again->review_log.empty());
}

TEST_F(workspace_effects, a_review_that_stops_retires_the_pair_without_a_next_generation) {
  tmp_.write("agent-task/auth/02+01_api/CODE_REVIEW-local-G03.md",
             fill_checklist(effects_review_text, checklist_fill::all));
  effect_report report;
  ASSERT_TRUE(do_review(task(), "FAIL", review_follow_up::stop, 0, report).is_ok());
  EXPECT_NE(read_text(dir_ / "plan_local_G03_3.log").find("plan=3 tag=v1"), std::string::npos);
  EXPECT_NE(read_text(dir_ / "code_review_local_G03_3.log").find("Overall Verdict: FAIL"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(plan_));
  EXPECT_FALSE(fs::exists(review_));
  // What is left is a recovery folder: the logs of generation 3.
  auto after = task_from_name(tmp_.path(), "auth/02+01_api");
  ASSERT_TRUE(after.is_ok());
  EXPECT_TRUE(after->plan.empty());
  EXPECT_EQ(after->review_log, dir_ / "code_review_local_G03_3.log");
}

TEST_F(recovery_review, a_review_that_stops_writes_only_its_verdict_log) {
  effect_report report;
  ASSERT_TRUE(do_review(recovery_task(), "WARN", review_follow_up::stop, 0, report).is_ok());
  EXPECT_NE(read_text(dir_ / "code_review_local_G03_3.log").find("Overall Verdict: WARN"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "PLAN-local-G03.md"));
  EXPECT_FALSE(fs::exists(dir_ / "CODE_REVIEW-local-G03.md"));
}

TEST_F(workspace_effects, write_action_is_confined) {
  effect_report report;
  ASSERT_TRUE(do_write(tmp_.path(), "notes/a.txt", "hi", report).is_ok());
  ASSERT_TRUE(do_write(tmp_.path(), "../b.txt", "no", report).is_ok());
  EXPECT_EQ(read_text(tmp_.path() / "notes/a.txt"), "hi");
  EXPECT_EQ(report.refused, std::vector<std::string>{"../b.txt"});
}

} // namespace
} // namespace ad::agent_sim
