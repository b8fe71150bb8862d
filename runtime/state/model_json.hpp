#pragma once
// JSON mapping of the state model (model.hpp), used by snapshots, journal
// records and messages that carry state as text. The nlohmann to_json /
// from_json overloads may throw nlohmann or std exceptions on malformed
// input; callers outside runtime/state use only the wrappers below, which
// never throw and return corruption() naming `source` on malformed input.

#include <string>
#include <string_view>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

void to_json(json& j, const route_candidate& x);
void from_json(const json& j, route_candidate& x);
void to_json(json& j, const quota_snapshot& x);
void from_json(const json& j, quota_snapshot& x);
void to_json(json& j, const route_decision& x);
void from_json(const json& j, route_decision& x);
void to_json(json& j, const retry_handoff& x);
void from_json(const json& j, retry_handoff& x);
void to_json(json& j, const blocked_info& x);
void from_json(const json& j, blocked_info& x);
void to_json(json& j, const intervention_context& x);
void from_json(const json& j, intervention_context& x);
void to_json(json& j, const named_file& x);
void from_json(const json& j, named_file& x);
void to_json(json& j, const file_snapshot& x);
void from_json(const json& j, file_snapshot& x);
void to_json(json& j, const write_set_snapshot& x);
void from_json(const json& j, write_set_snapshot& x);
void to_json(json& j, const task_state& x);
void from_json(const json& j, task_state& x);
// A shared part of the model reads and writes as its value.
template <class T>
void to_json(json& j, const shared_value<T>& x) {
  j = x.get();
}
template <class T>
void from_json(const json& j, shared_value<T>& x) {
  x = j.get<T>();
}
void to_json(json& j, const write_claim& x);
void from_json(const json& j, write_claim& x);
void to_json(json& j, const orchestration_task& x);
void from_json(const json& j, orchestration_task& x);
void to_json(json& j, const orchestration_record& x);
void from_json(const json& j, orchestration_record& x);
void to_json(json& j, const claim_violation_record& x);
void from_json(const json& j, claim_violation_record& x);
void to_json(json& j, const state_model& x);
void from_json(const json& j, state_model& x);

// Enum names as written in files ("failover", "exclusive", ...).
result<route_transition> parse_route_transition(std::string_view text);
result<claim_kind> parse_claim_kind(std::string_view text);
result<orchestration_status> parse_orchestration_status(std::string_view text);
result<orchestration_task_status> parse_orchestration_task_status(std::string_view text);

// Non-throwing wrappers.
json state_to_json(const state_model& x);
result<state_model> state_from_json(const json& j, std::string_view source);
std::string task_to_json_text(const task_state& x);
result<task_state> task_from_json_text(std::string_view text, std::string_view source);
// The same bytes as dump_json(state_to_json(x)), built one task at a time
// (the whole state is never one JSON tree in memory); the append form lets a
// caller write it into a larger document without another copy.
std::string state_to_json_text(const state_model& x);
void append_state_json_text(std::string& out, const state_model& x);
// The same bytes handed to `write` a part at a time, each part about
// `part_bytes` (a part ends between two values), so a large state's text is
// never whole in memory; the first failed write stops it and is returned.
status write_state_json_text(const state_model& x, std::size_t part_bytes,
                             const part_writer& write);
result<state_model> state_from_json_text(std::string_view text, std::string_view source);

} // namespace ad::runtime
