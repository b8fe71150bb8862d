#pragma once
// The message-trace format (docs/traces.md): JSON Lines, one header object
// on the first line (schema version, binary version, the policy in canonical
// JSON with its sha256, the time zone name with the zone's TZif data in hex,
// and the run options) and then one
// record per line, numbered by `seq` from 1. A record is either an edge (a
// message that entered the actor system from outside: reactor events, clock
// readings, file-system observations, attempt results) or a decision (what
// the system decided, with `cause` = the seq of the edge it answered, or 0).
// Paths inside records are relative to the roots named by tokens
// (runtime/trace/trace_paths.hpp), never absolute host paths. Plain values
// and their JSON mapping only; no I/O. The *_from_json readers return
// invalid_argument naming the field; nothing here throws.

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

// 2: task actors record their task machine's events and commands
// (task.event -> task.commands) and attempts their own classification.
// 3: the scheduler records its machine's events and commands
// (scheduler.event -> scheduler.commands) instead of its inbound messages.
inline constexpr int trace_schema_version = 3;
inline constexpr std::string_view trace_magic = "agent-dispatch-trace";

struct trace_header {
  int schema = trace_schema_version;
  std::string binary_version;
  json policy;               // canonical policy JSON (policy_to_json)
  std::string policy_sha256; // of dump_json(policy)
  std::string time_zone;
  std::string time_zone_tzif; // the zone's TZif bytes as the run loaded them ("" for UTC)
  json options = json::object(); // run options that shape decisions
};

enum class trace_direction : uint8_t { edge, decision };
std::string_view to_string(trace_direction d);


struct trace_record {
  int64_t seq = 0;
  trace_direction dir = trace_direction::edge;
  std::string kind;  // "supervisor.failure", "supervisor.step", ...
  int64_t cause = 0; // decisions: seq of the edge that led to it; 0 = none
  json body = json::object();
};

// Whether `decision` ends the run: the scheduler's commands that finish it
// (finish_run), the last thing a run records. A trace without one was cut
// off (the run crashed or was killed).
bool ends_run(const trace_record& decision);

// The canonical hash of a policy document (sha256 of its compact dump).
std::string trace_policy_hash(const json& policy);

json to_json(const trace_header& h);
result<trace_header> trace_header_from_json(const json& j);
json to_json(const trace_record& r);
result<trace_record> trace_record_from_json(const json& j);

} // namespace ad::runtime
