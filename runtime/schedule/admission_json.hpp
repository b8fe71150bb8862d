#pragma once
// JSON form of an admission call (runtime/schedule/admission.hpp) for the
// message trace: the input a scheduler pass decided on (the task views it
// built from the workspace scan, the persisted claims, the live tasks and
// --max-parallel) and the plan it got back. Replay reads the input back and
// runs plan_admission on it, so the recorded plan compares equal to the
// replayed one exactly when admission decides the same. Empty optional
// members of a view are left out. Pure mapping, no I/O; never throws: a
// member of the wrong type, a missing member or an unknown enum value is
// invalid_argument naming the member.

#include "runtime/core/json.hpp"
#include "runtime/schedule/admission.hpp"

namespace ad::runtime {

// "none", "task-blocked", "dependency-ambiguity", "no-write-set",
// "predecessor-live", "predecessor-missing", "claim-conflict",
// "exclusive-claim", "capacity", "violation-pending".
std::string_view to_string(wait_cause cause);

json task_view_to_json(const task_view& v);
result<task_view> task_view_from_json(const json& j);

json admission_input_to_json(const admission_input& in);
result<admission_input> admission_input_from_json(const json& j);

json admission_plan_to_json(const admission_plan& plan);

} // namespace ad::runtime
