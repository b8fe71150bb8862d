// `agent-dispatch replay` as a user runs it: exit 0 on an identical replay,
// 1 with the first divergence printed under another policy, 2 for a trace
// that cannot be read (naming the line).
#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/core/files.hpp"
#include "runtime/trace/trace_format.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::tools {
namespace {

struct command_result {
  int exit_code = -1;
  std::string out;
};

command_result run_replay(const std::string& args) {
  // timeout: a replay that never ends fails the test instead of hanging it.
  auto cmd = "timeout 60 " + (test::binary_dir() / "agent-dispatch").string() + " replay " + args
             + " 2>&1";
  command_result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p)
    return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  int st = ::pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string corpus(const std::string& name) {
  return (test::source_dir() / "tests" / "traces" / "corpus" / (name + ".jsonl")).string();
}

TEST(replay_command, an_identical_replay_exits_0) {
  auto r = run_replay(corpus("failure-classes"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("replay: identical:"), std::string::npos) << r.out;
}

// The policy recorded in a corpus trace's header, with `edit` applied.
std::string recorded_policy_text(const std::string& name,
                                 const std::function<void(nlohmann::json&)>& edit) {
  auto text = runtime::read_file(corpus(name));
  EXPECT_TRUE(text.is_ok());
  if (!text.is_ok())
    return "{}";
  auto header = nlohmann::json::parse(text->substr(0, text->find('\n')));
  auto pol = header.at("policy");
  edit(pol);
  return pol.dump();
}

TEST(replay_command, another_policy_prints_the_first_divergence_and_exits_1) {
  // The recorded policy with a failure budget of 1: the first failure the
  // recorded run failed over from now blocks.
  test::temp_dir dir;
  auto pol = dir.write("policy.json", recorded_policy_text("failure-classes", [](auto& p) {
                         p["budgets"]["recovery_failures"] = 1;
                       }));
  auto r = run_replay(corpus("failure-classes") + " --policy " + pol.string());
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("divergence at record"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("message: record"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("differs at /step: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("recent inbound messages:"), std::string::npos) << r.out;
}

TEST(replay_command, a_policy_that_would_read_what_the_run_never_read_says_so) {
  // Merged over the default policy, the budget file brings the default
  // targets and their quota probes: the replayed scheduler machine asks for
  // an admission quota batch the recorded run never ran, whose answer no
  // trace can hold. Replay reports that command as the divergence.
  test::temp_dir dir;
  auto pol = dir.write("policy.json", R"({"budgets": {"recovery_failures": 1}})");
  auto r = run_replay(corpus("failure-classes") + " --policy " + pol.string());
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("(scheduler.commands)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"command\":\"run_quota_probes\""), std::string::npos) << r.out;
}

TEST(replay_command, a_broken_trace_exits_2_naming_the_line) {
  test::temp_dir dir;
  auto text = runtime::read_file(corpus("clean"));
  ASSERT_TRUE(text.is_ok());
  auto first_lines = text->substr(0, text->find('\n', text->find('\n') + 1) + 1);
  auto bad = dir.write("bad.jsonl", first_lines + "{\"seq\": \"x\"}\n");
  auto r = run_replay(bad.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("bad.jsonl:3:"), std::string::npos) << r.out;
}

TEST(replay_command, an_unknown_policy_time_zone_names_the_trace_and_the_field) {
  test::temp_dir dir;
  auto pol = dir.write("policy.json", recorded_policy_text("clean", [](nlohmann::json& p) {
    p["timezone"] = "Nowhere/Atlantis";
  }));
  auto r = run_replay(corpus("clean") + " --policy " + pol.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("clean.jsonl: policy field \"timezone\" (Nowhere/Atlantis"),
            std::string::npos) << r.out;
}

TEST(replay_command, a_damaged_recorded_zone_names_the_trace_and_the_header_field) {
  test::temp_dir dir;
  auto text = runtime::read_file(corpus("clean"));
  ASSERT_TRUE(text.is_ok());
  auto eol = text->find('\n');
  auto header = nlohmann::json::parse(text->substr(0, eol));
  header["time_zone"] = "Europe/Berlin";
  header["policy"]["timezone"] = "Europe/Berlin";
  header["time_zone_tzif"] = "00112233"; // hex, but not TZif
  header["policy_sha256"] = runtime::trace_policy_hash(header["policy"]);
  auto bad = dir.write("zone.jsonl", header.dump() + text->substr(eol));
  auto r = run_replay(bad.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("zone.jsonl: header field \"time_zone_tzif\" (the zone Europe/Berlin"),
            std::string::npos) << r.out;
}

TEST(replay_command, a_trace_cut_by_a_crash_replays_what_it_holds_and_says_so) {
  test::temp_dir dir;
  auto text = runtime::read_file(corpus("clean"));
  ASSERT_TRUE(text.is_ok());
  auto cut_at = text->size() / 2;
  while ((*text)[cut_at] == '\n' || (*text)[cut_at - 1] == '\n')
    ++cut_at;
  auto lines = static_cast<std::size_t>(std::count(text->begin(), text->begin() + cut_at, '\n'));
  auto cut = dir.write("cut.jsonl", text->substr(0, cut_at));
  auto r = run_replay(cut.string());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("cut.jsonl:" + std::to_string(lines + 1) + ": the last line was cut off"),
            std::string::npos)
    << r.out;
  EXPECT_NE(r.out.find("replay: identical:"), std::string::npos) << r.out;
}

TEST(replay_command, an_inbound_record_whose_body_is_not_an_object_exits_2_naming_the_line) {
  test::temp_dir dir;
  auto text = runtime::read_file(corpus("clean"));
  ASSERT_TRUE(text.is_ok());
  std::string out;
  std::size_t line = 0, damaged = 0, start = 0;
  while (start < text->size()) {
    auto end = text->find('\n', start);
    auto one = text->substr(start, end - start);
    ++line;
    if (damaged == 0 && one.find("\"kind\":\"scheduler.event\"") != std::string::npos) {
      auto j = nlohmann::json::parse(one);
      j["body"] = "x";
      one = j.dump();
      damaged = line;
    }
    out += one + "\n";
    start = end + 1;
  }
  ASSERT_GT(damaged, 0u);
  auto bad = dir.write("bad.jsonl", out);
  auto r = run_replay(bad.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("bad.jsonl:" + std::to_string(damaged) + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"body\" must be a JSON object"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
}

TEST(replay_command, a_record_of_the_wrong_shape_is_reported_in_plain_words) {
  // A scheduler.event record whose scan reading's "changed" is text: the
  // replayed scheduler machine cannot read it, and the damage is a
  // divergence naming the record, not an exception's text on the terminal.
  test::temp_dir dir;
  auto text = runtime::read_file(corpus("clean"));
  ASSERT_TRUE(text.is_ok());
  std::string out;
  std::size_t start = 0;
  bool damaged = false;
  while (start < text->size()) {
    auto end = text->find('\n', start);
    auto one = text->substr(start, end - start);
    if (!damaged && one.find("\"event\":\"scan_read\"") != std::string::npos) {
      auto j = nlohmann::json::parse(one);
      j["body"]["reading"]["changed"] = "moved";
      one = j.dump();
      damaged = true;
    }
    out += one + "\n";
    start = end + 1;
  }
  ASSERT_TRUE(damaged);
  auto bad = dir.write("bad.jsonl", out);
  auto r = run_replay(bad.string());
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("scheduler.event: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("json.exception"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("unhandled exception"), std::string::npos) << r.out;
}

TEST(replay_command, a_fifo_or_a_device_is_refused_at_once) {
  test::temp_dir dir;
  auto fifo = dir.path() / "trace.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = run_replay(fifo.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is a FIFO, expected a regular file"), std::string::npos) << r.out;
  auto zero = dir.path() / "zero.jsonl";
  std::filesystem::create_symlink("/dev/zero", zero);
  r = run_replay(zero.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is a character device, expected a regular file"), std::string::npos)
    << r.out;
}

TEST(replay_command, a_deeply_nested_line_is_an_error_not_a_crash) {
  test::temp_dir dir;
  auto text = runtime::read_file(corpus("clean"));
  ASSERT_TRUE(text.is_ok());
  auto first_lines = text->substr(0, text->find('\n', text->find('\n') + 1) + 1);
  std::string deep = "{\"seq\":3,\"dir\":\"edge\",\"kind\":\"x\",\"body\":"
                     + std::string(200000, '[') + std::string(200000, ']') + "}\n";
  auto bad = dir.write("deep.jsonl", first_lines + deep);
  auto r = run_replay(bad.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("deep.jsonl:3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nested deeper than 256 levels"), std::string::npos) << r.out;
}

} // namespace
} // namespace ad::tools
