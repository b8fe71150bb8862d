// attempt_run without processes or actors: folder and first locator,
// stream and normalized lines, session discovery, heartbeats and silence,
// classification with the FINISH row, failures of the files it writes.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "runtime/attempt/attempt_files.hpp"
#include "runtime/attempt/attempt_run.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/worklog/work_log.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

class attempt_run_test : public ::testing::Test {
protected:
  attempt_setup setup(adapter_kind kind = adapter_kind::command) {
    attempt_setup s;
    s.task = "auth/02+01_api";
    s.plan_number = 3;
    s.role = "worker";
    s.attempt = 7;
    s.workspace = dir.path();
    s.workspace_id = "feedfacefeedface";
    s.runs_dir = dir.path() / "state/runs";
    s.launch.kind = kind;
    s.launch.model = "m1";
    s.launch.prompt = "Read PLAN.md and complete the task.";
    if (kind == adapter_kind::command)
      s.launch.command_template = {"agent", "{attempt_dir}", "{prompt}"};
    s.dispatcher_pid = 4242;
    s.dispatcher_start_token = "99";
    return s;
  }
  json locator_on_disk(const attempt_run& run) {
    auto text = read_file(run.locator_path());
    EXPECT_TRUE(text.is_ok());
    auto j = parse_json(text.is_ok() ? *text : "{}", "locator");
    EXPECT_TRUE(j.is_ok());
    return j.is_ok() ? *j : json{};
  }
  std::string file(const fs::path& p) {
    auto text = read_file(p);
    return text.is_ok() ? *text : std::string{};
  }

  test::temp_dir dir;
  manual_clock clk{1'796'562'456'000}; // 2026-12-05T...
};

TEST_F(attempt_run_test, OpenWritesTheFolderFilesAndFirstLocator) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  EXPECT_EQ(run.identity(), "auth__02__01_api__p3__worker__a07");
  EXPECT_EQ(run.attempt_dir().parent_path(), dir.path() / "state/runs");
  EXPECT_EQ(run.attempt_dir().filename().string(),
            format_utc_stamp(clk.now()) + "__auth__02__01_api__p3__worker__a07");
  for (auto name : {"stream.log", "normalized-output.log", "heartbeat.log", "locator.json"})
    EXPECT_TRUE(fs::exists(run.attempt_dir() / name)) << name;
  EXPECT_EQ(run.argv(), (std::vector<std::string>{"agent", run.attempt_dir().string(),
                                                  "Read PLAN.md and complete the task."}));
  auto loc = locator_on_disk(run);
  EXPECT_EQ(loc.value("status", ""), "running");
  EXPECT_EQ(loc.value("identity", ""), run.identity());
  EXPECT_EQ(loc.value("dispatcher_pid", 0), 4242);
  EXPECT_FALSE(loc.contains("agent_pid") && !loc["agent_pid"].is_null());
  EXPECT_EQ(loc.value("process_marker", ""), run.marker());
  EXPECT_EQ(run.marker().rfind("wfeedfacefeedface__" + run.identity() + "__", 0), 0u);
  EXPECT_EQ(loc.value("work_log", ""), (dir.path() / "agent-task/auth/WORK_LOG.md").string());
}

TEST_F(attempt_run_test, ABadTemplateFailsBeforeAnythingIsWritten) {
  auto s = setup();
  s.launch.command_template = {"agent", "{nonsense}"};
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_FALSE(opened.is_ok());
  EXPECT_TRUE(opened.error().is_invalid_argument()) << opened.error().to_string();
  EXPECT_FALSE(fs::exists(dir.path() / "state/runs"));
}

TEST_F(attempt_run_test, AnUnwritableRunsFolderFailsOpen) {
  dir.write("state/runs", "a file, not a folder");
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_FALSE(opened.is_ok());
}

TEST_F(attempt_run_test, PidAndStartTokenAreWrittenAtOnce) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  run.on_started(31337, "123456");
  auto loc = locator_on_disk(run);
  EXPECT_EQ(loc.value("agent_pid", 0), 31337);
  EXPECT_EQ(loc.value("agent_start_token", ""), "123456");
}

TEST_F(attempt_run_test, LinesGoToStreamAndNormalizedOutput) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  run.on_line(output_channel::out, "hello", false, 0);
  run.on_line(output_channel::err, "warn", false, 0);
  run.on_line(output_channel::out, "xxxx", true, 1000);
  EXPECT_EQ(file(run.attempt_dir() / "stream.log"),
            "[stdout] hello\n[stderr] warn\n[stdout] xxxx [line cut: 1000 bytes dropped]\n");
  auto normalized = file(run.attempt_dir() / "normalized-output.log");
  EXPECT_NE(normalized.find("hello\n"), std::string::npos) << normalized;
}

TEST_F(attempt_run_test, ADiscoveredSessionIdRewritesTheLocator) {
  auto opened = attempt_run::open(setup(adapter_kind::codex), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  auto out = run.on_line(output_channel::out, R"({"type":"thread.started","thread_id":"th-9"})",
                         false, 0);
  EXPECT_TRUE(out.session_discovered);
  EXPECT_EQ(locator_on_disk(run).value("session_id", ""), "th-9");
  out = run.on_line(output_channel::out, R"({"type":"thread.started","thread_id":"th-9"})",
                    false, 0);
  EXPECT_FALSE(out.session_discovered);
}

TEST_F(attempt_run_test, HeartbeatAndSilenceInspection) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  run.on_line(output_channel::out, "last words", false, 0);
  clk.advance(30'000);
  run.heartbeat(30'000);
  clk.advance(150'000);
  run.inspect_silence(180'000);
  EXPECT_EQ(run.heartbeats(), 1);
  auto beats = file(run.attempt_dir() / "heartbeat.log");
  EXPECT_NE(beats.find(format_utc_iso(clk.now() - 150'000) + " [heartbeat] silent_ms=30000 locator=" +
                       run.locator_path().string() + " native_session=none native_mtime_ns=none\n"),
            std::string::npos)
    << beats;
  EXPECT_NE(beats.find(format_utc_iso(clk.now()) + " [silence-inspection] silent_ms=180000 "
                                                   "command wrote no output; stream tail recorded"),
            std::string::npos)
    << beats;
  auto loc = locator_on_disk(run);
  EXPECT_EQ(loc["silence_inspection"].value("stream_tail", ""), "[stdout] last words\n");
  EXPECT_EQ(loc.value("updated_at", std::string{}), format_utc_iso(clk.now()));
  EXPECT_EQ(loc.value("silence_inspections", 0), 1);
}

TEST_F(attempt_run_test, FinishClassifiesAndWritesTheFinishRow) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  ASSERT_TRUE(run.write_start_row().is_ok());
  run.on_started(100, "1");
  run.on_line(output_channel::err, "Error: 429 rate limit exceeded, try again later", false, 0);
  attempt_end end;
  end.exit_code = 1;
  auto v = run.finish(end);
  EXPECT_EQ(v.failure_class, "provider-quota");
  EXPECT_EQ(v.evidence_origin, "stderr");
  auto loc = locator_on_disk(run);
  EXPECT_EQ(loc.value("status", ""), "failed");
  EXPECT_EQ(loc.value("failure_class", ""), "provider-quota");
  EXPECT_EQ(loc.value("exit_code", 0), 1);
  EXPECT_NE(file(run.attempt_dir() / "heartbeat.log")
              .find(" [finish] status=failed exit=1 class=provider-quota\n"),
            std::string::npos);
  auto log = file(dir.path() / "agent-task/auth/WORK_LOG.md");
  EXPECT_NE(log.find("| START | auth/02+01_api | worker | 7 | m1 | running |"), std::string::npos)
    << log;
  EXPECT_NE(log.find("| FINISH | auth/02+01_api | worker | 7 | m1 | failed:provider-quota:1 |"),
            std::string::npos)
    << log;
  // The rows written, as the message trace reports them.
  ASSERT_EQ(run.rows_written().size(), 2u);
  EXPECT_EQ(run.rows_written()[0].event, "START");
  EXPECT_EQ(run.rows_written()[1].event, "FINISH");
  EXPECT_EQ(run.rows_written()[1].result, "failed:provider-quota:1");
  EXPECT_EQ(run.rows_written()[1].locator, run.locator_path().string());
}

TEST(finish_row_result, names_the_class_and_the_exit_code_as_a_shell_would) {
  failure_inputs in;
  failure_verdict ok;
  EXPECT_EQ(finish_row_result(ok, in), "succeeded:0");
  failure_verdict crash;
  crash.failure_class = "generic-error";
  in.exit.code = 3;
  EXPECT_EQ(finish_row_result(crash, in), "failed:generic-error:3");
  in.exit.ended = agent_exit_status::how::signaled;
  in.exit.signal = 9;
  EXPECT_EQ(finish_row_result(crash, in), "failed:generic-error:137");
  in.launch = launch_outcome::failed_to_start;
  EXPECT_EQ(finish_row_result(crash, in), "failed:generic-error:127");
  failure_verdict cancelled;
  cancelled.failure_class = "cancelled";
  EXPECT_EQ(finish_row_result(cancelled, in), "failed:cancelled");
  // What the attempt spent follows, when its CLI reported anything.
  token_usage spent{1234, 56, {}, {}, {}, 0.0012};
  EXPECT_EQ(finish_row_result(ok, in, spent), "succeeded:0 (spent 1,234 in · 56 out · $0.0012)");
  EXPECT_EQ(finish_row_result(crash, in, token_usage{{}, 7, {}, {}, {}, {}}),
            "failed:generic-error:127 (spent 7 out)");
}

TEST_F(attempt_run_test, AFailedFinishRowIsItsOwnFailureClass) {
  auto s = setup();
  s.work_log = dir.write("not-a-folder", "x") / "WORK_LOG.md";
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  EXPECT_FALSE(run.write_start_row().is_ok());
  attempt_end end;
  end.exit_code = 2;
  auto v = run.finish(end);
  EXPECT_EQ(v.failure_class, work_log_failure_class);
  EXPECT_TRUE(run.rows_written().empty()); // neither row reached the log
  auto loc = locator_on_disk(run);
  EXPECT_EQ(loc.value("failure_class", ""), work_log_failure_class);
  EXPECT_EQ(loc.value("prior_failure_class", ""), "generic-error");
}

// A dispatcher died between an attempt's FINISH row and its locator; the
// next one adopts the attempt from its keeper and finishes it: the row
// already written stays the only one.
TEST_F(attempt_run_test, AnAdoptedAttemptDoesNotWriteItsFinishRowTwice) {
  auto s = setup();
  s.kept = true;
  auto opened = attempt_run::open(s, clk);
  ASSERT_TRUE(opened.is_ok());
  auto& first = **opened;
  ASSERT_TRUE(first.write_start_row().is_ok());
  first.on_started(100, "1");
  auto log_path = dir.path() / "agent-task/auth/WORK_LOG.md";
  work_log_event finished{"FINISH", "auth/02+01_api", "worker", 7, "m1", "succeeded:0",
                          first.locator_path().string()};
  ASSERT_TRUE(append_work_log(log_path, finished, clk).is_ok());

  auto again = setup();
  again.dispatcher_pid = 5151;
  auto adopted = attempt_run::adopt(again, first.locator_path(), clk);
  ASSERT_TRUE(adopted.is_ok()) << adopted.error().message();
  auto& run = **adopted;
  auto loc = locator_on_disk(run);
  EXPECT_EQ(loc.value("dispatcher_pid", 0), 5151);
  EXPECT_EQ(loc.value("adopted_from_dispatcher_pid", 0), 4242);
  auto v = run.finish(attempt_end{});
  EXPECT_FALSE(v.failed());
  auto log = file(log_path);
  size_t finish_rows = 0;
  for (auto pos = log.find("| FINISH |"); pos != std::string::npos;
       pos = log.find("| FINISH |", pos + 1))
    ++finish_rows;
  EXPECT_EQ(finish_rows, 1u) << log;
  EXPECT_TRUE(run.rows_written().empty());
  EXPECT_NE(file(run.attempt_dir() / "heartbeat.log").find("was written before the restart"),
            std::string::npos);
  EXPECT_EQ(locator_on_disk(run).value("status", ""), "succeeded");
}

TEST_F(attempt_run_test, AnAdoptedAttemptWithoutItsRowWritesIt) {
  auto s = setup();
  s.kept = true;
  auto opened = attempt_run::open(s, clk);
  ASSERT_TRUE(opened.is_ok());
  ASSERT_TRUE((**opened).write_start_row().is_ok());
  auto adopted = attempt_run::adopt(setup(), (**opened).locator_path(), clk);
  ASSERT_TRUE(adopted.is_ok());
  attempt_end end;
  end.exit_code = 3;
  (**adopted).finish(end);
  EXPECT_NE(file(dir.path() / "agent-task/auth/WORK_LOG.md")
                .find("| FINISH | auth/02+01_api | worker | 7 | m1 | failed:generic-error:3 |"),
            std::string::npos);
}

// The count of silence inspections comes back from the locator on disk when
// an attempt is adopted; 1e300 there was cast to int (undefined behaviour).
TEST_F(attempt_run_test, ADamagedSilenceCountInAnAdoptedLocatorCountsAgain) {
  auto s = setup();
  s.kept = true;
  auto opened = attempt_run::open(s, clk);
  ASSERT_TRUE(opened.is_ok());
  auto loc = locator_on_disk(**opened);
  loc["silence_inspections"] = 1e300;
  ASSERT_TRUE(write_file_atomic((**opened).locator_path(), dump_json(loc)).is_ok());
  auto adopted = attempt_run::adopt(setup(), (**opened).locator_path(), clk);
  ASSERT_TRUE(adopted.is_ok()) << adopted.error().message();
  clk.advance(180'000);
  (**adopted).inspect_silence(180'000);
  EXPECT_EQ(locator_on_disk(**adopted)["silence_inspections"], 1);
}

TEST_F(attempt_run_test, AdoptionRefusesTheLocatorOfAnotherAttempt) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok());
  auto other = setup();
  other.attempt = 8;
  auto adopted = attempt_run::adopt(other, (**opened).locator_path(), clk);
  ASSERT_FALSE(adopted.is_ok());
  EXPECT_NE(adopted.error().message().find("not of auth__02__01_api__p3__worker__a08"),
            std::string::npos)
      << adopted.error().message();
}

// The keeper died before it recorded how its agent ended: the reactor's
// note is the evidence of the failure.
TEST_F(attempt_run_test, AKeepersDeathIsTheEvidenceOfTheFailureItCaused) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  run.on_started(100, "1");
  attempt_end end;
  end.how = exit_how::signaled;
  end.exit_signal = 9;
  end.exit_code = 137;
  end.end_note = "the agent's keeper ended before it recorded the agent's end";
  auto v = run.finish(end);
  EXPECT_TRUE(v.failed());
  EXPECT_EQ(v.evidence, end.end_note);
  EXPECT_EQ(v.evidence_origin, "dispatcher:keeper");
  EXPECT_NE(file(run.attempt_dir() / "heartbeat.log").find("[keeper] the agent's keeper ended"),
            std::string::npos);
}

TEST_F(attempt_run_test, ALostLocatorRefreshIsRecordedNotFatal) {
  auto opened = attempt_run::open(setup(), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  fs::remove_all(run.attempt_dir());
  run.on_started(5, "7");  // the rewrite fails; the run goes on
  EXPECT_TRUE(run.locator().extra.contains("locator_write_error"));
  fs::create_directories(run.attempt_dir());
  run.heartbeat(1);
  EXPECT_FALSE(run.locator().extra.contains("locator_write_error"));
  EXPECT_EQ(locator_on_disk(run).value("agent_pid", 0), 5);
}

// ---- native session files (SPEC section 6) ---------------------------------

TEST_F(attempt_run_test, APiSessionWrittenByAShortAttemptIsRecordedAtTheEnd) {
  // No watcher reading ever saw the file: the attempt finds it itself.
  auto s = setup(adapter_kind::pi);
  s.launch.session_id = "5d3f0c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b";
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  auto session = run.attempt_dir() / "pi-sessions" /
                 "2026-12-05T10-00-00-000Z_5d3f0c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b.jsonl";
  ASSERT_EQ(run.pi_session_folder(), session.parent_path());
  fs::create_directories(session.parent_path());
  dir.write(fs::relative(session, dir.path()).string(),
            R"({"type":"session","version":3,"id":"5d3f0c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b"})" "\n");
  run.on_line(output_channel::err,
              "Error: stream disconnected before completion: backend connection failed during "
              "streaming request",
              false, 0);
  attempt_end end;
  end.exit_code = 1;
  auto v = run.finish(end);
  EXPECT_EQ(v.failure_class, "provider-stream-disconnect");
  EXPECT_EQ(run.locator().native_session_path.value_or(""), session.string());
  auto loc = locator_on_disk(run);
  EXPECT_EQ(loc.value("native_session_path", std::string{}), session.string());
  EXPECT_NE(loc.value("pi_session_phase_reason", std::string{}), "native-session-file-missing");
}

// The keeper's spool retention cut lines of a pi stream before they were
// read: the usage of the messages lost with them is read from pi's session
// file, and the locator and the FINISH row name the whole.
TEST_F(attempt_run_test, APiStreamThatLostLinesIsSettledFromItsSessionFile) {
  auto s = setup(adapter_kind::pi);
  s.launch.session_id = "5d3f0c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b";
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  std::string usage = R"("usage":{"input":1234,"output":56,"cacheRead":0,"cacheWrite":0,)"
                      R"("totalTokens":1290,"cost":{"input":0,"output":0,"cacheRead":0,)"
                      R"("cacheWrite":0,"total":0}})";
  std::string message = R"({"role":"assistant","content":[],"model":"laguna-s",)" + usage + "}";
  auto session = run.pi_session_folder() /
                 "2026-12-05T10-00-00-000Z_5d3f0c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b.jsonl";
  fs::create_directories(session.parent_path());
  std::string text =
    R"({"type":"session","version":3,"id":"5d3f0c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b"})" "\n";
  for (const char* id : {"a1", "a2"})
    text += std::string(R"({"type":"message","id":")") + id +
            R"(","timestamp":"2026-12-06T13:07:37.000Z","message":)" + message + "}\n";
  dir.write(fs::relative(session, dir.path()).string(), text);
  // The first message's end was cut from the spool; the second's was read.
  run.on_line(output_channel::out, R"({"type":"message_end","message":)" + message + "}", false, 0);
  EXPECT_EQ(run.usage().input_tokens, 1234);
  attempt_end end;
  end.lost_stream_lines = 3;
  run.finish(end);
  EXPECT_EQ(run.usage().input_tokens, 2468);
  EXPECT_EQ(run.usage().output_tokens, 112);
  EXPECT_EQ(locator_on_disk(run)["usage"].value("input_tokens", 0), 2468);
  ASSERT_EQ(run.rows_written().size(), 1u);
  EXPECT_NE(run.rows_written()[0].result.find("(spent 2,468 in · 112 out"), std::string::npos)
    << run.rows_written()[0].result;
}

TEST_F(attempt_run_test, TheCodexRolloutOfTheDiscoveredThreadIsRecorded) {
  auto s = setup(adapter_kind::codex);
  s.env_additions = {"HOME=" + (dir.path() / "home").string()};
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  auto day = format_utc_iso(clk.now()); // YYYY-MM-DD...
  auto folder = fs::path("home/.codex/sessions") / day.substr(0, 4) / day.substr(5, 2) /
                day.substr(8, 2);
  dir.write((folder / "rollout-2026-12-05T10-00-00-th-other.jsonl").string(), "{}\n");
  auto rollout = dir.write((folder / "rollout-2026-12-05T10-00-00-th-9.jsonl").string(), "{}\n");
  run.on_line(output_channel::out, R"({"type":"thread.started","thread_id":"th-9"})", false, 0);
  EXPECT_EQ(locator_on_disk(run).value("native_session_path", std::string{}), rollout.string());
  attempt_end end;
  run.finish(end);
  EXPECT_EQ(locator_on_disk(run).value("native_session_path", std::string{}), rollout.string());
}

TEST_F(attempt_run_test, TheUsageSpentSoFarIsInEveryLocatorAndTheSettledOneAtTheEnd) {
  auto opened = attempt_run::open(setup(adapter_kind::claude), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  EXPECT_FALSE(locator_on_disk(run).contains("usage"));
  run.on_line(output_channel::out,
              R"({"type":"assistant","message":{"id":"m1","usage":{"input_tokens":321,"output_tokens":1}}})",
              false, 0);
  run.heartbeat(0);
  EXPECT_EQ(locator_on_disk(run)["usage"], (json{{"input_tokens", 321}, {"output_tokens", 1}}))
    << "what was spent before a crash is in the locator";
  run.on_line(output_channel::out,
              R"({"type":"result","subtype":"success","total_cost_usd":0.0125,)"
              R"("usage":{"input_tokens":321,"output_tokens":12}})",
              false, 0);
  run.finish(attempt_end{});
  json spent{{"input_tokens", 321}, {"output_tokens", 12}, {"cost_usd", 0.0125}};
  EXPECT_EQ(locator_on_disk(run)["usage"], spent);
  EXPECT_EQ(usage_to_json(run.usage()), spent);
  ASSERT_EQ(run.rows_written().size(), 1u);
  EXPECT_EQ(run.rows_written()[0].result, "succeeded:0 (spent 321 in · 12 out · $0.0125)")
    << "the FINISH row names the settled usage";
  auto back = locator_from_json(locator_on_disk(run));
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  ASSERT_TRUE(back->usage);
  EXPECT_EQ(usage_to_json(*back->usage), spent);
}

TEST_F(attempt_run_test, TokensSoFarReachTheLocatorWhileTheAgentKeepsWriting) {
  auto opened = attempt_run::open(setup(adapter_kind::claude), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  auto message = [&](const std::string& id, int out) {
    run.on_line(output_channel::out,
                R"({"type":"assistant","message":{"id":")" + id +
                  R"(","usage":{"input_tokens":321,"output_tokens":)" + std::to_string(out) +
                  "}}}",
                false, 0);
  };
  clk.advance(attempt_run::usage_refresh_ms);
  message("m1", 1);
  EXPECT_EQ(locator_on_disk(run)["usage"], (json{{"input_tokens", 321}, {"output_tokens", 1}}))
    << "no heartbeat was needed: the agent never went quiet";
  clk.advance(1'000);
  message("m2", 2);
  EXPECT_EQ(locator_on_disk(run)["usage"]["input_tokens"], 321)
    << "within the refresh interval the locator is not rewritten";
  clk.advance(attempt_run::usage_refresh_ms);
  run.on_line(output_channel::out, R"({"type":"user"})", false, 0);
  EXPECT_EQ(locator_on_disk(run)["usage"], (json{{"input_tokens", 642}, {"output_tokens", 3}}));
}

TEST_F(attempt_run_test, ACommandTargetsUsageIsReadInTheNamedFormatAndPricedWithoutACost) {
  auto s = setup();
  s.usage_reader = usage_format::codex;
  s.prices = token_prices{.input = 2.0, .output = 10.0, .cache_read = {}, .cache_write = {}};
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  run.on_line(output_channel::out,
              R"({"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":0,"output_tokens":40}})",
              false, 0);
  auto v = run.finish(attempt_end{});
  EXPECT_FALSE(v.failed());
  auto u = run.usage();
  EXPECT_EQ(u.input_tokens, 1200);
  EXPECT_EQ(u.output_tokens, 40);
  ASSERT_TRUE(u.cost_usd);
  EXPECT_DOUBLE_EQ(*u.cost_usd, (1200 * 2.0 + 40 * 10.0) / 1e6);
  EXPECT_EQ(locator_on_disk(run)["usage"], usage_to_json(u));
}

TEST_F(attempt_run_test, ACliCostWinsOverThePrices) {
  auto s = setup(adapter_kind::claude);
  s.prices = token_prices{.input = 2.0, .output = 10.0, .cache_read = {}, .cache_write = {}};
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  run.on_line(output_channel::out,
              R"({"type":"result","subtype":"success","total_cost_usd":0.5,)"
              R"("usage":{"input_tokens":321,"output_tokens":12}})",
              false, 0);
  run.finish(attempt_end{});
  EXPECT_EQ(run.usage().cost_usd, 0.5);
}

TEST_F(attempt_run_test, ACancelledAttemptKeepsWhatItSpentBeforeTheEnd) {
  auto opened = attempt_run::open(setup(adapter_kind::claude), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  run.on_started(100, "1");
  run.on_line(output_channel::out,
              R"({"type":"assistant","message":{"id":"m1","usage":{"input_tokens":321,"output_tokens":5}}})",
              false, 0);
  attempt_end end;
  end.how = exit_how::signaled;
  end.exit_signal = 15;
  end.stop = dispatcher_stop::cancelled;
  auto v = run.finish(end);
  EXPECT_TRUE(v.failed());
  EXPECT_EQ(run.usage().input_tokens, 321);
  EXPECT_EQ(run.usage().output_tokens, 5);
  EXPECT_EQ(locator_on_disk(run)["usage"]["input_tokens"], 321);
}

TEST_F(attempt_run_test, AFailedCodexTurnCountsTheRequestsItsRolloutRecorded) {
  auto s = setup(adapter_kind::codex);
  s.env_additions = {"HOME=" + (dir.path() / "home").string()};
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  auto day = format_utc_iso(clk.now());
  auto folder = fs::path("home/.codex/sessions") / day.substr(0, 4) / day.substr(5, 2) /
                day.substr(8, 2);
  dir.write((folder / "rollout-2026-12-05T10-00-00-th-9.jsonl").string(),
            R"({"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":)"
            R"({"input_tokens":1200,"cached_input_tokens":0,"output_tokens":40}}}})"
            "\n");
  run.on_line(output_channel::out, R"({"type":"thread.started","thread_id":"th-9"})", false, 0);
  run.on_line(output_channel::out,
              R"({"type":"turn.failed","error":{"message":"stream disconnected before completion"}})",
              false, 0);
  attempt_end end;
  end.exit_code = 1;
  run.finish(end);
  EXPECT_EQ(run.usage().input_tokens, 1200);
  EXPECT_EQ(run.usage().output_tokens, 40);
  EXPECT_EQ(locator_on_disk(run)["usage"]["input_tokens"], 1200);
}

TEST_F(attempt_run_test, AnAdoptedAttemptCountsItsStreamOnceAndKeepsTheUsageOnDiskMeanwhile) {
  auto s = setup(adapter_kind::claude);
  s.kept = true;
  auto opened = attempt_run::open(s, clk);
  ASSERT_TRUE(opened.is_ok());
  auto& first = **opened;
  ASSERT_TRUE(first.write_start_row().is_ok());
  const std::string line =
    R"({"type":"assistant","message":{"id":"m1","usage":{"input_tokens":321,"output_tokens":5}}})";
  first.on_line(output_channel::out, line, false, 0);
  first.heartbeat(0);

  auto adopted = attempt_run::adopt(setup(adapter_kind::claude), first.locator_path(), clk);
  ASSERT_TRUE(adopted.is_ok()) << adopted.error().message();
  auto& run = **adopted;
  EXPECT_EQ(locator_on_disk(run)["usage"]["input_tokens"], 321)
    << "the adopting dispatcher keeps what the locator said until it has read the stream";
  run.on_line(output_channel::out, line, false, 0); // the spool from its first line
  run.on_line(output_channel::out,
              R"({"type":"result","subtype":"success","usage":{"input_tokens":321,"output_tokens":12}})",
              false, 0);
  run.finish(attempt_end{});
  EXPECT_EQ(usage_to_json(run.usage()), (json{{"input_tokens", 321}, {"output_tokens", 12}}));
}

TEST_F(attempt_run_test, TheNewestAgyConversationChangedDuringTheAttemptIsRecorded) {
  auto s = setup(adapter_kind::agy);
  s.env_additions = {"HOME=" + (dir.path() / "home").string()};
  const fs::path conversations = "home/.gemini/antigravity-cli/conversations";
  auto untouched = dir.write((conversations / "old.db").string(), "old");
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  auto fresh = dir.write((conversations / "fresh.db").string(), "new conversation");
  fs::last_write_time(fresh, fs::last_write_time(untouched) + std::chrono::seconds(5));
  dir.write((conversations / "notes.txt").string(), "not a conversation");
  attempt_end end;
  run.finish(end);
  EXPECT_EQ(locator_on_disk(run).value("native_session_path", std::string{}), fresh.string());
}

TEST_F(attempt_run_test, TheAgyCliLogIsReadAfterTheLinesAndKeptApart) {
  auto opened = attempt_run::open(setup(adapter_kind::agy), clk);
  ASSERT_TRUE(opened.is_ok()) << opened.error().to_string();
  auto& run = **opened;
  run.on_line(output_channel::err, "Error: RESOURCE_EXHAUSTED: quota", false, 0);
  ASSERT_TRUE(write_file_atomic(agy_cli_log_path(run.attempt_dir()),
                                "INFO start\nERROR status code: 429 RESOURCE_EXHAUSTED, retry in "
                                "10s\n")
                .is_ok());
  attempt_end end;
  end.exit_code = 1;
  run.finish(end);
  ASSERT_EQ(run.file_diagnostics().size(), 1u);
  EXPECT_EQ(run.file_diagnostics()[0].origin, "agy-cli.log");
  const auto* in = run.classification_inputs();
  ASSERT_NE(in, nullptr);
  ASSERT_EQ(in->diagnostics_newest_first.size(), 2u);
  EXPECT_EQ(in->diagnostics_newest_first[0].text, run.file_diagnostics()[0].text);
  EXPECT_NE(in->diagnostics_newest_first[1].text.find("RESOURCE_EXHAUSTED: quota"),
            std::string::npos);
}

TEST_F(attempt_run_test, NoAgyConversationChangedMeansNoNativeSession) {
  auto s = setup(adapter_kind::agy);
  s.env_additions = {"HOME=" + (dir.path() / "home").string()};
  dir.write("home/.gemini/antigravity-cli/conversations/old.db", "old");
  auto opened = attempt_run::open(std::move(s), clk);
  ASSERT_TRUE(opened.is_ok());
  auto& run = **opened;
  attempt_end end;
  run.finish(end);
  EXPECT_TRUE(locator_on_disk(run)["native_session_path"].is_null());
}

TEST(attempt_files, RandomUuidsAreCanonicalAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto u = random_uuid();
    EXPECT_TRUE(is_uuid(u)) << u;
    EXPECT_EQ(u[14], '4');
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(attempt_files, LineFileAppendsWholeLines) {
  test::temp_dir dir;
  auto f = line_file::create(dir.path() / "x.log");
  ASSERT_TRUE(f.is_ok());
  ASSERT_TRUE(f->append_line("one").is_ok());
  ASSERT_TRUE(f->append_line("").is_ok());
  ASSERT_TRUE(f->append_line(std::string(100000, 'z')).is_ok());
  auto text = read_file(dir.path() / "x.log");
  ASSERT_TRUE(text.is_ok());
  EXPECT_EQ(*text, "one\n\n" + std::string(100000, 'z') + "\n");
  EXPECT_FALSE(line_file::create(dir.path() / "missing/x.log").is_ok());
}

} // namespace
} // namespace ad::runtime
