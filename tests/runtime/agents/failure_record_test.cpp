#include "runtime/agents/failure_record.hpp"

#include <csignal>
#include <set>

#include <gtest/gtest.h>

#include "runtime/core/clock.hpp"

namespace ad::runtime {
namespace {

const compiled_failure_patterns& record_table() { return default_compiled_failure_patterns(); }

millis record_at(const char* iso) {
  auto t = parse_utc_iso(iso);
  EXPECT_TRUE(t.is_ok()) << iso;
  return t.is_ok() ? *t : 0;
}

// Every field away from its default: a review that could not start, was
// signaled, stopped by the dispatcher, started a collaboration tool, and left
// two diagnostics.
failure_inputs everything_set() {
  failure_inputs in;
  in.launch = launch_outcome::failed_to_start;
  in.launch_error = "command not found: codex";
  in.exit.ended = agent_exit_status::how::signaled;
  in.exit.code = 3;
  in.exit.signal = SIGKILL;
  in.stop = dispatcher_stop::session_stall;
  in.review_control_tool = "spawn_agent";
  in.diagnostics_newest_first = {{"stderr", "rate limit exceeded; resets at 2026-11-29T15:30:00Z"},
                                 {"claude:result", "context window exceeded"}};
  in.observed_at = record_at("2026-11-29T13:00:00Z");
  in.kind = adapter_kind::claude;
  in.outcome.end = cli_end::failed;
  in.outcome.failure = {"claude:result", "rate_limit_error", "API Error: Request rejected (429)"};
  in.outcome.reset_at = record_at("2026-11-29T15:00:00Z");
  in.outcome.recovered_errors = 2;
  in.outcome.printed_events = true;
  in.no_progress = {"provider-quota", "no progress for 120 s", "claude:api_retry"};
  in.utc_offset_s = 32400;
  return in;
}

void expect_same_inputs(const failure_inputs& a, const failure_inputs& b) {
  EXPECT_EQ(a.launch, b.launch);
  EXPECT_EQ(a.launch_error, b.launch_error);
  EXPECT_EQ(a.exit.ended, b.exit.ended);
  EXPECT_EQ(a.exit.code, b.exit.code);
  EXPECT_EQ(a.exit.signal, b.exit.signal);
  EXPECT_EQ(a.stop, b.stop);
  EXPECT_EQ(a.review_control_tool, b.review_control_tool);
  ASSERT_EQ(a.diagnostics_newest_first.size(), b.diagnostics_newest_first.size());
  for (size_t i = 0; i < a.diagnostics_newest_first.size(); ++i) {
    EXPECT_EQ(a.diagnostics_newest_first[i].origin, b.diagnostics_newest_first[i].origin) << i;
    EXPECT_EQ(a.diagnostics_newest_first[i].text, b.diagnostics_newest_first[i].text) << i;
  }
  EXPECT_EQ(a.observed_at, b.observed_at);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.outcome.end, b.outcome.end);
  EXPECT_EQ(a.outcome.failure.origin, b.outcome.failure.origin);
  EXPECT_EQ(a.outcome.failure.code, b.outcome.failure.code);
  EXPECT_EQ(a.outcome.failure.message, b.outcome.failure.message);
  EXPECT_EQ(a.outcome.reset_at, b.outcome.reset_at);
  EXPECT_EQ(a.outcome.recovered_errors, b.outcome.recovered_errors);
  EXPECT_EQ(a.outcome.printed_events, b.outcome.printed_events);
  EXPECT_EQ(a.no_progress.failure_class, b.no_progress.failure_class);
  EXPECT_EQ(a.no_progress.evidence, b.no_progress.evidence);
  EXPECT_EQ(a.no_progress.origin, b.no_progress.origin);
  EXPECT_EQ(a.utc_offset_s, b.utc_offset_s);
}

void expect_same_verdict(const failure_verdict& a, const failure_verdict& b) {
  EXPECT_EQ(a.failure_class, b.failure_class);
  EXPECT_EQ(a.failure_source, b.failure_source);
  EXPECT_EQ(a.evidence, b.evidence);
  EXPECT_EQ(a.evidence_origin, b.evidence_origin);
  EXPECT_EQ(a.evidence_truncated, b.evidence_truncated);
  EXPECT_EQ(a.termination_signal, b.termination_signal);
  EXPECT_EQ(a.termination_signal_name, b.termination_signal_name);
  EXPECT_EQ(a.termination_signal_inferred, b.termination_signal_inferred);
  EXPECT_EQ(a.reset_at, b.reset_at);
  EXPECT_EQ(a.provider_transport_failure_confirmed, b.provider_transport_failure_confirmed);
}

// Round-trips `in` and checks fields, JSON and classification; returns the
// verdict of the original.
failure_verdict round_trip(const failure_inputs& in) {
  json j = failure_inputs_to_json(in);
  auto back = failure_inputs_from_json(j);
  EXPECT_TRUE(back.is_ok()) << back.error().message();
  if (!back.is_ok())
    return {};
  expect_same_inputs(*back, in);
  EXPECT_EQ(failure_inputs_to_json(*back), j);
  // Through text too, as a trace file carries it.
  auto reparsed = parse_json(dump_json(j), "inputs");
  EXPECT_TRUE(reparsed.is_ok());
  if (reparsed.is_ok()) {
    auto from_text = failure_inputs_from_json(*reparsed);
    EXPECT_TRUE(from_text.is_ok());
    if (from_text.is_ok())
      expect_same_inputs(*from_text, in);
  }
  auto original = classify_attempt(in, record_table());
  expect_same_verdict(classify_attempt(*back, record_table()), original);
  return original;
}

TEST(failure_record, inputs_with_every_field_set_round_trip_and_classify_the_same) {
  auto in = everything_set();
  {
    SCOPED_TRACE("review control tool");
    auto v = round_trip(in);
    EXPECT_EQ(v.failure_class, "review-control-violation");
    EXPECT_EQ(v.termination_signal, SIGKILL);
  }
  in.review_control_tool.reset();
  {
    SCOPED_TRACE("failed to start");
    auto v = round_trip(in);
    EXPECT_EQ(v.failure_class, "launch-failure");
    EXPECT_EQ(v.evidence, "command not found: codex");
  }
  in.launch = launch_outcome::started;
  {
    SCOPED_TRACE("session stall");
    EXPECT_EQ(round_trip(in).failure_class, "session-stall");
  }
  in.stop = dispatcher_stop::cancelled;
  {
    SCOPED_TRACE("cancelled");
    EXPECT_EQ(round_trip(in).failure_class, "cancelled");
  }
  in.stop = dispatcher_stop::none;
  {
    SCOPED_TRACE("signaled");
    auto v = round_trip(in);
    EXPECT_EQ(v.failure_class, "process-terminated");
    EXPECT_EQ(v.termination_signal_name, "SIGKILL");
  }
  in.exit = {};
  in.exit.code = 1;
  {
    SCOPED_TRACE("the typed end decides, with its typed reset");
    auto v = round_trip(in);
    EXPECT_EQ(v.failure_class, "provider-quota");
    EXPECT_EQ(v.evidence_origin, "claude:result");
    EXPECT_EQ(v.reset_at, record_at("2026-11-29T15:00:00Z"));
  }
  in.stop = dispatcher_stop::no_progress;
  {
    SCOPED_TRACE("no progress");
    auto v = round_trip(in);
    EXPECT_EQ(v.failure_class, "provider-quota");
    EXPECT_EQ(v.failure_source, "dispatcher-no-progress");
    EXPECT_EQ(v.evidence_origin, "claude:api_retry");
  }
  in.stop = dispatcher_stop::none;
  in.outcome = {};
  {
    SCOPED_TRACE("diagnostics decide, newest first");
    auto v = round_trip(in);
    EXPECT_EQ(v.failure_class, "provider-quota");
    EXPECT_EQ(v.evidence_origin, "stderr");
    EXPECT_EQ(v.reset_at, record_at("2026-11-29T15:30:00Z"));
  }
  // The order of the diagnostics survives: reversed, the older line decides.
  std::swap(in.diagnostics_newest_first[0], in.diagnostics_newest_first[1]);
  {
    SCOPED_TRACE("reversed diagnostics");
    auto v = round_trip(in);
    EXPECT_EQ(v.failure_class, "context-limit");
    EXPECT_EQ(v.evidence_origin, "claude:result");
  }
}

TEST(failure_record, json_carries_the_named_values) {
  json j = failure_inputs_to_json(everything_set());
  EXPECT_EQ(j["launch"], "failed_to_start");
  EXPECT_EQ(j["exit"], "signaled");
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["exit_signal"], SIGKILL);
  EXPECT_EQ(j["stop"], "session_stall");
  EXPECT_EQ(j["review_control_tool"], "spawn_agent");
  ASSERT_EQ(j["diagnostics_newest_first"].size(), 2u);
  EXPECT_EQ(j["diagnostics_newest_first"][0]["origin"], "stderr");
  EXPECT_EQ(j["diagnostics_newest_first"][1]["origin"], "claude:result");
  EXPECT_EQ(j["observed_at"], record_at("2026-11-29T13:00:00Z"));
}

TEST(failure_record, absent_review_control_tool_stays_absent) {
  failure_inputs in;
  in.exit.code = 2;
  json j = failure_inputs_to_json(in);
  ASSERT_TRUE(j.contains("review_control_tool"));
  EXPECT_TRUE(j["review_control_tool"].is_null());
  auto back = failure_inputs_from_json(j);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_FALSE(back->review_control_tool.has_value());
  EXPECT_TRUE(back->diagnostics_newest_first.empty());
  EXPECT_EQ(classify_attempt(*back, record_table()).failure_class, "generic-error");
  // An empty tool name is still a tool: it does not collapse to absent.
  in.review_control_tool = "";
  back = failure_inputs_from_json(failure_inputs_to_json(in));
  ASSERT_TRUE(back.is_ok());
  ASSERT_TRUE(back->review_control_tool.has_value());
  EXPECT_EQ(*back->review_control_tool, "");
}

// Expects `j` to be rejected as invalid_argument with every word of `names`
// in the message.
void expect_rejected(const json& j, std::initializer_list<const char*> names) {
  auto r = failure_inputs_from_json(j);
  ASSERT_FALSE(r.is_ok()) << j.dump();
  EXPECT_TRUE(r.error().is_invalid_argument()) << r.error().to_string();
  for (const char* name : names)
    EXPECT_NE(r.error().message().find(name), std::string::npos)
      << "'" << name << "' not in: " << r.error().message();
}

TEST(failure_record, unknown_enum_values_are_invalid_arguments_naming_them) {
  const json good = failure_inputs_to_json(everything_set());
  auto with = [&](const char* key, json value) {
    json j = good;
    j[key] = std::move(value);
    return j;
  };
  expect_rejected(with("launch", "crashed"), {"launch", "crashed"});
  expect_rejected(with("exit", "stopped"), {"exit", "stopped"});
  expect_rejected(with("stop", "paused"), {"stop", "paused"});
  // Case matters: the names are exact.
  expect_rejected(with("stop", "Cancelled"), {"stop", "Cancelled"});
}

TEST(failure_record, missing_fields_are_invalid_arguments_naming_them) {
  const json good = failure_inputs_to_json(everything_set());
  // Written before typed outcomes: without them a trace still reads.
  const std::set<std::string> optional{"cli", "outcome", "no_progress", "utc_offset_s"};
  for (const auto& [key, value] : good.items()) {
    SCOPED_TRACE(key);
    json j = good;
    j.erase(key);
    if (optional.contains(key)) {
      EXPECT_TRUE(failure_inputs_from_json(j).is_ok());
      continue;
    }
    expect_rejected(j, {key.c_str()});
  }
  json bad_end = good;
  bad_end["outcome"]["end"] = "maybe";
  expect_rejected(bad_end, {"end", "maybe"});
  json bad_cli = good;
  bad_cli["cli"] = "gemini";
  expect_rejected(bad_cli, {"gemini"});
  json no_text = good;
  no_text["diagnostics_newest_first"][1].erase("text");
  expect_rejected(no_text, {"text"});
  json no_origin = good;
  no_origin["diagnostics_newest_first"][0].erase("origin");
  expect_rejected(no_origin, {"origin"});
  expect_rejected(json::array(), {});
  expect_rejected(json("not an object"), {});
}

TEST(failure_record, wrong_types_are_invalid_arguments) {
  const json good = failure_inputs_to_json(everything_set());
  auto with = [&](const char* key, json value) {
    json j = good;
    j[key] = std::move(value);
    return j;
  };
  expect_rejected(with("launch", 1), {});
  expect_rejected(with("launch_error", false), {});
  expect_rejected(with("exit", json::array()), {});
  expect_rejected(with("exit_code", "1"), {});
  expect_rejected(with("exit_signal", "SIGKILL"), {});
  expect_rejected(with("stop", json()), {});
  expect_rejected(with("review_control_tool", 7), {});
  expect_rejected(with("observed_at", "2026-11-29T13:00:00Z"), {});
  expect_rejected(with("diagnostics_newest_first", "stderr: boom"), {});
  expect_rejected(with("diagnostics_newest_first", json::array({"stderr: boom"})), {});
  json text_number = good;
  text_number["diagnostics_newest_first"][0]["text"] = 429;
  expect_rejected(text_number, {});
}

// The header promises the error names the bad field; a type error must say
// which field had the wrong type.
TEST(failure_record, wrong_type_errors_name_the_field) {
  const json good = failure_inputs_to_json(everything_set());
  for (const char* key : {"exit_code", "observed_at", "launch_error"}) {
    SCOPED_TRACE(key);
    json j = good;
    j[key] = json::array();
    expect_rejected(j, {key});
  }
}

TEST(failure_record, diagnostics_of_the_wrong_type_are_not_read_as_none) {
  json j = failure_inputs_to_json(everything_set());
  j["diagnostics_newest_first"] = nullptr;
  expect_rejected(j, {"diagnostics_newest_first"});
}

TEST(failure_record, quota_verdict_carries_class_evidence_origin_and_reset) {
  failure_inputs in;
  in.exit.code = 1;
  in.diagnostics_newest_first = {{"stderr", "rate limit exceeded; resets at 2026-11-29T15:30:00Z"}};
  in.observed_at = record_at("2026-11-29T13:00:00Z");
  auto v = classify_attempt(in, record_table());
  ASSERT_EQ(v.failure_class, "provider-quota");
  json j = failure_verdict_to_json(v);
  EXPECT_EQ(j["failure_class"], "provider-quota");
  EXPECT_EQ(j["failure_source"], "cli-terminal-diagnostic");
  EXPECT_EQ(j["evidence"], "rate limit exceeded; resets at 2026-11-29T15:30:00Z");
  EXPECT_EQ(j["evidence_origin"], "stderr");
  EXPECT_EQ(j["evidence_truncated"], false);
  ASSERT_TRUE(j["reset_at"].is_number_integer()) << j.dump();
  EXPECT_EQ(j["reset_at"].get<millis>(), record_at("2026-11-29T15:30:00Z"));
  EXPECT_TRUE(j["termination_signal"].is_null());
  EXPECT_EQ(j["provider_transport_failure_confirmed"], false);

  // Reset read from an older diagnostic when the evidence has none.
  in.diagnostics_newest_first = {
    {"claude:result", R"({"type":"result","is_error":true,"result":"rate limited"})"},
    {"claude:rate_limit_event",
     R"({"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795000000}})"}};
  j = failure_verdict_to_json(classify_attempt(in, record_table()));
  EXPECT_EQ(j["failure_class"], "provider-quota");
  EXPECT_EQ(j["evidence_origin"], "claude:result");
  EXPECT_EQ(j["reset_at"], 1795000000000);
}

TEST(failure_record, success_verdict_has_empty_class_and_null_optionals) {
  failure_inputs in;
  in.diagnostics_newest_first = {{"stderr", "warning: deprecated flag"}};
  auto v = classify_attempt(in, record_table());
  ASSERT_FALSE(v.failed());
  json j = failure_verdict_to_json(v);
  EXPECT_EQ(j["failure_class"], "");
  EXPECT_EQ(j["failure_source"], "");
  EXPECT_EQ(j["evidence"], "");
  ASSERT_TRUE(j.contains("reset_at"));
  EXPECT_TRUE(j["reset_at"].is_null());
  ASSERT_TRUE(j.contains("termination_signal"));
  EXPECT_TRUE(j["termination_signal"].is_null());
  EXPECT_EQ(j["termination_signal_name"], "");
  EXPECT_EQ(j["termination_signal_inferred"], false);
}

TEST(failure_record, verdict_carries_an_inferred_termination_signal) {
  failure_inputs in;
  in.exit.code = 128 + SIGKILL;
  json j = failure_verdict_to_json(classify_attempt(in, record_table()));
  EXPECT_EQ(j["failure_class"], "process-terminated");
  EXPECT_EQ(j["failure_source"], "process-termination");
  EXPECT_EQ(j["termination_signal"], SIGKILL);
  EXPECT_EQ(j["termination_signal_name"], "SIGKILL");
  EXPECT_EQ(j["termination_signal_inferred"], true);
  EXPECT_TRUE(j["reset_at"].is_null());
}

} // namespace
} // namespace ad::runtime
