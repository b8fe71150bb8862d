#include "runtime/trace/trace_format.hpp"

#include <algorithm>

#include "runtime/core/hash.hpp"

namespace ad::runtime {

namespace {

status bad(std::string_view what) {
  return status::invalid_argument(std::string(what));
}

} // namespace

std::string_view to_string(trace_direction d) {
  return d == trace_direction::edge ? "edge" : "decision";
}

std::string trace_policy_hash(const json& policy) {
  return sha256_hex(dump_json(policy));
}

json to_json(const trace_header& h) {
  return json{{"trace", std::string(trace_magic)}, {"schema", h.schema},
              {"binary_version", h.binary_version}, {"policy_sha256", h.policy_sha256},
              {"time_zone", h.time_zone}, {"time_zone_tzif", hex_encode(h.time_zone_tzif)},
              {"options", h.options}, {"policy", h.policy}};
}

result<trace_header> trace_header_from_json(const json& j) {
  if (!j.is_object())
    return bad("header: not a JSON object");
  if (!j.contains("trace") || j["trace"] != std::string(trace_magic))
    return bad("header: missing \"trace\": \"" + std::string(trace_magic) + "\"");
  trace_header h;
  if (!j.contains("schema") || !j["schema"].is_number_integer())
    return bad("header: \"schema\" must be an integer");
  h.schema = j["schema"].get<int>();
  if (h.schema != trace_schema_version)
    return bad("header: schema " + std::to_string(h.schema) + " is not supported (this binary reads " +
               std::to_string(trace_schema_version) +
               "); record the run again with this binary (run --trace)");
  for (const char* key : {"binary_version", "policy_sha256", "time_zone"})
    if (!j.contains(key) || !j[key].is_string())
      return bad(std::string("header: \"") + key + "\" must be a string");
  h.binary_version = j["binary_version"].get<std::string>();
  h.policy_sha256 = j["policy_sha256"].get<std::string>();
  h.time_zone = j["time_zone"].get<std::string>();
  if (j.contains("time_zone_tzif")) {
    auto tzif = j["time_zone_tzif"].is_string() ? hex_decode(j["time_zone_tzif"].get<std::string>())
                                                : std::nullopt;
    if (!tzif)
      return bad("header: \"time_zone_tzif\" must be a string of hex digits");
    h.time_zone_tzif = std::move(*tzif);
  }
  if (!j.contains("policy") || !j["policy"].is_object())
    return bad("header: \"policy\" must be an object");
  h.policy = j["policy"];
  if (trace_policy_hash(h.policy) != h.policy_sha256)
    return bad("header: \"policy_sha256\" does not match the policy");
  if (j.contains("options")) {
    if (!j["options"].is_object())
      return bad("header: \"options\" must be an object");
    h.options = j["options"];
  }
  return h;
}

json to_json(const trace_record& r) {
  json j{{"seq", r.seq}, {"dir", std::string(to_string(r.dir))}, {"kind", r.kind}};
  if (r.dir == trace_direction::decision)
    j["cause"] = r.cause;
  j["body"] = r.body;
  return j;
}

result<trace_record> trace_record_from_json(const json& j) {
  if (!j.is_object())
    return bad("record: not a JSON object");
  trace_record r;
  if (!j.contains("seq") || !j["seq"].is_number_integer() || j["seq"].get<int64_t>() < 1)
    return bad("record: \"seq\" must be a positive integer");
  r.seq = j["seq"].get<int64_t>();
  if (!j.contains("dir") || !j["dir"].is_string())
    return bad("record: \"dir\" must be \"edge\" or \"decision\"");
  auto dir = j["dir"].get<std::string>();
  if (dir == "edge")
    r.dir = trace_direction::edge;
  else if (dir == "decision")
    r.dir = trace_direction::decision;
  else
    return bad("record: \"dir\" must be \"edge\" or \"decision\", not \"" + dir + "\"");
  if (!j.contains("kind") || !j["kind"].is_string() || j["kind"].get<std::string>().empty())
    return bad("record: \"kind\" must be a non-empty string");
  r.kind = j["kind"].get<std::string>();
  if (r.dir == trace_direction::decision) {
    if (!j.contains("cause") || !j["cause"].is_number_integer() || j["cause"].get<int64_t>() < 0)
      return bad("record: a decision needs \"cause\" (an edge seq, or 0)");
    r.cause = j["cause"].get<int64_t>();
  }
  if (!j.contains("body"))
    return bad("record: missing \"body\"");
  // Every body is an object: the readers look its fields up by name.
  if (!j["body"].is_object())
    return bad("record: \"body\" must be a JSON object");
  r.body = j["body"];
  return r;
}

bool ends_run(const trace_record& decision) {
  if (decision.dir != trace_direction::decision || decision.kind != "scheduler.commands" ||
      !decision.body.is_object() || !decision.body.contains("commands") ||
      !decision.body["commands"].is_array())
    return false;
  const auto& commands = decision.body["commands"];
  return std::any_of(commands.begin(), commands.end(), [](const json& c) {
    return c.is_object() && c.value("command", std::string()) == "finish_run";
  });
}

} // namespace ad::runtime
