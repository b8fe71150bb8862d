#include "runtime/policy/supervisor.hpp"

#include <gtest/gtest.h>

#include "runtime/core/numbers.hpp"
#include "runtime/state/model_json.hpp"
#include "tests/runtime/policy/test_policy.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

using test_policy::at;

const std::string task_name = "g/01_x";
const std::string work_unit = "g/01_x::plan-1::tag-a";

enum class setup { cloud_low, cloud_high, local, chain_end, review, selfcheck_pinned, after_failover };

// A task with a current decision, driven through the supervisor and the state
// module's apply_change(), as the run loop will.
class world {
public:
  world() {
    EXPECT_TRUE(apply_change(model, begin_work_unit{task_name, work_unit}).is_ok());
  }

  const task_state& task() { return model.tasks.at(task_name); }

  void commit(const std::vector<state_change>& changes) {
    for (const auto& c : changes) {
      auto st = apply_change(model, c);
      EXPECT_TRUE(st.is_ok()) << change_name(c) << ": " << st.to_string();
    }
  }

  route_decision decide(std::string stage, std::string lane, int grade,
                        route_transition t = route_transition::initial,
                        std::string pinned = "") {
    selection_request r;
    r.work_unit_id = work_unit;
    r.stage = stage;
    r.lane = lane;
    r.grade = grade;
    r.now = now;
    r.transition = t;
    r.pinned_target = pinned;
    auto it = task().decisions.find(stage);
    if (it != task().decisions.end())
      r.prior = &it->second.get();
    r.used_targets = used_targets(task(), stage);
    auto d = select_target(pol, zone, r);
    EXPECT_TRUE(d.is_ok()) << d.error().to_string();
    commit({record_decision{task_name, *d}});
    return *d;
  }

  void prepare(setup s) {
    switch (s) {
      case setup::cloud_low: decide("worker", "cloud", 3); break;
      case setup::cloud_high: decide("worker", "cloud", 7); break;
      case setup::local: decide("worker", "local", 3); break;
      case setup::chain_end:
        decide("worker", "cloud", 3);
        decide("worker", "cloud", 3, route_transition::promotion);
        decide("worker", "cloud", 3, route_transition::promotion);
        break;
      case setup::review: decide("review", "cloud", 3); break;
      case setup::selfcheck_pinned: decide("selfcheck", "local", 3, route_transition::initial, "pi-b"); break;
      case setup::after_failover:
        decide("worker", "cloud", 7);
        decide("worker", "cloud", 7, route_transition::failover);
        break;
    }
  }

  supervisor_request request(std::string stage, std::string failure_class) {
    supervisor_request r;
    r.failure.task = task_name;
    r.failure.stage = stage;
    r.failure.failure_class = failure_class;
    r.failure.evidence = "evidence line";
    r.failure.evidence_origin = "stderr";
    r.failure.attempt_id = "g_01_x__p1__" + stage + "__a01";
    r.failure.locator = "/state/runs/a01/locator.json";
    r.failure.raw_log = "/state/runs/a01/stream.log";
    r.failure.normalized_output = "/state/runs/a01/normalized-output.log";
    r.paths = {"/ws", "/ws/agent-task/g/01_x", "/ws/agent-task/g/01_x/PLAN-cloud-G03.md",
               "/ws/agent-task/g/01_x/CODE_REVIEW-cloud-G03.md"};
    r.lane = "cloud";
    r.grade = 3;
    return r;
  }

  supervisor_outcome fail(const supervisor_request& r) {
    auto out = decide_after_failure(pol, zone, task(), cooldowns, r, now);
    commit(out.changes);
    cooldowns = out.cooldowns;
    return out;
  }

  policy pol = test_policy::load();
  time_zone zone = test_policy::seoul();
  state_model model;
  target_cooldowns cooldowns;
  millis now = at("2026-11-30T03:00:00Z");
};

bool has_change(const std::vector<state_change>& changes, std::string_view name) {
  for (const auto& c : changes)
    if (change_name(c) == name)
      return true;
  return false;
}

std::string target_of(const next_step& s) {
  return std::visit(
    [](const auto& x) -> std::string {
      if constexpr (requires { x.target; })
        return x.target;
      else
        return "";
    },
    s);
}

struct branch_row {
  const char* name;
  setup start;
  const char* stage;
  const char* failure_class;
  bool native_session;
  const char* step;
  const char* target;
  const char* detail; // retry kind, or package kind for failover/promote, or reason fragment
};

class supervisor_branches : public ::testing::TestWithParam<branch_row> {};

TEST_P(supervisor_branches, answer_the_next_step) {
  const auto& row = GetParam();
  world w;
  w.prepare(row.start);
  auto req = w.request(row.stage, row.failure_class);
  if (row.native_session)
    req.failure.native_session_path = "/state/runs/a01/pi-sessions/s.jsonl";
  auto out = w.fail(req);
  EXPECT_EQ(step_name(out.step), row.step) << dump_json(to_json(out.step));
  EXPECT_EQ(target_of(out.step), row.target);
  std::string detail = row.detail;
  if (auto* r = std::get_if<retry_same>(&out.step)) {
    EXPECT_EQ(r->kind, detail);
    EXPECT_GT(r->delay, 0);
    EXPECT_FALSE(r->prompt.empty());
  } else if (auto* f = std::get_if<failover_step>(&out.step)) {
    EXPECT_EQ(f->package.kind == package_kind::native ? "native" : "logical", detail);
    EXPECT_EQ(f->decision.transition, route_transition::failover);
    EXPECT_EQ(w.task().decisions.at(row.stage)->selected_target, row.target);
    EXPECT_EQ(f->package.locator, req.failure.locator);
    // The wire form names the session the next attempt resumes (native only).
    auto wire = to_json(out.step);
    if (f->package.kind == package_kind::native) {
      EXPECT_EQ(wire.value("session", std::string{}), req.failure.native_session_path);
    } else {
      EXPECT_FALSE(wire.contains("session")) << dump_json(wire);
    }
  } else if (auto* p = std::get_if<promote_step>(&out.step)) {
    EXPECT_EQ(p->package.kind == package_kind::native ? "native" : "logical", detail);
    EXPECT_EQ(p->decision.transition, route_transition::promotion);
    EXPECT_EQ(w.task().decisions.at(row.stage)->selected_target, row.target);
    EXPECT_NE(p->prompt.find(req.failure.raw_log), std::string::npos) << p->prompt;
  } else if (auto* n = std::get_if<resume_native>(&out.step)) {
    EXPECT_EQ(n->session, req.failure.native_session_path);
    EXPECT_EQ(n->prompt, w.pol.prompts.native_resume);
  } else if (auto* b = std::get_if<block_step>(&out.step)) {
    EXPECT_NE(b->reason.find(detail), std::string::npos) << b->reason;
    ASSERT_TRUE(w.task().blocked.has_value());
    EXPECT_EQ(w.task().blocked->reason, b->reason);
  }
  // Every failure but a work-log one spends the budget.
  bool work_log = std::string(row.failure_class).rfind("work-log", 0) == 0;
  EXPECT_EQ(has_change(out.changes, "record_failure"), !work_log);
  EXPECT_EQ(w.task().failure_budgets.count(row.stage) ? w.task().failure_budgets.at(row.stage) : 0,
            work_log ? 0 : 1);
}

INSTANTIATE_TEST_SUITE_P(
  table, supervisor_branches,
  ::testing::Values(
    // Same target, continuation prompt.
    branch_row{"generic_error", setup::cloud_low, "worker", "generic-error", false, "retry_same", "agy", "generic"},
    branch_row{"process_terminated", setup::cloud_low, "worker", "process-terminated", false, "retry_same", "agy", "terminal"},
    branch_row{"worker_review_control", setup::cloud_low, "worker", "review-control-violation", false, "retry_same", "agy", "terminal"},
    branch_row{"agy_session_stall", setup::cloud_low, "worker", "session-stall", false, "retry_same", "agy", "terminal"},
    // Single candidate: promotable failures promote along the chain.
    branch_row{"quota_promotes", setup::cloud_low, "worker", "provider-quota", false, "promote", "claude", "logical"},
    branch_row{"context_promotes", setup::cloud_low, "worker", "context-limit", false, "promote", "claude", "logical"},
    branch_row{"model_promotes", setup::cloud_low, "worker", "model-unavailable", false, "promote", "claude", "logical"},
    branch_row{"connection_promotes", setup::cloud_low, "worker", "provider-connection", false, "promote", "claude", "logical"},
    branch_row{"stream_promotes", setup::cloud_low, "worker", "provider-stream-disconnect", false, "promote", "claude", "logical"},
    // Several candidates: qualified failures fail over.
    branch_row{"quota_fails_over", setup::cloud_high, "worker", "provider-quota", false, "failover", "claude", "logical"},
    branch_row{"context_fails_over", setup::cloud_high, "worker", "context-limit", false, "failover", "claude", "logical"},
    branch_row{"model_fails_over", setup::cloud_high, "worker", "model-unavailable", false, "failover", "claude", "logical"},
    branch_row{"stream_fails_over", setup::cloud_high, "worker", "provider-stream-disconnect", false, "failover", "claude", "logical"},
    // A program that cannot be started: another candidate, else a block at once.
    branch_row{"launch_failure_fails_over", setup::cloud_high, "worker", "launch-failure", false, "failover", "claude", "logical"},
    branch_row{"launch_failure_blocks", setup::cloud_low, "worker", "launch-failure", false, "block", "", "could not start agy for target agy"},
    branch_row{"review_launch_failure_blocks", setup::review, "review", "launch-failure", false, "block", "", "--retry-blocked"},
    branch_row{"connection_is_not_failover", setup::cloud_high, "worker", "provider-connection", false, "promote", "claude", "logical"},
    branch_row{"generic_with_candidates", setup::cloud_high, "worker", "generic-error", false, "retry_same", "agy", "generic"},
    // A lost worker node: the same target again, neither failover nor promotion.
    branch_row{"node_lost_with_candidates", setup::cloud_high, "worker", "node-lost", false, "retry_same", "agy", "node-lost"},
    branch_row{"node_lost_single_candidate", setup::cloud_low, "worker", "node-lost", false, "retry_same", "agy", "node-lost"},
    branch_row{"review_node_lost", setup::review, "review", "node-lost", false, "retry_same", "reviewer", "node-lost"},
    branch_row{"no_failover_candidate", setup::after_failover, "worker", "provider-quota", false, "block", "", "no_failover_candidate"},
    // Local pi.
    branch_row{"pi_context_native", setup::local, "worker", "context-limit", true, "resume_native", "pi-a", ""},
    branch_row{"pi_stall_native", setup::local, "worker", "session-stall", true, "resume_native", "pi-a", ""},
    branch_row{"pi_generic", setup::local, "worker", "generic-error", true, "retry_same", "pi-a", "pi-recovery"},
    branch_row{"pi_connection", setup::local, "worker", "provider-connection", true, "retry_same", "pi-a", "pi-recovery"},
    branch_row{"pi_stream_fails_over_natively", setup::local, "worker", "provider-stream-disconnect", true, "failover", "pi-b", "native"},
    branch_row{"pi_without_session_cannot_fail_over", setup::local, "worker", "context-limit", false, "block", "", "native session"},
    branch_row{"selfcheck_pi", setup::selfcheck_pinned, "selfcheck", "context-limit", true, "retry_same", "pi-b", "pi-recovery"},
    // End of the chain: retry the same target.
    branch_row{"chain_end_quota", setup::chain_end, "worker", "provider-quota", false, "retry_same", "codex", "no-promotion"},
    branch_row{"chain_end_context", setup::chain_end, "worker", "context-limit", false, "retry_same", "codex", "no-promotion"},
    branch_row{"codex_session_stall", setup::chain_end, "worker", "session-stall", false, "retry_same", "codex", "session-stall"},
    // Review: fixed target.
    branch_row{"review_quota", setup::review, "review", "provider-quota", false, "retry_same", "reviewer", "terminal"},
    branch_row{"review_context", setup::review, "review", "context-limit", false, "retry_same", "reviewer", "terminal"},
    branch_row{"review_generic", setup::review, "review", "generic-error", false, "retry_same", "reviewer", "generic"},
    branch_row{"review_control", setup::review, "review", "review-control-violation", false, "retry_same", "reviewer", "review-control"},
    // Work-log failures block at once, without spending budget.
    branch_row{"work_log", setup::cloud_low, "worker", "work-log-runtime-write", false, "block", "", "work log failure"},
    branch_row{"work_log_setup", setup::review, "review", "work-log-setup", false, "block", "", "work log failure"}),
  [](const auto& info) { return std::string(info.param.name); });

TEST(supervisor, review_control_violation_retries_from_scratch) {
  world w;
  w.prepare(setup::review);
  auto out = w.fail(w.request("review", "review-control-violation"));
  auto& r = std::get<retry_same>(out.step);
  EXPECT_EQ(r.origin, prompt_origin::from_scratch);
  EXPECT_EQ(r.prompt, render_prompt(w.pol.prompts.review, {{"review", "/ws/agent-task/g/01_x/CODE_REVIEW-cloud-G03.md"}}));
  auto generic = w.fail(w.request("review", "generic-error"));
  EXPECT_EQ(std::get<retry_same>(generic.step).origin, prompt_origin::continuation);
}

TEST(supervisor, a_path_with_spaces_or_quotes_is_quoted_in_a_prompt) {
  EXPECT_EQ(prompt_path("/ws/agent-task/g/01_x/PLAN.md"), "/ws/agent-task/g/01_x/PLAN.md");
  EXPECT_EQ(prompt_path(""), "");
  EXPECT_EQ(prompt_path("/home/me/my project/PLAN.md"), "\"/home/me/my project/PLAN.md\"");
  EXPECT_EQ(prompt_path("/a\"b\\c/PLAN.md"), "\"/a\\\"b\\\\c/PLAN.md\"");
  EXPECT_EQ(prompt_path("/tab\there"), "\"/tab\there\"");
  EXPECT_EQ(render_prompt("Read {plan} and {unknown}.", {{"plan", "/my ws/PLAN.md"}}),
            "Read \"/my ws/PLAN.md\" and {unknown}.");
}

TEST(supervisor, a_work_log_block_says_the_cause_and_that_it_lifts_by_itself) {
  auto why = work_log_block_reason("work-log-write-failed",
                                   "append to /ws/agent-task/g/WORK_LOG.md: No space left on device");
  EXPECT_NE(why.find("No space left on device"), std::string::npos) << why;
  EXPECT_NE(why.find("the next run lifts this block by itself"), std::string::npos) << why;
  task_state t;
  t.blocked = blocked_info{why, R"({"failure_class": "work-log-write-failed"})"};
  EXPECT_TRUE(blocked_by_work_log(t));
  t.blocked = blocked_info{"budget", R"({"failure_class": "provider-quota"})"};
  EXPECT_FALSE(blocked_by_work_log(t));
  t.blocked = blocked_info{"odd", "not json"};
  EXPECT_FALSE(blocked_by_work_log(t));
}

TEST(supervisor, budget_blocks_at_exactly_the_limit_with_evidence) {
  world w;
  w.prepare(setup::cloud_low);
  for (int i = 1; i <= 9; ++i) {
    auto out = w.fail(w.request("worker", "generic-error"));
    ASSERT_EQ(step_name(out.step), "retry_same") << "failure " << i;
    EXPECT_EQ(w.task().failure_budgets.at("worker"), i);
  }
  auto out = w.fail(w.request("worker", "generic-error"));
  ASSERT_EQ(step_name(out.step), "block");
  auto& b = std::get<block_step>(out.step);
  EXPECT_NE(b.reason.find("worker recovery failure limit exhausted: 10/10"), std::string::npos);
  EXPECT_NE(b.reason.find("locator=/state/runs/a01/locator.json"), std::string::npos);
  auto ev = parse_json(b.evidence, "evidence");
  ASSERT_TRUE(ev.is_ok());
  EXPECT_EQ((*ev)["role"], "worker");
  EXPECT_EQ((*ev)["failure_class"], "generic-error");
  EXPECT_EQ((*ev)["locator"], "/state/runs/a01/locator.json");
  EXPECT_EQ((*ev)["selected_target"], "agy");
  EXPECT_EQ((*ev)["work_unit_id"], work_unit);
  EXPECT_EQ((*ev)["budget"], "10/10");
  EXPECT_EQ(w.task().failure_budgets.at("worker"), 10);
  EXPECT_EQ(w.task().blocked->evidence, b.evidence);
}

TEST(supervisor, the_two_target_policy_blocks_after_its_budget_at_the_chain_end) {
  world w;
  auto loaded = parse_policy_text(R"({"budgets": {"recovery_failures": 3},
    "targets": [{"id": "sim-a", "adapter": "command", "model": "a", "execution_class": "cloud_model", "argv": ["x"]},
                {"id": "sim-b", "adapter": "command", "model": "b", "execution_class": "cloud_model", "argv": ["x"]}],
    "rules": [{"id": "workers", "stage": "worker", "lanes": ["cloud"], "grades": [1, 10], "candidates": ["sim-a"]}],
    "review_target": "sim-a", "promotion": {"sim-a": "sim-b"}})", "p.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  w.pol = loaded->value;
  w.prepare(setup::cloud_low);
  auto first = w.fail(w.request("worker", "provider-quota"));
  ASSERT_EQ(step_name(first.step), "promote");
  EXPECT_EQ(target_of(first.step), "sim-b");
  auto second = w.fail(w.request("worker", "provider-quota"));
  ASSERT_EQ(step_name(second.step), "retry_same");
  EXPECT_EQ(target_of(second.step), "sim-b");
  auto third = w.fail(w.request("worker", "provider-quota"));
  ASSERT_EQ(step_name(third.step), "block");
}

TEST(supervisor, success_resets_budget_counters_and_intervention) {
  world w;
  w.prepare(setup::cloud_low);
  auto req = w.request("worker", "generic-error");
  req.failure.evidence = "File already exists: /ws/a.py";
  w.fail(req);
  w.fail(w.request("worker", "generic-error"));
  ASSERT_EQ(w.task().failure_budgets.at("worker"), 2);
  ASSERT_TRUE(w.task().intervention.has_value());
  w.commit(on_attempt_succeeded(task_name, w.task(), "worker"));
  EXPECT_EQ(w.task().failure_budgets.count("worker") ? w.task().failure_budgets.at("worker") : 0, 0);
  EXPECT_EQ(w.task().counters.at("retry:worker:generic"), 0);
  EXPECT_FALSE(w.task().intervention.has_value());
  // The next failure starts from the first backoff step again.
  auto again = w.fail(w.request("worker", "generic-error"));
  EXPECT_EQ(std::get<retry_same>(again.step).delay, 2000);
}

TEST(backoff, reproduces_min_30_two_to_the_min_n_5) {
  policy_backoff b;
  const millis expected[] = {2000, 4000, 8000, 16000, 30000, 30000, 30000};
  for (int n = 0; n < 7; ++n) {
    // The n-th retry (1-based) of the original waits min(30, 2^min(n, 5)) s.
    EXPECT_EQ(backoff_delay(b, n), expected[n]) << n;
    int seed_n = n + 1;
    EXPECT_EQ(backoff_delay(b, n), std::min(30, 1 << std::min(seed_n, 5)) * 1000);
  }
  policy_backoff fast{0.01, 2, 0.1};
  EXPECT_EQ(backoff_delay(fast, 0), 10);
  EXPECT_EQ(backoff_delay(fast, 3), 80);
  EXPECT_EQ(backoff_delay(fast, 4), 100);
  // The policy bounds these below only: 1e300 s was rounded by llround out
  // of range, a negative delay here. The longest wait is 100 years.
  policy_backoff huge{1e300, 2, 1e300};
  EXPECT_EQ(backoff_delay(huge, 3), longest_wait_ms);
}

TEST(supervisor, each_kind_of_retry_backs_off_on_its_own) {
  world w;
  w.prepare(setup::cloud_low);
  EXPECT_EQ(std::get<retry_same>(w.fail(w.request("worker", "generic-error")).step).delay, 2000);
  EXPECT_EQ(std::get<retry_same>(w.fail(w.request("worker", "generic-error")).step).delay, 4000);
  EXPECT_EQ(std::get<retry_same>(w.fail(w.request("worker", "process-terminated")).step).delay, 2000);
  EXPECT_EQ(std::get<retry_same>(w.fail(w.request("worker", "generic-error")).step).delay, 8000);
}

// reset_wait_max_s has no upper bound in the policy; 1e300 s was cast to
// milliseconds as a double, undefined behaviour (UBSan: float-cast-overflow).
TEST(supervisor, a_reset_wait_cap_beyond_any_time_caps_nothing) {
  world w;
  w.prepare(setup::chain_end);
  w.pol.timeouts.reset_wait_max_s = 1e300;
  auto req = w.request("worker", "provider-quota");
  req.failure.reset_at = w.now + 5 * 3600 * 1000;
  auto out = w.fail(req);
  ASSERT_EQ(step_name(out.step), "wait_until") << dump_json(to_json(out.step));
  EXPECT_EQ(std::get<wait_until>(out.step).until, w.now + 5 * 3600 * 1000);
}

TEST(supervisor, quota_reset_time_waits_without_spending_budget) {
  world w;
  w.prepare(setup::chain_end); // codex: no failover, no promotion left
  auto req = w.request("worker", "provider-quota");
  req.failure.evidence = "429 Too Many Requests; retry-after: 120";
  req.failure.reset_at = w.now + 120000; // as the classification found it
  auto out = w.fail(req);
  ASSERT_EQ(step_name(out.step), "wait_until") << dump_json(to_json(out.step));
  auto& wait = std::get<wait_until>(out.step);
  EXPECT_EQ(wait.until, w.now + 120000);
  EXPECT_EQ(wait.target, "codex");
  EXPECT_NE(wait.reason.find("until 2026-11-30T03:02:00.000Z"), std::string::npos) << wait.reason;
  EXPECT_FALSE(has_change(out.changes, "record_failure"));
  EXPECT_EQ(w.task().failure_budgets.count("worker"), 0u);
  EXPECT_EQ(w.task().counters.at("reset_waits:worker"), 1);
  // The end of the wait is durable, so a restart keeps waiting.
  EXPECT_EQ(pending_reset_wait(w.task(), "worker", w.now), w.now + 120000);
  EXPECT_EQ(pending_reset_wait(w.task(), "worker", w.now + 120000), 0);
  EXPECT_EQ(pending_reset_wait(w.task(), "review", w.now), 0);
  // The target cools down for every task until the reset.
  ASSERT_TRUE(w.cooldowns.active("codex", w.now).has_value());
  EXPECT_EQ(w.cooldowns.active("codex", w.now)->until, w.now + 120000);
  EXPECT_EQ(w.task().quota->status_by_target.at("codex"), quota_exhausted_for_work_unit);
}

TEST(supervisor, reset_waits_are_capped_by_the_policy_and_limited_in_number) {
  world w;
  w.prepare(setup::chain_end);
  auto req = w.request("worker", "provider-quota");
  req.failure.diagnostics = {"usage limit reached", "try again in 5 hours"};
  req.failure.reset_at = w.now + 5 * 3600 * 1000;
  auto out = w.fail(req);
  auto& wait = std::get<wait_until>(out.step);
  EXPECT_EQ(wait.until, w.now + 600000); // reset_wait_max_s = 600
  EXPECT_NE(wait.reason.find("capped"), std::string::npos);
  w.commit({set_counter{task_name, "reset_waits:worker", w.pol.budgets.reset_waits}});
  auto spent = w.fail(req);
  EXPECT_EQ(step_name(spent.step), "retry_same");
  EXPECT_TRUE(has_change(spent.changes, "record_failure"));
}

TEST(supervisor, the_reset_time_is_the_classifications_value_never_the_text_again) {
  world w;
  w.prepare(setup::chain_end);
  // claude's subscriber limit: the reset came typed (rate_limit_event
  // resetsAt); its text is for a person.
  auto req = w.request("worker", "provider-quota");
  req.failure.evidence = "You've hit your 5-hour limit · resets 6:08pm (UTC)";
  req.failure.reset_at = w.now + 5 * 60 * 1000;
  auto out = w.fail(req);
  ASSERT_EQ(step_name(out.step), "wait_until") << dump_json(to_json(out.step));
  EXPECT_EQ(std::get<wait_until>(out.step).until, w.now + 5 * 60 * 1000);
  EXPECT_FALSE(has_change(out.changes, "record_failure"));
  // Text that names a reset without a value is not read again here.
  world v;
  v.prepare(setup::chain_end);
  auto text_only = v.request("worker", "provider-quota");
  text_only.failure.evidence = "429 Too Many Requests; retry-after: 120";
  EXPECT_EQ(step_name(v.fail(text_only).step), "retry_same");
}

TEST(supervisor, a_cli_that_refused_its_command_line_blocks_at_once_with_the_fix) {
  world w;
  w.prepare(setup::cloud_high);
  auto req = w.request("worker", "launch-refused");
  req.failure.evidence =
    "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";
  auto out = w.fail(req);
  ASSERT_EQ(step_name(out.step), "block");
  auto& b = std::get<block_step>(out.step);
  EXPECT_NE(b.reason.find("IS_SANDBOX"), std::string::npos) << b.reason;
  EXPECT_NE(b.reason.find("refused to start"), std::string::npos) << b.reason;
  EXPECT_FALSE(has_change(out.changes, "record_failure"));
}

TEST(supervisor, a_reset_time_does_not_hold_back_a_possible_failover) {
  world w;
  w.prepare(setup::cloud_high);
  auto req = w.request("worker", "provider-quota");
  req.failure.evidence = "rate limit; retry-after: 60";
  req.failure.reset_at = w.now + 60000;
  auto out = w.fail(req);
  EXPECT_EQ(step_name(out.step), "failover");
  EXPECT_EQ(target_of(out.step), "claude");
}

TEST(supervisor, a_failover_waits_for_a_candidate_that_only_cools_down) {
  world w;
  w.prepare(setup::cloud_high); // agy, then claude
  // Another task's quota failure left claude cooling down for 600 s.
  w.cooldowns.mark_exhausted("claude", w.now, std::nullopt, 600, "provider-quota on g/02_y");
  auto out = w.fail(w.request("worker", "model-unavailable"));
  ASSERT_EQ(step_name(out.step), "failover") << to_json(out.step).dump();
  const auto& f = std::get<failover_step>(out.step);
  EXPECT_EQ(f.target, "claude");
  EXPECT_EQ(f.delay, 600 * 1000);
  EXPECT_EQ(f.decision.evaluated_at, w.now + 600 * 1000);
  EXPECT_EQ(to_json(out.step).at("delay_ms"), 600 * 1000);

  // A candidate that is out of quota by the probe is not waited for.
  world v;
  v.prepare(setup::cloud_high);
  v.cooldowns.mark_exhausted("claude", v.now, std::nullopt, 600, "provider-quota on g/02_y");
  auto probe = quota_snapshot{v.now, {{"claude", "exhausted"}}};
  v.commit({set_quota_snapshot{task_name, probe}});
  auto blocked = v.fail(v.request("worker", "model-unavailable"));
  EXPECT_EQ(step_name(blocked.step), "block") << to_json(blocked.step).dump();
}

// The cool-down a quota failure starts, and a stage's wait for a target
// that only cools down, are in the state: `status` reads them, and a
// restarted dispatcher (whose cool-downs were in memory) keeps the wait.
TEST(supervisor, cool_downs_and_cool_down_waits_are_recorded_in_the_state) {
  world w;
  w.prepare(setup::cloud_high); // agy, then claude
  auto out = w.fail(w.request("worker", "provider-quota"));
  ASSERT_EQ(step_name(out.step), "failover");
  auto cooling = recorded_cooldowns(w.model, w.now);
  ASSERT_EQ(cooling.size(), 1u);
  EXPECT_EQ(cooling.at("agy").until, w.now + 900 * 1000) << "the policy's quota_cooldown_s";
  EXPECT_EQ(cooling.at("agy").task, task_name);
  EXPECT_TRUE(recorded_cooldowns(w.model, w.now + 900 * 1000).empty()) << "ended";
  EXPECT_FALSE(pending_cooldown_wait(w.task(), "worker", w.now)) << "a failover now: no wait";

  // A failover whose only candidate cools down (another task's quota
  // failure) waits for it, and the wait is recorded with its end.
  world v;
  v.prepare(setup::cloud_high);
  v.cooldowns.mark_exhausted("claude", v.now, std::nullopt, 600, "provider-quota on g/02_y");
  auto waiting = v.fail(v.request("worker", "model-unavailable"));
  ASSERT_EQ(step_name(waiting.step), "failover") << to_json(waiting.step).dump();
  ASSERT_EQ(std::get<failover_step>(waiting.step).delay, 600 * 1000);
  auto wait = pending_cooldown_wait(v.task(), "worker", v.now);
  ASSERT_TRUE(wait.has_value());
  EXPECT_EQ(wait->target, "claude");
  EXPECT_EQ(wait->until, v.now + 600 * 1000);
  EXPECT_FALSE(pending_cooldown_wait(v.task(), "review", v.now)) << "another stage";
  EXPECT_FALSE(pending_cooldown_wait(v.task(), "worker", wait->until)) << "ended";

  // The stage's success ends the recorded wait.
  v.commit(on_attempt_succeeded(task_name, v.task(), "worker"));
  EXPECT_FALSE(pending_cooldown_wait(v.task(), "worker", v.now));
}

TEST(supervisor, the_latest_recorded_cool_down_of_a_target_wins) {
  state_model m;
  m.tasks["a"].counters["cooldown_until:agy"] = 5000;
  m.tasks["b"].counters["cooldown_until:agy"] = 9000;
  m.tasks["b"].counters["cooldown_until:claude"] = 1000;
  m.tasks["b"].counters["cooldown_wait:worker:agy"] = 7000; // a wait, not a cool-down
  auto c = recorded_cooldowns(m, 2000);
  ASSERT_EQ(c.size(), 1u) << "claude's ended";
  EXPECT_EQ(c.at("agy").until, 9000);
  EXPECT_EQ(c.at("agy").task, "b");
}

TEST(supervisor, quota_cooldown_is_shared_with_other_tasks_selection) {
  world w;
  w.prepare(setup::cloud_high);
  auto out = w.fail(w.request("worker", "provider-quota"));
  ASSERT_EQ(step_name(out.step), "failover");
  // Another task routed by the same rule now skips agy with the reason.
  selection_request other;
  other.work_unit_id = "g/02_y::plan-1::tag-b";
  other.stage = "worker";
  other.lane = "cloud";
  other.grade = 7;
  other.now = w.now + 1000;
  other.cooldowns = &out.cooldowns;
  auto d = select_target(w.pol, w.zone, other);
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->selected_target, "claude");
  EXPECT_FALSE(d->candidates[0].eligible);
  EXPECT_EQ(d->candidates[0].reasons[0].rfind("cooling_down_until:", 0), 0u);
  // After the policy cool-down it is eligible again.
  other.now = w.now + 901 * 1000;
  EXPECT_EQ(select_target(w.pol, w.zone, other)->selected_target, "agy");
}

TEST(supervisor, tactical_match_puts_the_intervention_into_the_next_prompt_and_persists_it) {
  world w;
  w.prepare(setup::cloud_low);
  w.commit({record_write_set{task_name, "g_01_x__p1__worker__a01", snapshot_phase::before,
                             {file_snapshot{"/ws/src/a.py", false, 0, 0, ""}}},
            record_write_set{task_name, "g_01_x__p1__worker__a01", snapshot_phase::after,
                             {file_snapshot{"/ws/src/a.py", true, 3, 5, "h"}}}});
  auto req = w.request("worker", "generic-error");
  req.failure.evidence = "Error: File already exists: src/a.py";
  req.write_set_now = {file_snapshot{"/ws/src/a.py", true, 3, 5, "h"},
                       file_snapshot{"/ws/src/b.py", false, 0, 0, ""}};
  auto out = w.fail(req);
  ASSERT_EQ(out.events.size(), 2u);
  EXPECT_EQ(out.events[0].message, "attempt failed, analysing");
  EXPECT_EQ(out.events[1].message, "matched: [file-already-exists]");
  EXPECT_TRUE(has_change(out.changes, "set_intervention"));
  EXPECT_TRUE(has_change(out.changes, "record_failure")); // still counts
  auto& r = std::get<retry_same>(out.step);
  EXPECT_NE(r.prompt.find("edit them in place, do not create them again"), std::string::npos) << r.prompt;
  EXPECT_NE(r.prompt.find("- /ws/src/a.py (created by g_01_x__p1__worker__a01)"), std::string::npos)
    << r.prompt;
  EXPECT_EQ(r.prompt.find("b.py"), std::string::npos);

  // A restart reloads the task state; the first prompt still carries it.
  auto text = task_to_json_text(w.task());
  auto reloaded = task_from_json_text(text, "state");
  ASSERT_TRUE(reloaded.is_ok()) << reloaded.error().to_string();
  auto prompt = stage_prompt(w.pol, "worker", req.paths, *reloaded);
  EXPECT_NE(prompt.find("- /ws/src/a.py (created by g_01_x__p1__worker__a01)"), std::string::npos)
    << prompt;

  // An unrelated failure reports that nothing matched and keeps the context.
  auto plain = w.fail(w.request("worker", "generic-error"));
  EXPECT_EQ(plain.events.back().message, "no tactical pattern matched");
  EXPECT_FALSE(has_change(plain.changes, "set_intervention"));
  EXPECT_NE(std::get<retry_same>(plain.step).prompt.find("/ws/src/a.py"), std::string::npos);
}

TEST(supervisor, a_missing_decision_blocks_with_the_reason) {
  world w;
  auto out = w.fail(w.request("worker", "generic-error"));
  ASSERT_EQ(step_name(out.step), "block");
  EXPECT_NE(std::get<block_step>(out.step).reason.find("no decision"), std::string::npos);
}

TEST(retry_blocked, records_a_stable_handoff_for_a_qualified_worker_block) {
  world w;
  w.prepare(setup::after_failover); // agy then claude
  auto blocked = w.fail(w.request("worker", "provider-quota"));
  ASSERT_EQ(step_name(blocked.step), "block");
  const millis cleared_at = w.now + 5000;
  auto clear = clear_for_retry(task_name, w.task(), cleared_at);
  ASSERT_TRUE(clear.handoff.has_value());
  EXPECT_EQ(clear.handoff->failed_target, "claude");
  EXPECT_EQ(clear.handoff->locator, "/state/runs/a01/locator.json");
  EXPECT_EQ(clear.handoff->id, clear_for_retry(task_name, w.task(), cleared_at).handoff->id);
  EXPECT_EQ(clear.handoff->id.rfind("handoff-", 0), 0u);
  w.commit(clear.changes);
  EXPECT_FALSE(w.task().blocked.has_value());
  EXPECT_EQ(w.task().failure_budgets.count("worker") ? w.task().failure_budgets.at("worker") : 0, 0);
  ASSERT_TRUE(w.task().handoff.has_value());

  // The next attempt fails over with a fresh snapshot, away from claude.
  quota_snapshot fresh;
  fresh.taken_at = cleared_at;
  fresh.status_by_target = {{"agy", "available"}, {"claude", "exhausted"}};
  auto d = select_for_handoff(w.pol, w.zone, w.task(), *w.task().handoff, fresh, {}, cleared_at);
  ASSERT_TRUE(d.is_ok()) << d.error().to_string();
  EXPECT_EQ(d->selected_target, "agy");
  EXPECT_EQ(d->transition, route_transition::failover);
  EXPECT_EQ(d->previous_target, "claude");

  // Consumed in the same change that records the new attempt's locator.
  record_attempt_started started{task_name, "worker", 1, "worker", 2, "/state/runs/a02/locator.json",
                                 clear.handoff->id};
  ASSERT_TRUE(apply_change(w.model, started).is_ok());
  EXPECT_FALSE(w.task().handoff.has_value());
  EXPECT_FALSE(apply_change(w.model, started).is_ok()); // a replayed start cannot consume it twice
}

TEST(retry_blocked, other_blocks_are_cleared_without_a_handoff) {
  world w;
  w.pol.budgets.recovery_failures = 1;
  w.prepare(setup::cloud_low);
  auto blocked = w.fail(w.request("worker", "generic-error"));
  ASSERT_EQ(step_name(blocked.step), "block");
  auto clear = clear_for_retry(task_name, w.task(), w.now);
  EXPECT_FALSE(clear.handoff.has_value());
  w.commit(clear.changes);
  EXPECT_FALSE(w.task().blocked.has_value());
  EXPECT_TRUE(clear_for_retry(task_name, w.task(), w.now).changes.empty());
}

TEST(supervisor_json, request_and_steps_round_trip) {
  world w;
  auto req = w.request("worker", "provider-quota");
  req.write_set_now = {file_snapshot{"/ws/a", true, 1, 2, "h"}};
  req.failure.diagnostics = {"d1", "d2"};
  auto back = supervisor_request_from_json(to_json(req));
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  EXPECT_EQ(to_json(*back), to_json(req));
  EXPECT_FALSE(supervisor_request_from_json(json{{"failure", {{"task", 3}}}}).is_ok());
  json step = to_json(next_step{wait_until{w.now, "r", "codex", "p"}});
  EXPECT_EQ(step["step"], "wait_until");
  EXPECT_EQ(step["until"], "2026-11-30T03:00:00.000Z");
}

TEST(supervisor, an_invalid_persisted_decision_blocks_the_task_with_the_reason) {
  world w;
  auto d = w.decide("worker", "cloud", 3);
  policy changed = w.pol;
  changed.rules[1].candidates = {"claude"};
  auto st = revalidate_decision(d, changed, w.zone, work_unit);
  ASSERT_FALSE(st.is_ok());
  w.commit({block_invalid_decision(task_name, d, st)});
  ASSERT_TRUE(w.task().blocked.has_value());
  EXPECT_EQ(w.task().blocked->reason, st.message());
  auto ev = parse_json(w.task().blocked->evidence, "evidence");
  ASSERT_TRUE(ev.is_ok());
  EXPECT_EQ((*ev)["decision"]["selected_target"], "agy");
  // Nothing is left to retry from: a handoff needs a failover-qualified block.
  EXPECT_FALSE(clear_for_retry(task_name, w.task(), w.now).handoff.has_value());
}

TEST(context_package, verification_requires_every_named_file) {
  context_package p;
  p.workspace = "/nonexistent-ws";
  p.plan = "/nonexistent-ws/PLAN.md";
  auto st = verify_context_package(p);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("plan"), std::string::npos);

  test::temp_dir dir;
  p.workspace = dir.path().string();
  p.plan = dir.write("PLAN.md", "plan").string();
  p.locator = dir.write("runs/a/locator.json", "{}").string();
  p.raw_log = dir.write("runs/a/stream.log", "").string();
  p.normalized_output = dir.write("runs/a/normalized-output.log", "").string();
  EXPECT_TRUE(verify_context_package(p).is_ok());
  p.kind = package_kind::native;
  st = verify_context_package(p);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("native_session_path is missing"), std::string::npos);
  p.native_session_path = dir.write("runs/a/pi-sessions/s.jsonl", "").string();
  EXPECT_TRUE(verify_context_package(p).is_ok());
}

TEST(next_step_json, every_step_reads_back_as_written) {
  failover_step moved;
  moved.target = "sim-b";
  moved.package.kind = package_kind::native;
  moved.package.plan = "/ws/PLAN.md";
  moved.package.native_session_path = "/runs/a01/s.jsonl";
  moved.prompt = "continue";
  moved.decision.selected_target = "sim-b";
  moved.delay = 250;
  promote_step up;
  up.target = "sim-c";
  up.prompt = "take over";
  std::vector<next_step> steps{retry_same{"sim-a", "again", 2000, "generic", prompt_origin::from_scratch},
                               moved, up, resume_native{"pi", "/s.jsonl", "resume", 7},
                               wait_until{1796220072123, "quota", "sim-a", "go on"},
                               block_step{"limit reached", R"({"role":"worker"})"}};
  for (const auto& step : steps) {
    auto back = next_step_from_json(to_json(step));
    ASSERT_TRUE(back.is_ok()) << step_name(step) << ": " << back.error().message();
    EXPECT_EQ(back->index(), step.index());
    EXPECT_EQ(dump_json(to_json(*back)), dump_json(to_json(step)));
  }
}

TEST(next_step_json, a_bad_step_names_the_member) {
  auto unknown = next_step_from_json(json{{"step", "jump"}});
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.error().message().find("jump"), std::string::npos) << unknown.error().message();
  auto j = to_json(next_step{retry_same{"sim-a", "again", 0, "generic", prompt_origin::continuation}});
  j.erase("delay_ms");
  auto missing = next_step_from_json(j);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.error().message().find("delay_ms"), std::string::npos)
    << missing.error().message();
  auto when = to_json(next_step{wait_until{1, "r", "t", "p"}});
  when["until"] = "yesterday";
  auto bad_time = next_step_from_json(when);
  ASSERT_FALSE(bad_time.is_ok());
  EXPECT_NE(bad_time.error().message().find("until"), std::string::npos);
  EXPECT_FALSE(next_step_from_json(json::array()).is_ok());
}

} // namespace
} // namespace ad::runtime
