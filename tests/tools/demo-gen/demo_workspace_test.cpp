#include "tools/demo-gen/demo_workspace.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runtime/workspace/dry_run.hpp"
#include "runtime/workspace/task_scan.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::demo {
namespace {

namespace fs = std::filesystem;
using runtime::dispatch_status;

TEST(demo_workspace, standard_scenario_shows_every_status) {
  test::temp_dir dir;
  auto ws = dir.path() / "demo";
  ASSERT_TRUE(generate_demo(ws, "standard", replace_mode::refuse).is_ok());
  auto scan = runtime::scan_workspace(ws);
  ASSERT_TRUE(scan.is_ok());
  EXPECT_GE(scan->groups.size(), 3u);
  EXPECT_EQ(scan->tasks.size(), 13u);
  runtime::dry_run_input input;
  input.scan = &*scan;
  auto report = runtime::plan_dry_run(input);

  std::map<std::string, dispatch_status> expected = {
      {"auth/02+01_session_store", dispatch_status::ready},
      {"auth/03+02_login_api", dispatch_status::waiting},
      {"auth/04+02,03_logout_api", dispatch_status::waiting},
      {"auth/05_password_policy", dispatch_status::user_review},
      {"auth/01_user_model", dispatch_status::complete},
      {"billing/01_invoice_schema", dispatch_status::ready},
      {"billing/02+01_tax_rules", dispatch_status::waiting},
      {"billing/03_currency_format", dispatch_status::blocked},
      {"billing/04_refund_flow", dispatch_status::ready},
      {"docs/01_api_reference", dispatch_status::ready},
      {"docs/02_changelog", dispatch_status::waiting},
      {"docs/03+01_tutorial", dispatch_status::waiting},
      {"docs/04+01,02_release_notes", dispatch_status::waiting},
      {"infra", dispatch_status::ready},
  };
  ASSERT_EQ(report.tasks.size(), expected.size());
  for (const auto& t : report.tasks) {
    auto it = expected.find(t.name);
    ASSERT_NE(it, expected.end()) << t.name;
    EXPECT_EQ(t.status, it->second) << t.name << ": " << t.reason;
  }
  auto find = [&](const std::string& name) {
    for (const auto& t : report.tasks)
      if (t.name == name)
        return t;
    return runtime::dry_run_task{};
  };
  EXPECT_EQ(find("billing/04_refund_flow").route, "recovery");
  EXPECT_EQ(find("billing/04_refund_flow").stage, "review");
  EXPECT_EQ(find("billing/01_invoice_schema").stage, "review");
  EXPECT_NE(find("docs/02_changelog").reason.find("claim conflict with docs/01_api_reference"),
            std::string::npos);
  EXPECT_NE(find("billing/03_currency_format").reason.find("placeholder"), std::string::npos);
  EXPECT_NE(find("billing/03_currency_format").reason.find("glob"), std::string::npos);
  EXPECT_EQ(report.summary.exit_code, 0);
}

TEST(demo_workspace, resolved_scenario_holds_nothing_for_a_person) {
  test::temp_dir dir;
  ASSERT_TRUE(generate_demo(dir.path() / "standard", "standard", replace_mode::refuse).is_ok());
  ASSERT_TRUE(generate_demo(dir.path() / "resolved", "resolved", replace_mode::refuse).is_ok());
  auto standard = runtime::scan_workspace(dir.path() / "standard");
  auto resolved = runtime::scan_workspace(dir.path() / "resolved");
  ASSERT_TRUE(standard.is_ok());
  ASSERT_TRUE(resolved.is_ok());
  runtime::dry_run_input input;
  input.scan = &*resolved;
  auto report = runtime::plan_dry_run(input);
  // The same tasks as the standard demo, none blocked or waiting for a person.
  std::set<std::string> names_standard, names_resolved;
  for (const auto& t : standard->tasks)
    names_standard.insert(t.name);
  for (const auto& t : resolved->tasks)
    names_resolved.insert(t.name);
  EXPECT_EQ(names_resolved, names_standard);
  for (const auto& t : report.tasks) {
    EXPECT_NE(t.status, dispatch_status::blocked) << t.name << ": " << t.reason;
    EXPECT_NE(t.status, dispatch_status::user_review) << t.name << ": " << t.reason;
    if (t.name == "auth/05_password_policy" || t.name == "billing/03_currency_format") {
      EXPECT_EQ(t.status, dispatch_status::ready) << t.name << ": " << t.reason;
    }
  }
  EXPECT_FALSE(fs::exists(dir.path() / "resolved/agent-task/auth/05_password_policy/USER_REVIEW.md"));
  EXPECT_EQ(report.summary.exit_code, 0);
}

TEST(demo_workspace, refuses_to_replace_anything_but_a_demo) {
  test::temp_dir dir;
  auto ws = dir.path() / "demo";
  ASSERT_TRUE(generate_demo(ws, "standard", replace_mode::refuse).is_ok());
  EXPECT_TRUE(generate_demo(ws, "standard", replace_mode::refuse).is_conflict());
  dir.write("demo/agent-task/stale/01_old/complete.log", "x");
  ASSERT_TRUE(generate_demo(ws, "standard", replace_mode::replace).is_ok());
  EXPECT_FALSE(fs::exists(ws / "agent-task/stale"));

  dir.write("precious/file.txt", "keep");
  EXPECT_TRUE(generate_demo(dir.path() / "precious", "standard", replace_mode::replace).is_conflict());
  EXPECT_TRUE(fs::exists(dir.path() / "precious/file.txt"));
  EXPECT_TRUE(generate_demo(dir.path() / "x", "no-such-scenario", replace_mode::refuse)
                  .is_invalid_argument());
}

} // namespace
} // namespace ad::demo
