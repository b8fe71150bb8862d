#include "runtime/run/admission_quota.hpp"

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/policy/selection.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

using namespace std::chrono_literals;

policy test_policy() {
  auto p = parse_policy(default_policy_json(), "default");
  EXPECT_TRUE(p.is_ok());
  return *p;
}

time_zone test_zone(const policy& pol) {
  auto z = load_time_zone(pol.timezone);
  EXPECT_TRUE(z.is_ok());
  return *z;
}

constexpr millis noon = 1'795'000'000'000;

TEST(admission_quota, a_fresh_worker_probes_its_rule_candidates_and_a_decided_one_none) {
  auto pol = test_policy();
  auto zone = test_zone(pol);
  task_state decided;
  decided.work_unit_id = "g/02_b::plan-1::tag-t";
  decided.decisions["worker"].modify().selected_target = "agy-gemini";
  auto reqs = admission_probe_requests(
    pol, zone, {{"g/01_a", "cloud", 5, nullptr}, {"g/02_b", "cloud", 5, &decided}}, noon);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].task, "g/01_a");
  EXPECT_EQ(reqs[0].mode, probe_request::kind::fresh);
  EXPECT_EQ(reqs[0].candidate_ids,
            (std::vector<std::string>{"agy-gemini", "claude-opus", "codex-terra"}));
  // Two fresh cloud workers share the three distinct probes.
  auto two = admission_probe_requests(
    pol, zone, {{"g/01_a", "cloud", 5, nullptr}, {"g/03_c", "cloud", 2, nullptr}}, noon);
  EXPECT_EQ(plan_quota_probes(pol, two).size(), 3u);
  // Local workers need no quota.
  auto local = admission_probe_requests(pol, zone, {{"g/01_a", "local", 5, nullptr}}, noon);
  EXPECT_TRUE(plan_quota_probes(pol, local).empty());
}

TEST(admission_quota, a_pending_handoff_probes_the_unused_candidates) {
  auto pol = test_policy();
  auto zone = test_zone(pol);
  task_state st;
  st.work_unit_id = "g/01_a::plan-1::tag-t";
  auto& d = st.decisions["worker"].modify();
  d.selected_target = "agy-gemini";
  for (const char* t : {"agy-gemini", "claude-opus", "codex-terra"})
    d.candidates.push_back({t, true, {}});
  st.handoff = retry_handoff{"handoff-1", "agy-gemini", "/runs/x/locator.json"};
  auto reqs = admission_probe_requests(pol, zone, {{"g/01_a", "cloud", 5, &st}}, noon);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].mode, probe_request::kind::retry_handoff);
  auto plan = plan_quota_probes(pol, reqs);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].target_ids, std::vector<std::string>{"claude-opus"});
  EXPECT_EQ(plan[1].target_ids, std::vector<std::string>{"codex-terra"});
}

TEST(admission_quota, merge_keeps_the_task_s_own_quota_marks) {
  quota_snapshot admission{noon, {{"agy-gemini", "available"}, {"claude-opus", "exhausted"}}};
  quota_snapshot task{noon - 1000,
                      {{"agy-gemini", std::string(quota_exhausted_for_work_unit)},
                       {"codex-terra", "unknown"}}};
  auto m = merge_quota(admission, &task);
  EXPECT_EQ(m.taken_at, noon);
  EXPECT_EQ(m.status_by_target["agy-gemini"], quota_exhausted_for_work_unit);
  EXPECT_EQ(m.status_by_target["claude-opus"], "exhausted");
  EXPECT_EQ(m.status_by_target["codex-terra"], "unknown");
  EXPECT_EQ(merge_quota(admission, nullptr), admission);
}

TEST(admission_quota, the_plan_round_trips_through_json_and_bad_entries_are_named) {
  std::vector<planned_probe> plan{{{"probe", "--model", "m"}, {"a", "b"}}};
  auto back = probe_plan_from_json(probe_plan_to_json(plan));
  ASSERT_TRUE(back.is_ok());
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].argv, plan[0].argv);
  EXPECT_EQ((*back)[0].target_ids, plan[0].target_ids);
  auto bad = probe_plan_from_json(json::array({{{"argv", json::array()}, {"targets", {"a"}}}}));
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("entry 0"), std::string::npos);
}

TEST(admission_quota, the_process_runner_reads_stdout_and_kills_a_probe_at_its_timeout) {
  test::temp_dir dir;
  auto script = dir.write("probe.sh", "#!/bin/sh\necho noise >&2\necho \"{\\\"status\\\": \\\"$1\\\"}\"\n");
  ::chmod(script.c_str(), 0755);
  process_probe_runner runner(dir.path().string(), 2s);
  auto out = runner.run({script.string(), "exhausted"});
  EXPECT_EQ(out.exit_code, 0);
  auto r = parse_quota_probe_output("t", {}, out.stdout_text, out.exit_code, noon);
  EXPECT_EQ(r.state, quota_status::exhausted);

  auto missing = runner.run({(dir.path() / "no-such-probe").string()});
  EXPECT_EQ(missing.exit_code, 127);

  auto slow = dir.write("slow.sh", "#!/bin/sh\nsleep 30\n");
  ::chmod(slow.c_str(), 0755);
  process_probe_runner quick(dir.path().string(), 200ms);
  auto start = std::chrono::steady_clock::now();
  auto timed_out = quick.run({slow.string()});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(timed_out.exit_code, 124);
  EXPECT_EQ(parse_quota_probe_output("t", {}, timed_out.stdout_text, timed_out.exit_code, noon).state,
            quota_status::unknown);
}

} // namespace
} // namespace ad::runtime
