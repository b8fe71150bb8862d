// The named demo scenarios. To add one: write a `void build_x(demo_writer&)`
// and append {"x", "what it shows", build_x} to the list below.
#include "tools/demo-gen/demo_workspace.hpp"

namespace ad::demo {

namespace {

constexpr std::string_view milestone_stop = R"(# USER_REVIEW

## Status

USER_REVIEW

## Reason

- Type: milestone-lock
- Target: agent-roadmap/2026/milestones/m3-auth-hardening.md

## Evidence

- Evidence: the password policy changes the login contract that milestone m3 locks; the roadmap owner must approve the new minimum length before work continues.

## Required Action

- [ ] Approve or reject the 14-character minimum in m3-auth-hardening.md
- [ ] Confirm whether existing passwords are grandfathered

## Resume Condition

- The milestone file records the approved policy and this file is removed.
)";

constexpr std::string_view pending_review = R"(## Code Review Result

(pending: the official review fills this in)
)";

// Whether the two tasks that wait for a person (the USER_REVIEW stop and the
// invalid PLAN) are still held, or resolved as a person would resolve them.
enum class held_tasks : uint8_t { kept, resolved };

void build_auth(demo_writer& w, held_tasks held) {
  w.source_file("src/auth/user.hpp", "#pragma once\n// User record (done in auth/01).\n");
  w.source_file("src/auth/user.cpp", "// User record implementation.\n");
  w.archived("auth/01_user_model", "2026", "10",
             "complete: auth/01_user_model reviewed PASS and archived\n");

  w.active_task({.task = "auth/02+01_session_store",
                 .lane = "local",
                 .grade = 5,
                 .goal = "Store login sessions in memory with expiry, keyed by an opaque token.",
                 .files = {"`src/auth/session_store.hpp`", "`src/auth/session_store.cpp`",
                           "`tests/auth/session_store_test.cpp`"},
                 .steps = {"Define session_store with create/find/expire",
                           "Expire sessions after the configured idle time",
                           "Unit tests for expiry and lookup"}});
  w.active_task({.task = "auth/03+02_login_api",
                 .lane = "cloud",
                 .grade = 3,
                 .goal = "Expose POST /login that checks the password and opens a session.",
                 .files = {"`src/auth/login_handler.cpp`", "`src/api/routes.cpp:40`"},
                 .steps = {"Add the login handler", "Register the route",
                           "Reject wrong passwords with 401"}});
  w.active_task({.task = "auth/04+02,03_logout_api",
                 .lane = "local",
                 .grade = 4,
                 .goal = "Expose POST /logout that ends the caller's session.",
                 .files = {"`src/auth/logout_handler.cpp`", "`tests/auth/logout_test.cpp`"},
                 .steps = {"Add the logout handler", "Test double logout"}});
  if (held == held_tasks::kept) {
    w.user_review("auth/05_password_policy", milestone_stop);
    return;
  }
  // The milestone owner approved the policy: the stop became a PLAN.
  w.active_task({.task = "auth/05_password_policy",
                 .lane = "cloud",
                 .grade = 4,
                 .goal = "Require passwords of at least 14 characters, as approved in "
                         "milestone m3; existing passwords are grandfathered.",
                 .files = {"`src/auth/password_policy.cpp`",
                           "`tests/auth/password_policy_test.cpp`"},
                 .steps = {"Check the minimum length at sign-up and password change",
                           "Keep existing passwords valid until their next change"}});
}

void build_billing(demo_writer& w, held_tasks held) {
  w.source_file("src/billing/invoice.hpp", "#pragma once\n// Invoice record.\n");

  demo_plan invoice{.task = "billing/01_invoice_schema",
                    .lane = "cloud",
                    .grade = 3,
                    .goal = "Add the invoice table and its migration.",
                    .files = {"`src/billing/invoice.hpp`", "`db/migrations/0007_invoice.sql`"},
                    .steps = {"Write the migration", "Map the invoice record"}};
  w.plan_file(invoice);
  // The worker finished and a verdict is recorded: the task is in review.
  w.review_file(invoice, "## Code Review Result\n\n- **Overall Verdict**: WARN\n\n"
                         "Rounding of tax amounts needs a follow-up.\n");

  w.active_task({.task = "billing/02+01_tax_rules",
                 .lane = "local",
                 .grade = 6,
                 .goal = "Compute VAT per line item for the invoice.",
                 .files = {"`src/billing/tax_rules.cpp`", "`tests/billing/tax_rules_test.cpp`"},
                 .steps = {"Implement the rate table", "Test rounding"}});

  // An invalid PLAN: a placeholder and a glob in the Modified Files Summary
  // (resolved: the author named the real files).
  w.active_task({.task = "billing/03_currency_format",
                 .lane = "local",
                 .grade = 2,
                 .goal = "Format amounts per locale.",
                 .files = held == held_tasks::kept
                            ? std::vector<std::string>{"`src/billing/<formatter>.cpp`",
                                                       "`src/billing/*.hpp`"}
                            : std::vector<std::string>{"`src/billing/currency_format.cpp`",
                                                       "`src/billing/currency_format.hpp`"},
                 .steps = {"Pick the formatter", "Add tests"}});

  // A recovery folder: no active PLAN/REVIEW, only the logs of the last
  // generation with a FAIL verdict (legacy Korean schema) and its plan log.
  demo_plan refund{.task = "billing/04_refund_flow",
                   .lane = "local",
                   .grade = 4,
                   .plan_number = 2,
                   .tag = "retry",
                   .goal = "Refund a paid invoice, fully or in part.",
                   .files = {"`src/billing/refund.cpp`", "`tests/billing/refund_test.cpp`"},
                   .steps = {"Implement partial refunds", "Test refund larger than paid"}};
  w.recovery_logs(refund, 1,
                  "## 코드리뷰 결과\n\n### 종합 판정\n\n**FAIL**\n\n"
                  "A partial refund can exceed the paid amount.\n");
}

void build_docs(demo_writer& w) {
  w.source_file("CHANGELOG.md", "# Changelog\n");
  w.active_task({.task = "docs/01_api_reference",
                 .lane = "local",
                 .grade = 2,
                 .goal = "Document every public endpoint.",
                 .files = {"`docs/api.md`", "`CHANGELOG.md`"},
                 .steps = {"List the endpoints", "Add request/response examples"}});
  // Claims CHANGELOG.md too: it waits for docs/01's claim.
  w.active_task({.task = "docs/02_changelog",
                 .lane = "local",
                 .grade = 1,
                 .goal = "Summarise the release in the changelog.",
                 .files = {"`CHANGELOG.md`"},
                 .steps = {"Write the 0.2 entry"}});
  w.active_task({.task = "docs/03+01_tutorial",
                 .lane = "cloud",
                 .grade = 2,
                 .goal = "A first-steps tutorial built on the API reference.",
                 .files = {"`docs/tutorial.md`"},
                 .steps = {"Write the tutorial", "Check every command in it"}});
  w.active_task({.task = "docs/04+01,02_release_notes",
                 .lane = "local",
                 .grade = 1,
                 .goal = "Release notes from the changelog and reference.",
                 .files = {"`docs/release-notes.md`"},
                 .steps = {"Draft the notes"}});
}

void build_infra(demo_writer& w) {
  // A group that is itself one task.
  demo_plan ci{.task = "infra",
               .lane = "cloud",
               .grade = 7,
               .goal = "Run the unit tests in CI on every push.",
               .files = {"`.ci/pipeline.yml`", "`tools/ci-test.sh`"},
               .steps = {"Add the pipeline", "Cache the build folder"}};
  w.plan_file(ci);
  w.review_file(ci, pending_review);
}

void build_demo(demo_writer& w, held_tasks held) {
  w.source_file("README.md", "# Demo service\n\nA small service the demo tasks change.\n");
  build_auth(w, held);
  build_billing(w, held);
  build_docs(w);
  build_infra(w);
}

} // namespace

void build_standard_demo(demo_writer& w) { build_demo(w, held_tasks::kept); }

void build_resolved_demo(demo_writer& w) { build_demo(w, held_tasks::resolved); }

const std::vector<demo_scenario>& demo_scenarios() {
  static const std::vector<demo_scenario> all = {
      {"standard",
       "4 groups, 13 active tasks and an archived predecessor: ready workers and reviews, "
       "dependencies, a claim conflict, a USER_REVIEW stop, an invalid PLAN, a recovery folder",
       build_standard_demo},
      {"resolved",
       "the standard demo after a person resolved its two held tasks (the milestone approved "
       "into a PLAN, the Modified Files Summary corrected): every task can run to completion",
       build_resolved_demo},
  };
  return all;
}

} // namespace ad::demo
