// Golden transcripts of each impersonated CLI's output, produced with a fixed
// clock and seeded ids (their likeness to the real CLIs is checked in
// realcli_shape_test.cpp). Set AGENT_SIM_UPDATE_GOLDEN=1 to rewrite the
// fixtures (the test then fails once, so a rewrite is always noticed).
#include "tools/agent-sim/emitter.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <sstream>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::agent_sim {
namespace {

namespace fs = std::filesystem;
using runtime::json;

constexpr runtime::millis fixed_time = 1795946400000;  // 2026-11-29T10:00:00Z

struct transcript {
  std::string out, err;
  std::vector<std::string> side_files;
};

invocation invocation_for(persona p, const fs::path& side_dir) {
  invocation inv;
  inv.as = p;
  inv.model = p == persona::pi ? "qwen3-coder" : "model-x";
  inv.prompt = "Read /ws/agent-task/auth/02_api/PLAN-cloud-G05.md and complete the task.";
  inv.session_id = "00000000-0000-4000-8000-000000000001";
  inv.session_dir = (side_dir / "pi-sessions").string();
  inv.log_file = (side_dir / "agy-cli.log").string();
  return inv;
}

// success: two steps then a summary; failure: one step, then a rate limit
// (with its retry-after of 30 s: the waits asked for are recorded, not slept).
transcript run(persona p, bool fail, const fs::path& side_dir, failure_kind kind = failure_kind::rate_limit,
               std::vector<double>* waits = nullptr) {
  runtime::manual_clock clock(fixed_time);
  id_source ids(42);
  emit_context ctx{invocation_for(p, side_dir), "/ws", &clock, &ids, {}, [&](double s) {
                     if (waits) waits->push_back(s);
                     return true;
                   }};
  std::ostringstream out, err;
  auto e = make_emitter(ctx, out, err);
  e->begin();
  e->step(1, "sed -n 1,80p PLAN-cloud-G05.md");
  clock.advance(1500);
  if (!fail) {
    e->step(2, "apply_patch src/api.cpp");
    clock.advance(500);
    e->success("Finished worker of auth/02_api (attempt 1).");
  } else {
    action a;
    a.kind = action_kind::fail;
    a.failure = kind;
    a.retry_after_seconds = 30;
    e->failure(describe_failure(a, ctx.inv.model, "/ws", clock.now()));
  }
  transcript t{out.str(), err.str(), e->side_files()};
  EXPECT_TRUE(e->write_errors().empty());
  return t;
}

void expect_golden(const std::string& name, const std::string& actual) {
  fs::path file = test::source_dir() / "tests/fixtures/agent-sim" / name;
  if (std::getenv("AGENT_SIM_UPDATE_GOLDEN")) {
    ASSERT_TRUE(runtime::write_file_atomic(file, actual).is_ok());
    FAIL() << "rewrote " << file << "; rerun without AGENT_SIM_UPDATE_GOLDEN";
  }
  auto expected = runtime::read_file(file);
  ASSERT_TRUE(expected.is_ok()) << expected.error().to_string();
  EXPECT_EQ(actual, *expected) << "golden mismatch: " << file;
}

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto j = runtime::parse_json(line, "line");
    EXPECT_TRUE(j.is_ok()) << line;
    if (j.is_ok()) out.push_back(*j);
  }
  return out;
}

std::string read(const std::string& p) {
  auto t = runtime::read_file(p);
  return t.is_ok() ? *t : "";
}

TEST(emitter_golden, codex) {
  test::temp_dir tmp;
  expect_golden("codex_success.jsonl", run(persona::codex, false, tmp.path()).out);
  std::vector<double> waits;
  auto failed = run(persona::codex, true, tmp.path(), failure_kind::rate_limit, &waits);
  expect_golden("codex_rate_limit.jsonl", failed.out);
  EXPECT_EQ(failed.err, "Reading additional input from stdin...\n");
  auto lines = json_lines(failed.out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front()["type"], "thread.started");
  // A uuid v7 whose first 48 bits are the start time in ms.
  std::string thread = lines.front()["thread_id"];
  EXPECT_EQ(thread.substr(0, 8) + thread.substr(9, 4), "01a226bf4900") << thread;
  EXPECT_EQ(thread[14], '7');
  EXPECT_EQ(lines.back()["type"], "turn.failed");
  EXPECT_NE(lines.back()["error"]["message"].get<std::string>().find("last status: 429 Too Many Requests"),
            std::string::npos);
  EXPECT_EQ(lines[lines.size() - 2]["type"], "error");
  // Five reconnects, each after the provider's retry-after, then the end.
  int reconnects = 0;
  for (const auto& l : lines)
    reconnects += l["type"] == "error" && l["message"].get<std::string>().starts_with("Reconnecting... ");
  EXPECT_EQ(reconnects, 5);
  EXPECT_EQ(waits, (std::vector<double>{0.07, 30, 30, 30, 30, 30}));
}

TEST(emitter_golden, claude) {
  test::temp_dir tmp;
  auto ok = run(persona::claude, false, tmp.path());
  expect_golden("claude_success.jsonl", ok.out);
  auto ok_lines = json_lines(ok.out);
  EXPECT_EQ(ok_lines.front()["subtype"], "init");
  EXPECT_EQ(ok_lines.front()["session_id"], "00000000-0000-4000-8000-000000000001");
  EXPECT_EQ(ok_lines.back()["type"], "result");
  EXPECT_EQ(ok_lines.back()["is_error"], false);

  std::vector<double> waits;
  auto failed = run(persona::claude, true, tmp.path(), failure_kind::rate_limit, &waits);
  expect_golden("claude_rate_limit.jsonl", failed.out);
  int retries = 0;
  for (const auto& l : json_lines(failed.out)) {
    EXPECT_NE(l["type"], "rate_limit_event") << "an API key's rate limit has no rate_limit_event";
    if (l["type"] == "system" && l["subtype"] == "api_retry") {
      ++retries;
      EXPECT_EQ(l["max_retries"], 10);
      EXPECT_EQ(l["error_status"], 429);
      // At least the 30 s retry-after, at most a quarter more.
      EXPECT_GE(l["retry_delay_ms"].get<int64_t>(), 30000);
      EXPECT_LE(l["retry_delay_ms"].get<int64_t>(), 40000);
    }
    if (l["type"] == "assistant" && l["message"]["model"] == "<synthetic>") {
      EXPECT_EQ(l["error"], "rate_limit");
      EXPECT_EQ(l["api_error_type"], "rate_limit_error");
    }
  }
  EXPECT_EQ(retries, 10);
  EXPECT_EQ(waits.size(), 10u);
  auto last = json_lines(failed.out).back();
  EXPECT_EQ(last["type"], "result");
  EXPECT_EQ(last["is_error"], true);
  EXPECT_EQ(last["api_error_status"], 429);
  EXPECT_EQ(last["api_error_type"], "rate_limit_error");
  EXPECT_EQ(last["terminal_reason"], "api_error");

  // A subscriber's limit: the rejected rate_limit_event with its reset.
  auto limited = run(persona::claude, true, tmp.path(), failure_kind::usage_limit);
  bool saw_rejected = false;
  for (const auto& l : json_lines(limited.out)) {
    if (l["type"] == "rate_limit_event") {
      saw_rejected = l["rate_limit_info"]["status"] == "rejected";
      // retry after 30 s from the failure time (fixed + 1.5 s), in epoch seconds
      EXPECT_EQ(l["rate_limit_info"]["resetsAt"], (fixed_time + 1500 + 30000) / 1000);
    }
  }
  EXPECT_TRUE(saw_rejected);
  EXPECT_EQ(json_lines(limited.out).back()["api_error"], "usage_limit_reached");
  EXPECT_EQ(json_lines(limited.out).back()["result"], "You've hit your 5-hour limit \u00b7 resets 10am (UTC)");
}

TEST(emitter_golden, agy_stdout_stderr_and_log_file) {
  test::temp_dir tmp;
  auto ok = run(persona::agy, false, tmp.path());
  expect_golden("agy_success.txt", ok.out);
  expect_golden("agy_success.log", read((tmp.path() / "agy-cli.log").string()));
  fs::remove(tmp.path() / "agy-cli.log");
  auto failed = run(persona::agy, true, tmp.path());
  expect_golden("agy_rate_limit.stderr", failed.err);
  std::string log = read((tmp.path() / "agy-cli.log").string());
  expect_golden("agy_rate_limit.log", log);
  EXPECT_NE(log.find("ERROR HTTP 429 Too Many Requests"), std::string::npos);
  EXPECT_EQ(failed.side_files, std::vector<std::string>{(tmp.path() / "agy-cli.log").string()});
}

TEST(emitter_golden, pi_json_mode_and_v3_session) {
  test::temp_dir tmp;
  auto ok = run(persona::pi, false, tmp.path());
  expect_golden("pi_success.jsonl", ok.out);
  ASSERT_EQ(ok.side_files.size(), 1u);
  fs::path session = ok.side_files[0];
  EXPECT_EQ(session.parent_path(), tmp.path() / "pi-sessions");
  EXPECT_EQ(session.filename(), "2026-11-29T10-00-00-000Z_00000000-0000-4000-8000-000000000001.jsonl");
  std::string text = read(session.string());
  std::string portable = text;
  expect_golden("pi_success.session.jsonl", portable);

  auto entries = json_lines(text);
  ASSERT_GE(entries.size(), 7u);
  EXPECT_EQ(entries[0]["type"], "session");
  EXPECT_EQ(entries[0]["version"], 3);
  EXPECT_EQ(entries[0]["id"], "00000000-0000-4000-8000-000000000001");
  EXPECT_EQ(entries[0]["cwd"], "/ws");
  EXPECT_EQ(entries[1]["type"], "model_change");
  EXPECT_EQ(entries[1]["modelId"], "qwen3-coder");
  EXPECT_EQ(entries[2]["type"], "thinking_level_change");
  // Every entry links to the previous one; each tool result answers a tool call.
  std::string parent;
  std::vector<std::string> calls, results;
  for (std::size_t i = 1; i < entries.size(); ++i) {
    const json& e = entries[i];
    if (i == 1) EXPECT_TRUE(e["parentId"].is_null());
    else EXPECT_EQ(e["parentId"], parent);
    parent = e["id"].get<std::string>();
    if (i < 3) continue;
    EXPECT_EQ(e["type"], "message");
    const json& m = e["message"];
    if (m["role"] == "assistant") {
      for (const auto& block : m["content"])
        if (block["type"] == "toolCall") calls.push_back(block["id"]);
    } else if (m["role"] == "toolResult") {
      results.push_back(m["toolCallId"]);
    }
  }
  EXPECT_EQ(entries[3]["message"]["role"], "user");
  EXPECT_EQ(entries.back()["message"]["stopReason"], "stop");
  EXPECT_EQ(calls, results);
  EXPECT_EQ(calls.size(), 2u);

  test::temp_dir tmp2;
  std::vector<double> waits;
  auto failed = run(persona::pi, true, tmp2.path(), failure_kind::rate_limit, &waits);
  expect_golden("pi_rate_limit.jsonl", failed.out);
  EXPECT_EQ(failed.err, "") << "pi prints nothing on stderr";
  auto last = json_lines(read(failed.side_files.at(0))).back();
  EXPECT_EQ(last["message"]["stopReason"], "error");
  EXPECT_TRUE(last["message"]["errorMessage"].get<std::string>().starts_with("429 Rate limit reached for"));
  // pi's own three retries, 2, 4 and 8 s apart, then their end.
  EXPECT_EQ(waits, (std::vector<double>{2, 4, 8}));
  auto events = json_lines(failed.out);
  EXPECT_EQ(events.back()["type"], "auto_retry_end");
  EXPECT_EQ(events.back()["success"], false);
  EXPECT_EQ(events.back()["attempt"], 3);
}

TEST(emitter_golden, pi_resume_appends_to_the_named_session) {
  test::temp_dir tmp;
  auto first = run(persona::pi, false, tmp.path());
  ASSERT_EQ(first.side_files.size(), 1u);
  auto before = json_lines(read(first.side_files[0]));
  runtime::manual_clock clock(fixed_time);
  id_source ids(7);
  invocation inv = invocation_for(persona::pi, tmp.path());
  inv.session_id.clear();
  inv.session_file = first.side_files[0];
  std::ostringstream out, err;
  auto e = make_emitter({inv, "/ws", &clock, &ids, {}, nullptr}, out, err);
  e->begin();
  e->success("resumed");
  auto after = json_lines(read(first.side_files[0]));
  ASSERT_EQ(after.size(), before.size() + 2) << "the prompt and the answer";
  EXPECT_EQ(after[before.size()]["parentId"], before.back()["id"]);
  EXPECT_EQ(json_lines(out.str()).front()["id"], "00000000-0000-4000-8000-000000000001");
}

TEST(emitter_golden, command_plain_text) {
  test::temp_dir tmp;
  expect_golden("command_success.txt", run(persona::command, false, tmp.path()).out);
  expect_golden("command_rate_limit.stderr", run(persona::command, true, tmp.path()).err);
}

TEST(failure_messages, match_the_dispatcher_failure_classes) {
  // Each kind carries the words the seed's pattern table keys on.
  struct expectation {
    failure_kind kind;
    std::string needle;
  };
  for (const auto& [kind, needle] : std::vector<expectation>{
           {failure_kind::rate_limit, "429"},
           {failure_kind::resource_exhausted, "RESOURCE_EXHAUSTED"},
           {failure_kind::quota_exceeded, "quota"},
           {failure_kind::context_length, "maximum context length"},
           {failure_kind::model_overloaded, "overloaded"},
           {failure_kind::model_unavailable, "unavailable"},
           {failure_kind::connection_refused, "connection refused"},
           {failure_kind::stream_disconnected, "backend connection failed during streaming request"},
           {failure_kind::file_exists, "File already exists: /ws/src/a.cpp"},
           {failure_kind::file_not_found, "No such file or directory: /ws/src/a.cpp"},
           {failure_kind::error, "agent failed"}}) {
    action a;
    a.failure = kind;
    a.path = "src/a.cpp";
    auto f = describe_failure(a, "m", "/ws", fixed_time);
    EXPECT_NE(f.message.find(needle), std::string::npos) << to_string(kind) << ": " << f.message;
  }
  action custom;
  custom.message = "boom";
  EXPECT_EQ(describe_failure(custom, "m", "/ws", 0).message, "boom");
  action reset;
  reset.failure = failure_kind::rate_limit;
  reset.resets_at = "2026-11-29T11:00:00Z";
  auto f = describe_failure(reset, "m", "/ws", fixed_time);
  EXPECT_EQ(f.resets_at, fixed_time + 3600000);
  EXPECT_NE(f.message.find("resets at 2026-11-29T11:00:00.000Z"), std::string::npos) << f.message;
}

} // namespace
} // namespace ad::agent_sim
