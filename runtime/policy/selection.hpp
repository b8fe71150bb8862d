#pragma once
// Target selection (SPEC section 5): which policy rule applies to a stage,
// lane and grade at a local time in the policy's time zone; the ranked
// candidates with eligibility and rejection reasons; the selected target and
// the transition (initial, resume, failover, promotion). Decisions are the
// state module's route_decision values (runtime/state/model.hpp), so they are
// persisted and appended to the route history by record_decision. Candidate
// and selected targets are policy target ids. A persisted decision is
// re-validated against the current policy before it is reused. Pure: the
// caller passes `now`, the quota knowledge and the cool-downs.
// Errors: select_target returns not_found with a message starting
// "no_matching_rule", "no_eligible_candidate", "no_failover_candidate" or
// "no_promotion_target"; revalidate_decision returns invalid_argument with
// the reason the decision can no longer be used.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

// Reason codes of rejected candidates.
inline constexpr std::string_view reason_quota_exhausted = "quota_exhausted_in_snapshot";
inline constexpr std::string_view reason_exhausted_for_work_unit = "exhausted_for_work_unit";
inline constexpr std::string_view reason_cooling_down = "cooling_down_until";
inline constexpr std::string_view reason_already_used = "already_used_for_work_unit";
inline constexpr std::string_view reason_unknown_target = "unknown_target";
// Status a task's quota map records for a target that failed with
// provider-quota during this work unit.
inline constexpr std::string_view quota_exhausted_for_work_unit = "exhausted_for_work_unit";

// Whether a rule's time window contains the local time.
bool window_contains(const time_window& w, const local_time_fields& local);

// The rule for (stage, lane, grade) at now: the highest priority among the
// matching rules, the earlier one in the file on a tie.
result<const policy_rule*> match_rule(const policy& pol, const time_zone& zone,
                                      std::string_view stage, std::string_view lane, int grade,
                                      millis now);

struct selection_request {
  std::string work_unit_id;
  std::string stage; // worker | selfcheck | review
  std::string lane;  // local | cloud
  int grade = 1;
  millis now = 0;
  route_transition transition = route_transition::initial;
  const route_decision* prior = nullptr; // required for resume, failover, promotion
  std::vector<std::string> used_targets;  // already run for this work unit and stage
  const quota_snapshot* quota = nullptr;  // the task's quota knowledge
  const target_cooldowns* cooldowns = nullptr;
  std::string failure_class;   // what triggered a failover or promotion
  std::string pinned_target;   // selfcheck: the completing worker's target
};

// Selects a target; see the header comment for the error codes.
result<route_decision> select_target(const policy& pol, const time_zone& zone,
                                     const selection_request& req);

// When select_target fails for req only because every otherwise eligible
// candidate is cooling down: the moment the first of them is free again,
// and which one it is. until = 0 when there is nothing to wait for (no
// cool-downs, or the selection would fail without them too).
struct cooldown_end {
  millis until = 0;
  std::string target;
};
cooldown_end cooldown_wait_of(const policy& pol, const time_zone& zone, selection_request req);

// Targets already run for this work unit and stage, from the route history.
std::vector<std::string> used_targets(const task_state& task, std::string_view stage);

// Checks that a persisted decision still holds under pol for the current
// work unit: its targets exist, its rule still routes its stage, lane and
// grade at its evaluation time, and its selected target is a rule candidate
// or reachable from one along the promotion chain (reviews: review_target).
status revalidate_decision(const route_decision& d, const policy& pol, const time_zone& zone,
                           std::string_view current_work_unit_id);

// One line per field for humans ("rule=cloud-workers priority=10 ...").
std::vector<std::string> describe_decision(const route_decision& d);

} // namespace ad::runtime
