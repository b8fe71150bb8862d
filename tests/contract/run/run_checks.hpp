#pragma once
// GoogleTest checks shared by the per-CLI dispatcher contract tests: that a
// dispatcher run was set up and ended by itself, that the real CLI's attempt
// succeeded and the simulated review archived the task, that a failure was
// classified as expected and handed to the simulator (failover or
// promotion), and the few facts every real CLI's locator must carry.
// Test-only.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "tests/contract/contract_checks.hpp"
#include "tests/contract/run/dispatch_run.hpp"

namespace ad::contract {

// `cli --version` of each pinned CLI, as the locator records it.
inline std::string pinned_version(cli c) {
  switch (c) {
  case cli::codex: return "codex-cli 0.171.0";
  case cli::claude: return "2.1.332 (Claude Code)";
  case cli::pi: return "0.73.1";
  }
  return "";
}

inline std::string text_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The run was set up, agent-dispatch ran and ended before the timeout.
inline ::testing::AssertionResult finished(const dispatch_run& r) {
  if (!r.failure.empty()) return ::testing::AssertionFailure() << r.failure;
  if (r.outcome.timed_out) return ::testing::AssertionFailure() << r.describe();
  return ::testing::AssertionSuccess();
}

// Targets of the worker attempts, in order.
inline std::vector<std::string> worker_targets(const dispatch_run& r) {
  std::vector<std::string> out;
  for (const auto& a : r.worker_attempts()) out.push_back(text_of(a, "target"));
  return out;
}

// Supervisor steps that moved the worker to another target.
inline std::vector<nlohmann::json> moves(const dispatch_run& r) {
  std::vector<nlohmann::json> out;
  for (const auto& e : r.events) {
    auto kind = text_of(e, "event");
    if (kind == "failover" || kind == "promotion") out.push_back(e);
  }
  return out;
}

// The facts every locator of a real CLI's attempt holds.
inline void expect_real_locator(cli c, const nlohmann::json& loc) {
  ASSERT_TRUE(loc.is_object()) << "no locator copy";
  EXPECT_EQ(text_of(loc, "cli"), name_of(c));
  EXPECT_EQ(text_of(loc, "cli_version"), pinned_version(c)) << loc.dump(1);
}

// The task ended archived by the simulated review, and the run exited 0.
inline void expect_archived_by_the_review(const dispatch_run& r) {
  EXPECT_EQ(r.outcome.exit_code, 0) << r.describe();
  EXPECT_FALSE(r.archived().empty()) << r.describe();
  bool reviewed = false;
  for (const auto& a : r.of("attempt_finished"))
    reviewed = reviewed || (text_of(a, "role") == "review" && text_of(a, "target") == sim_review &&
                            text_of(a, "status") == "succeeded");
  EXPECT_TRUE(reviewed) << r.describe();
}

// The one worker attempt was the real CLI's and it succeeded: no failure
// class, no move to another target, the task archived.
inline nlohmann::json expect_real_success(cli c, const dispatch_run& r) {
  EXPECT_EQ(worker_targets(r), std::vector<std::string>{real_target(c)}) << r.describe();
  EXPECT_TRUE(moves(r).empty()) << r.describe();
  // claude writes a file through `<file>.tmp.<pid>.<hex>` beside it: no
  // write outside the claim.
  EXPECT_TRUE(r.of("claim_violation").empty()) << r.describe();
  auto workers = r.worker_attempts();
  if (workers.empty()) return {};
  EXPECT_EQ(text_of(workers[0], "status"), "succeeded") << r.describe();
  EXPECT_EQ(text_of(workers[0], "failure_class"), "") << r.describe();
  auto loc = r.locator(workers[0]);
  expect_real_locator(c, loc);
  if (loc.is_object()) {
    EXPECT_EQ(text_of(loc, "status"), "succeeded") << loc.dump(1);
    EXPECT_TRUE(loc["failure_class"].is_null()) << loc.dump(1);
    EXPECT_TRUE(loc["quota_reset_at"].is_null()) << loc.dump(1);
  }
  expect_archived_by_the_review(r);
  return loc;
}

struct failure_want {
  std::string failure_class;
  std::string failure_source;   // "" = not checked
  std::string evidence;         // a part of failure_evidence
  std::string move = "failover"; // the supervisor's step: failover or promotion
};

// The real CLI's attempt failed as `want` says, the supervisor moved the
// worker to the simulator (one failover or promotion), and the simulator's
// work was reviewed and archived. Returns the real attempt's locator.
inline nlohmann::json expect_handed_to_simulator(cli c, const dispatch_run& r,
                                                 const failure_want& want) {
  EXPECT_EQ(worker_targets(r), (std::vector<std::string>{real_target(c), sim_worker}))
      << r.describe();
  auto workers = r.worker_attempts();
  if (workers.empty()) return {};
  EXPECT_EQ(text_of(workers[0], "status"), "failed") << r.describe();
  EXPECT_EQ(text_of(workers[0], "failure_class"), want.failure_class) << r.describe();
  auto steps = moves(r);
  EXPECT_EQ(steps.size(), 1u) << r.describe();
  if (!steps.empty()) {
    EXPECT_EQ(text_of(steps[0], "event"), want.move) << steps[0].dump();
    EXPECT_EQ(text_of(steps[0], "from_target"), real_target(c)) << steps[0].dump();
    EXPECT_EQ(text_of(steps[0], "to_target"), sim_worker) << steps[0].dump();
  }
  auto loc = r.locator(workers[0]);
  expect_real_locator(c, loc);
  if (loc.is_object()) {
    EXPECT_EQ(text_of(loc, "status"), "failed") << loc.dump(1);
    EXPECT_EQ(text_of(loc, "failure_class"), want.failure_class) << loc.dump(1);
    if (!want.failure_source.empty()) {
      EXPECT_EQ(text_of(loc, "failure_source"), want.failure_source) << loc.dump(1);
    }
    EXPECT_TRUE(contains(text_of(loc, "failure_evidence"), want.evidence)) << loc.dump(1);
  }
  expect_archived_by_the_review(r);
  return loc;
}

// Requests the mock counted (those offering tools, or all with "count": "all").
inline std::size_t counted(const dispatch_run& r) {
  std::size_t n = 0;
  for (const auto& j : r.requests)
    if (j.value("counted", false)) ++n;
  return n;
}

// Every model request named this model.
inline void expect_model(const dispatch_run& r, const std::string& model) {
  for (const auto& j : r.requests)
    if (j.value("counted", false)) {
      EXPECT_EQ(text_of(j, "model"), model) << j.dump();
    }
}

inline int64_t epoch_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline std::string iso(int64_t epoch_seconds) { return runtime::format_utc_iso(epoch_seconds * 1000); }

// A script of tests/contract/scripts as JSON, to be changed for one run.
inline nlohmann::json script_json(cli c, const std::string& name) {
  return nlohmann::json::parse(read_all(script_path(c, name)), nullptr, false);
}

} // namespace ad::contract
