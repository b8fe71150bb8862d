#include "runtime/agents/failure_record.hpp"
#include "runtime/core/exception_text.hpp"

namespace ad::runtime {

json diagnostics_to_json(const std::vector<terminal_diagnostic>& diagnostics) {
  json out = json::array();
  for (const auto& d : diagnostics)
    out.push_back(json{{"origin", d.origin}, {"text", d.text}});
  return out;
}

result<std::vector<terminal_diagnostic>> diagnostics_from_json(const json& j) {
  if (!j.is_array())
    return status::invalid_argument("diagnostics: not an array");
  try {
    std::vector<terminal_diagnostic> out;
    for (const auto& d : j)
      out.push_back({json_member<std::string>(d, "origin"), json_member<std::string>(d, "text")});
    return out;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("diagnostics: ") + exception_text(e));
  }
}

namespace {

std::string_view stop_name(dispatcher_stop stop) {
  switch (stop) {
    case dispatcher_stop::cancelled:
      return "cancelled";
    case dispatcher_stop::session_stall:
      return "session_stall";
    case dispatcher_stop::no_progress:
      return "no_progress";
    case dispatcher_stop::none:
      break;
  }
  return "none";
}

} // namespace

json cli_outcome_to_json(const cli_outcome& o) {
  return json{{"end", to_string(o.end)},
              {"origin", o.failure.origin},
              {"code", o.failure.code},
              {"message", o.failure.message},
              {"reset_at", o.reset_at ? json(*o.reset_at) : json()},
              {"recovered_errors", o.recovered_errors},
              {"printed_events", o.printed_events}};
}

result<cli_outcome> cli_outcome_from_json(const json& j) {
  try {
    cli_outcome o;
    auto end = json_member<std::string>(j, "end");
    if (end == "succeeded")
      o.end = cli_end::succeeded;
    else if (end == "failed")
      o.end = cli_end::failed;
    else if (end != "unknown")
      return status::invalid_argument("cli outcome: end \"" + end + "\"");
    o.failure.origin = json_member<std::string>(j, "origin");
    o.failure.code = json_member<std::string>(j, "code");
    o.failure.message = json_member<std::string>(j, "message");
    if (!json_member<json>(j, "reset_at").is_null())
      o.reset_at = json_member<millis>(j, "reset_at");
    o.recovered_errors = json_member<int64_t>(j, "recovered_errors");
    o.printed_events = json_member<bool>(j, "printed_events");
    return o;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("cli outcome: ") + exception_text(e));
  }
}

json failure_inputs_to_json(const failure_inputs& in) {
  return json{
    {"cli", to_string(in.kind)},
    {"outcome", cli_outcome_to_json(in.outcome)},
    {"no_progress", json{{"class", in.no_progress.failure_class},
                         {"evidence", in.no_progress.evidence},
                         {"origin", in.no_progress.origin}}},
    {"utc_offset_s", in.utc_offset_s},
    {"launch", in.launch == launch_outcome::started ? "started" : "failed_to_start"},
    {"launch_error", in.launch_error},
    {"exit", in.exit.ended == agent_exit_status::how::exited ? "exited" : "signaled"},
    {"exit_code", in.exit.code},
    {"exit_signal", in.exit.signal},
    {"stop", stop_name(in.stop)},
    {"review_control_tool", in.review_control_tool ? json(*in.review_control_tool) : json()},
    {"diagnostics_newest_first", diagnostics_to_json(in.diagnostics_newest_first)},
    {"observed_at", in.observed_at}};
}

result<failure_inputs> failure_inputs_from_json(const json& j) {
  try {
    failure_inputs in;
    auto launch = json_member<std::string>(j, "launch");
    if (launch != "started" && launch != "failed_to_start")
      return status::invalid_argument("failure inputs: launch \"" + launch + "\"");
    in.launch = launch == "started" ? launch_outcome::started : launch_outcome::failed_to_start;
    in.launch_error = json_member<std::string>(j, "launch_error");
    auto exit = json_member<std::string>(j, "exit");
    if (exit != "exited" && exit != "signaled")
      return status::invalid_argument("failure inputs: exit \"" + exit + "\"");
    in.exit.ended = exit == "exited" ? agent_exit_status::how::exited
                                     : agent_exit_status::how::signaled;
    in.exit.code = json_member<int>(j, "exit_code");
    in.exit.signal = json_member<int>(j, "exit_signal");
    auto stop = json_member<std::string>(j, "stop");
    if (stop == "none")
      in.stop = dispatcher_stop::none;
    else if (stop == "cancelled")
      in.stop = dispatcher_stop::cancelled;
    else if (stop == "session_stall")
      in.stop = dispatcher_stop::session_stall;
    else if (stop == "no_progress")
      in.stop = dispatcher_stop::no_progress;
    else
      return status::invalid_argument("failure inputs: stop \"" + stop + "\"");
    if (json_member<json>(j, "review_control_tool").is_null())
      in.review_control_tool.reset();
    else
      in.review_control_tool = json_member<std::string>(j, "review_control_tool");
    auto diagnostics = diagnostics_from_json(json_member<json>(j, "diagnostics_newest_first"));
    if (!diagnostics.is_ok())
      return diagnostics.error().with_context("failure inputs: diagnostics_newest_first");
    in.diagnostics_newest_first = std::move(*diagnostics);
    in.observed_at = json_member<millis>(j, "observed_at");
    // Recorded before typed outcomes existed: an unknown end, the command
    // adapter's rules.
    if (j.contains("cli")) {
      auto kind = parse_adapter_kind(json_member<std::string>(j, "cli"));
      if (!kind.is_ok())
        return kind.error().with_context("failure inputs: cli");
      in.kind = *kind;
    }
    if (j.contains("outcome")) {
      auto outcome = cli_outcome_from_json(json_member<json>(j, "outcome"));
      if (!outcome.is_ok())
        return outcome.error().with_context("failure inputs");
      in.outcome = std::move(*outcome);
    }
    if (j.contains("no_progress")) {
      const json& np = json_member<json>(j, "no_progress");
      in.no_progress.failure_class = json_member<std::string>(np, "class");
      in.no_progress.evidence = json_member<std::string>(np, "evidence");
      in.no_progress.origin = json_member<std::string>(np, "origin");
    }
    if (j.contains("utc_offset_s"))
      in.utc_offset_s = json_member<int32_t>(j, "utc_offset_s");
    return in;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("failure inputs: ") + exception_text(e));
  }
}

json failure_verdict_to_json(const failure_verdict& v) {
  return json{{"failure_class", v.failure_class},
              {"failure_source", v.failure_source},
              {"evidence", v.evidence},
              {"evidence_origin", v.evidence_origin},
              {"evidence_truncated", v.evidence_truncated},
              {"termination_signal", v.termination_signal ? json(*v.termination_signal) : json()},
              {"termination_signal_name", v.termination_signal_name},
              {"termination_signal_inferred", v.termination_signal_inferred},
              {"reset_at", v.reset_at ? json(*v.reset_at) : json()},
              {"provider_transport_failure_confirmed", v.provider_transport_failure_confirmed}};
}

} // namespace ad::runtime
