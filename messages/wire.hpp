#pragma once
// How runtime/ values inside messages cross a host boundary. A message
// field holds the typed value itself (runtime::task_state, next_step, ...);
// actors in one process hand it over by reference and never encode it.
// Only when CAF serializes a message (the middleman, a trace of messages)
// is the value written as its durable JSON form, the same mapping the
// journal and the trace use, and read back through the runtime/ decoder,
// so one schema serves disk, trace and wire. A value that does not decode
// fails the message with errc::invalid_request naming the type and field.
//
// The inspect overloads live in ad::runtime so CAF finds them by
// argument-dependent lookup; runtime/ itself stays free of CAF.

#include <string>
#include <utility>

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/save_callback.hpp>
#include <caf/meta/type_name.hpp>

#include "messages/errc.hpp"
#include "runtime/core/token_usage.hpp"
#include "runtime/core/json.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/policy/tactical.hpp"
#include "runtime/policy/usage_policy.hpp"
#include "runtime/run/admission_quota.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::messages::detail {

// Writes x as the text encode(x) gives (save) and reads it back with
// decode(text), which returns a runtime::result (load).
template <class Inspector, class T, class Encode, class Decode>
typename Inspector::result_type inspect_as_text(Inspector& f, const char* type_name, T& x,
                                                Encode encode, Decode decode) {
  std::string text;
  return f(caf::meta::type_name(type_name), caf::meta::save_callback([&]() -> caf::error {
             text = encode(x);
             return caf::none;
           }),
           text, caf::meta::load_callback([&]() -> caf::error {
             auto parsed = decode(text);
             if (!parsed)
               return caf::make_error(errc::invalid_request,
                                      std::string(type_name) + ": " + parsed.error().message());
             x = std::move(*parsed);
             return caf::none;
           }));
}

// The same through a JSON document: to_json(x) and from_json(document).
template <class Inspector, class T, class FromJson>
typename Inspector::result_type inspect_as_json(Inspector& f, const char* type_name, T& x,
                                                FromJson from_json) {
  return inspect_as_text(
    f, type_name, x, [](const T& v) { return runtime::dump_json(runtime::to_json(v)); },
    [&](const std::string& text) -> runtime::result<T> {
      auto doc = runtime::parse_json(text, type_name);
      if (!doc)
        return doc.error();
      return from_json(*doc);
    });
}

} // namespace ad::messages::detail

namespace ad::runtime {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_state& x) {
  return messages::detail::inspect_as_text(
    f, "task_state", x, [](const task_state& v) { return task_to_json_text(v); },
    [](const std::string& text) { return task_from_json_text(text, "task_state"); });
}

// A change list, in every message that carries one, travels as its journal
// text (changes_to_json_text).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, std::vector<state_change>& x) {
  return messages::detail::inspect_as_text(
    f, "state_changes", x,
    [](const std::vector<state_change>& v) { return changes_to_json_text(v); },
    [](const std::string& text) { return changes_from_json_text(text, "state_changes"); });
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, state_model& x) {
  return messages::detail::inspect_as_text(
    f, "state_model", x, [](const state_model& v) { return state_to_json_text(v); },
    [](const std::string& text) { return state_from_json_text(text, "state_model"); });
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervisor_request& x) {
  return messages::detail::inspect_as_json(f, "supervisor_request", x,
                                           supervisor_request_from_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, next_step& x) {
  return messages::detail::inspect_as_json(f, "next_step", x, next_step_from_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tactical_event& x) {
  return messages::detail::inspect_as_json(f, "tactical_event", x, tactical_event_from_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, probe_snapshot& x) {
  return messages::detail::inspect_as_json(f, "probe_snapshot", x, probe_snapshot_from_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_cooldowns& x) {
  return messages::detail::inspect_as_json(f, "target_cooldowns", x, target_cooldowns_from_json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, route_decision& x) {
  return messages::detail::inspect_as_text(
    f, "route_decision", x,
    [](const route_decision& v) {
      json j;
      to_json(j, v);
      return dump_json(j);
    },
    [](const std::string& text) -> result<route_decision> {
      auto doc = parse_json(text, "route_decision");
      if (!doc)
        return doc.error();
      try {
        return doc->get<route_decision>();
      } catch (const std::exception& e) {
        return status::invalid_argument(e.what());
      }
    });
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, token_usage& x) {
  return messages::detail::inspect_as_text(
    f, "token_usage", x, [](const token_usage& v) { return dump_json(usage_to_json(v)); },
    [](const std::string& text) -> result<token_usage> {
      auto doc = parse_json(text, "token_usage");
      if (!doc)
        return doc.error();
      return usage_from_json(*doc);
    });
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, token_prices& x) {
  return messages::detail::inspect_as_json(f, "token_prices", x, token_prices_from_json);
}

// A plain value: its fields directly.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, planned_probe& x) {
  return f(caf::meta::type_name("planned_probe"), x.argv, x.target_ids);
}

} // namespace ad::runtime
