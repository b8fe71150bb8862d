// keeper.json and exit.json: round trips, "not ended yet", and malformed or
// hostile files refused with an error naming the file and the member; the
// liveness probe of a recorded keeper.

#include "runtime/keeper/keeper_records.hpp"

#include <gtest/gtest.h>
#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/core/proc_stat.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/keeper_liveness.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

keeper_record sample_keeper() {
  keeper_record r;
  r.keeper_pid = 4242;
  r.keeper_start_token = "123456";
  r.agent_pid = 4243;
  r.agent_pgid = 4243;
  r.agent_start_token = "123457";
  r.marker = "w0123__task__p1__worker__a01__ab12";
  r.argv0 = "/usr/bin/codex";
  r.started_at_ms = 1796281766520;
  r.line_cap = 4096;
  r.head_bytes = 100;
  r.tail_bytes = 200;
  r.containment = containment_kind::cgroup;
  r.cgroup = "/sys/fs/cgroup/unified/agent-dispatch-w0123";
  return r;
}

keeper_exit_record sample_exit() {
  keeper_exit_record r;
  r.end = keeper_end::signaled;
  r.signal = SIGKILL;
  r.exit_code = 128 + SIGKILL;
  r.termination = {keeper_initiator::lease, SIGKILL};
  r.stream = {10, 200, 4, 80, 7, 1};
  r.ended_at_ms = 1796281767523;
  r.containment.kind = containment_kind::cgroup;
  r.containment.cgroup = "/sys/fs/cgroup/unified/agent-dispatch-w0123";
  r.containment.ended = {{4250, "sleep"}, {4251, "node"}};
  r.containment.kept = {{4252, "sccache"}};
  r.containment.usage = {1234, std::nullopt};
  return r;
}

std::string exit_text(const std::string& key, const json& value) {
  json j = exit_record_to_json(sample_exit());
  if (value.is_discarded())
    j.erase(key);
  else
    j[key] = value;
  return dump_json(j);
}

TEST(keeper_records, both_records_round_trip_through_their_files) {
  test::temp_dir dir;
  ASSERT_TRUE(write_keeper_record(dir.path(), sample_keeper()).is_ok());
  auto k = read_keeper_record(dir.path());
  ASSERT_TRUE(k.is_ok()) << k.error().to_string();
  EXPECT_EQ(*k, sample_keeper());

  ASSERT_TRUE(write_exit_record(dir.path(), sample_exit()).is_ok());
  auto e = read_exit_record(dir.path());
  ASSERT_TRUE(e.is_ok()) << e.error().to_string();
  EXPECT_EQ(e->state, keeper_exit_state::ended);
  EXPECT_EQ(e->record, sample_exit());
  // The documented shape (docs/keeper.md).
  json j = exit_record_to_json(sample_exit());
  EXPECT_EQ(j["termination"]["initiator"], "lease");
  EXPECT_EQ(j["termination"]["signal"], "SIGKILL");
  EXPECT_EQ(j["end"], "signaled");
  EXPECT_EQ(j["exit_code"], 137);
}

// Keepers older than containment wrote neither member: read as the fallback
// with nothing ended, so a new dispatcher adopts their attempts.
TEST(keeper_records, records_without_containment_read_as_the_fallback) {
  json k = keeper_record_to_json(sample_keeper());
  k.erase("containment");
  k.erase("cgroup");
  auto rec = keeper_record_from_json(k, "keeper.json");
  ASSERT_TRUE(rec.is_ok()) << rec.error().to_string();
  EXPECT_EQ(rec->containment, containment_kind::subreaper);
  EXPECT_TRUE(rec->cgroup.empty());
  json e = exit_record_to_json(sample_exit());
  EXPECT_EQ(e["containment"]["mechanism"], "cgroup");
  EXPECT_EQ(e["containment"]["memory_peak_bytes"], nullptr);
  e.erase("containment");
  auto ex = exit_record_from_json(e, "exit.json");
  ASSERT_TRUE(ex.is_ok()) << ex.error().to_string();
  EXPECT_EQ(ex->containment, containment_report{});
  e["containment"] = {{"mechanism", "jail"}};
  auto bad = exit_record_from_json(e, "exit.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("containment: \"mechanism\" is neither cgroup nor subreaper"), std::string::npos)
    << bad.error().message();
}

TEST(keeper_records, no_exit_record_yet_is_not_ended_and_no_keeper_record_is_not_found) {
  test::temp_dir dir;
  auto e = read_exit_record(dir.path());
  ASSERT_TRUE(e.is_ok()) << e.error().to_string();
  EXPECT_EQ(e->state, keeper_exit_state::not_ended);
  auto k = read_keeper_record(dir.path());
  ASSERT_FALSE(k.is_ok());
  EXPECT_TRUE(k.error().is_not_found());
}

struct malformed_case {
  std::string name;
  std::string text;
  std::string expected; // part of the error message
};

class malformed_exit_record : public ::testing::TestWithParam<malformed_case> {};

TEST_P(malformed_exit_record, is_an_error_naming_the_file_and_the_member) {
  test::temp_dir dir;
  dir.write("exit.json", GetParam().text);
  auto e = read_exit_record(dir.path());
  ASSERT_FALSE(e.is_ok());
  EXPECT_TRUE(e.error().is_invalid_argument()) << e.error().to_string();
  EXPECT_NE(e.error().message().find("exit.json"), std::string::npos) << e.error().message();
  EXPECT_NE(e.error().message().find(GetParam().expected), std::string::npos) << e.error().message();
}

json discarded() { return json(json::value_t::discarded); }

INSTANTIATE_TEST_SUITE_P(
  keeper_records, malformed_exit_record,
  ::testing::Values(
    malformed_case{"not_json", "{\"format\": ", "invalid JSON"},
    malformed_case{"an_array", "[1, 2]", "must be a JSON object"},
    malformed_case{"deep", std::string(300, '[') + std::string(300, ']'), "nested deeper than 256"},
    malformed_case{"other_format", exit_text("format", "agent-dispatch-keeper"), "\"format\""},
    malformed_case{"future_version", exit_text("version", 2), "\"version\" is out of range"},
    malformed_case{"missing_end", exit_text("end", discarded()), "\"end\" is missing"},
    malformed_case{"unknown_end", exit_text("end", "vanished"), "\"end\" has an unknown value"},
    malformed_case{"string_exit_code", exit_text("exit_code", "0"), "\"exit_code\" must be an integer"},
    malformed_case{"float_exit_code", exit_text("exit_code", 1.5), "\"exit_code\" must be an integer"},
    malformed_case{"exit_code_out_of_range", exit_text("exit_code", 300), "\"exit_code\" is out of range"},
    malformed_case{"signaled_without_signal", exit_text("signal", 0), "\"signal\" must name"},
    malformed_case{"termination_not_object", exit_text("termination", "dispatcher"),
                   "\"termination\" must be an object"},
    malformed_case{"bad_signal_name",
                   exit_text("termination", json{{"initiator", "lease"}, {"signal", "SIGNOPE"}}),
                   "termination: \"signal\" names no signal"},
    malformed_case{"negative_count",
                   exit_text("stream", json{{"lines", -1}, {"bytes", 0}, {"cut_lines", 0}, {"cut_bytes", 0},
                                            {"dropped_line_bytes", 0}, {"write_failures", 0}}),
                   "stream: \"lines\" must be a non-negative integer"},
    malformed_case{"cut_more_than_written",
                   exit_text("stream", json{{"lines", 1}, {"bytes", 10}, {"cut_lines", 2}, {"cut_bytes", 0},
                                            {"dropped_line_bytes", 0}, {"write_failures", 0}}),
                   "cut more than was written"}),
  [](const auto& info) { return info.param.name; });

TEST(keeper_records, a_malformed_keeper_record_names_the_member) {
  test::temp_dir dir;
  json j = keeper_record_to_json(sample_keeper());
  j["agent_pid"] = 0;
  dir.write("keeper.json", dump_json(j));
  auto k = read_keeper_record(dir.path());
  ASSERT_FALSE(k.is_ok());
  EXPECT_NE(k.error().message().find("keeper.json"), std::string::npos) << k.error().message();
  EXPECT_NE(k.error().message().find("\"agent_pid\" is out of range"), std::string::npos) << k.error().message();
  j = keeper_record_to_json(sample_keeper());
  j["marker"] = 7;
  dir.write("keeper.json", dump_json(j));
  k = read_keeper_record(dir.path());
  ASSERT_FALSE(k.is_ok());
  EXPECT_NE(k.error().message().find("\"marker\" must be a string"), std::string::npos) << k.error().message();
}

TEST(keeper_records, a_fifo_a_folder_or_a_huge_file_is_refused_without_hanging) {
  test::temp_dir dir;
  ASSERT_EQ(::mkfifo((dir.path() / "exit.json").c_str(), 0644), 0);
  auto e = read_exit_record(dir.path());
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.error().message().find("is a FIFO"), std::string::npos) << e.error().message();

  fs::create_directory(dir.path() / "keeper.json");
  auto k = read_keeper_record(dir.path());
  ASSERT_FALSE(k.is_ok());
  EXPECT_NE(k.error().message().find("is a directory"), std::string::npos) << k.error().message();

  test::temp_dir big;
  big.write("exit.json", std::string(keeper_record_max_bytes + 1, ' '));
  e = read_exit_record(big.path());
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.error().message().find("more than the limit"), std::string::npos) << e.error().message();
}

TEST(keeper_records, signal_names) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_name(0), "SIG0");
}

TEST(keeper_liveness, a_live_process_with_its_start_token_is_alive_and_anything_else_gone) {
  auto token = process_start_token(::getpid());
  ASSERT_TRUE(token.is_ok());
  EXPECT_EQ(probe_process(::getpid(), *token), process_presence::alive);
  EXPECT_EQ(probe_process(::getpid(), *token + "1"), process_presence::gone); // a reused pid
  EXPECT_EQ(probe_process(::getpid(), ""), process_presence::gone);
  EXPECT_EQ(probe_process(0, *token), process_presence::gone);

  pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  auto child_token = process_start_token(child);
  ASSERT_TRUE(child_token.is_ok());
  // An exited child not yet reaped is a zombie: gone.
  for (int i = 0; i < 500 && probe_process(child, *child_token) == process_presence::alive; ++i)
    ::usleep(2000);
  EXPECT_EQ(probe_process(child, *child_token), process_presence::gone);
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  EXPECT_EQ(probe_process(child, *child_token), process_presence::gone);

  keeper_record r;
  r.keeper_pid = ::getpid();
  r.keeper_start_token = *token;
  EXPECT_EQ(probe_keeper(r), process_presence::alive);
}

} // namespace
} // namespace ad::runtime
