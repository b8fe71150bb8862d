#include "runtime/policy/policy.hpp"

#include <gtest/gtest.h>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

std::string fixture(const char* name) {
  auto text = read_file(test::source_dir() / "tests/fixtures/policy" / name);
  EXPECT_TRUE(text.is_ok()) << text.error().to_string();
  return text ? *text : std::string();
}

TEST(policy_default, reproduces_the_seed_targets_and_chain) {
  auto pol = parse_policy(default_policy_json(), "embedded");
  ASSERT_TRUE(pol.is_ok()) << pol.error().to_string();
  const policy& p = *pol;
  EXPECT_EQ(p.timezone, "Asia/Seoul");
  const policy_target* claude = p.find_target("claude-opus");
  ASSERT_NE(claude, nullptr);
  EXPECT_EQ(claude->model, "claude-opus-4-8");
  EXPECT_EQ(claude->reasoning_effort, "xhigh");
  const policy_target* codex = p.find_target("codex-terra");
  ASSERT_NE(codex, nullptr);
  EXPECT_EQ(codex->reasoning_effort, "high");
  const policy_target* pi = p.find_target("pi-laguna-s");
  ASSERT_NE(pi, nullptr);
  EXPECT_EQ(pi->exec_class, execution_class::local_model);
  EXPECT_TRUE(pi->selfcheck_required);
  EXPECT_TRUE(pi->native_resume);
  EXPECT_EQ(p.promotion.at("agy-gemini"), "claude-opus");
  EXPECT_EQ(p.promotion.at("claude-opus"), "codex-terra");
  EXPECT_EQ(p.promotion.count("codex-terra"), 0u);
  EXPECT_EQ(p.review_target, "codex-terra-review");
  EXPECT_EQ(p.budgets.recovery_failures, 10);
  EXPECT_EQ(p.budgets.selfcheck_incomplete, 10);
  EXPECT_EQ(p.budgets.review_no_progress, 10);
  EXPECT_EQ(p.backoff.initial_s, 2);
  EXPECT_EQ(p.backoff.coefficient, 2);
  EXPECT_EQ(p.backoff.max_s, 30);
  ASSERT_EQ(p.failure_patterns.size(), default_failure_patterns().size());
  EXPECT_EQ(p.failure_patterns[0].failure_class, "context-limit");
  std::vector<std::string> tactical;
  for (const auto& t : p.tactical_patterns)
    tactical.push_back(t.id);
  EXPECT_EQ(tactical, (std::vector<std::string>{"file-already-exists", "file-not-found",
                                                 "permission-denied"}));
}

TEST(policy_default, round_trips_through_policy_to_json) {
  auto pol = parse_policy(default_policy_json(), "embedded");
  ASSERT_TRUE(pol.is_ok());
  json again = policy_to_json(*pol);
  auto second = parse_policy(again, "again");
  ASSERT_TRUE(second.is_ok()) << second.error().to_string();
  EXPECT_EQ(policy_to_json(*second), again);
}

TEST(policy_file, two_fake_targets_example_is_a_complete_policy) {
  auto loaded = parse_policy_text(fixture("two_fake_targets.json"), "two_fake_targets.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  const policy& p = loaded->value;
  ASSERT_EQ(p.targets.size(), 2u);
  EXPECT_EQ(p.targets[0].argv.front(), "/opt/fake-agent");
  EXPECT_EQ(p.review_target, "sim-a");
  EXPECT_EQ(p.promotion.at("sim-a"), "sim-b");
  EXPECT_DOUBLE_EQ(p.backoff.initial_s, 0.01);
  EXPECT_DOUBLE_EQ(p.backoff.max_s, 0.1);
  // Keys the file omits keep the embedded defaults.
  EXPECT_EQ(p.budgets.recovery_failures, 10);
  EXPECT_EQ(p.tactical_patterns.size(), 3u);
  EXPECT_FALSE(p.prompts.worker.empty());
  EXPECT_EQ(loaded->document["targets"].size(), 2u);
}

TEST(policy_file, a_file_replaces_only_the_top_level_keys_it_sets) {
  auto loaded = parse_policy_text(R"({"budgets": {"recovery_failures": 3}})", "f.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->value.budgets.recovery_failures, 3);
  EXPECT_EQ(loaded->value.targets.size(), parse_policy(default_policy_json(), "d")->targets.size());
  EXPECT_EQ(loaded->value.review_target, "codex-terra-review");
}

TEST(policy_claims, default_warns_and_watches_with_fanotify_where_permitted) {
  auto pol = parse_policy(default_policy_json(), "embedded");
  ASSERT_TRUE(pol.is_ok()) << pol.error().to_string();
  EXPECT_EQ(pol->claims.on_violation, violation_action::warn);
  EXPECT_EQ(pol->claims.watch, claim_watch_mode::automatic);
  EXPECT_EQ(policy_to_json(*pol)["claims"],
            json::parse(R"({"on_violation": "warn", "watch": "auto"})"));
}

TEST(policy_claims, a_file_sets_block_and_forces_snapshots_and_an_omitted_field_keeps_its_default) {
  auto loaded = parse_policy_text(R"({"claims": {"on_violation": "block"}})", "f.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->value.claims.on_violation, violation_action::block);
  EXPECT_EQ(loaded->value.claims.watch, claim_watch_mode::automatic);
  loaded = parse_policy_text(R"({"claims": {"watch": "snapshots"}})", "f.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->value.claims.on_violation, violation_action::warn);
  EXPECT_EQ(loaded->value.claims.watch, claim_watch_mode::snapshots);
  EXPECT_EQ(policy_to_json(loaded->value)["claims"]["watch"], "snapshots");
}

TEST(policy_claims, a_document_without_the_section_keeps_the_defaults) {
  // Policies recorded in traces before the section existed.
  json doc = default_policy_json();
  doc.erase("claims");
  auto pol = parse_policy(doc, "old");
  ASSERT_TRUE(pol.is_ok()) << pol.error().to_string();
  EXPECT_EQ(pol->claims.on_violation, violation_action::warn);
  EXPECT_EQ(pol->claims.watch, claim_watch_mode::automatic);
}

TEST(policy_nodes, worker_nodes_come_from_the_policy_and_are_written_back_only_when_set) {
  auto pol = parse_policy(default_policy_json(), "embedded");
  ASSERT_TRUE(pol.is_ok());
  EXPECT_TRUE(pol->nodes.empty());
  EXPECT_FALSE(policy_to_json(*pol).contains("nodes"));
  auto loaded = parse_policy_text(R"({"nodes": ["10.0.0.7:7300", "[fd00::2]:7300"]})", "f.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->value.nodes, (std::vector<std::string>{"10.0.0.7:7300", "[fd00::2]:7300"}));
  EXPECT_EQ(policy_to_json(loaded->value)["nodes"][1], "[fd00::2]:7300");
  auto bad = parse_policy_text(R"({"nodes": ["10.0.0.7:7300", "build-host"]})", "f.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("/nodes/1"), std::string::npos) << bad.error().message();
  EXPECT_NE(bad.error().message().find("HOST:PORT"), std::string::npos) << bad.error().message();
}

TEST(policy_processes, none_is_kept_alive_by_default_and_named_ones_are_written_back) {
  auto pol = parse_policy(default_policy_json(), "embedded");
  ASSERT_TRUE(pol.is_ok());
  EXPECT_TRUE(pol->processes.keep_alive.empty());
  EXPECT_FALSE(policy_to_json(*pol).contains("processes"));
  auto loaded = parse_policy_text(R"({"processes": {"keep_alive": ["sccache", "gradle-daemon"]}})", "f.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->value.processes.keep_alive, (std::vector<std::string>{"sccache", "gradle-daemon"}));
  EXPECT_EQ(policy_to_json(loaded->value)["processes"]["keep_alive"][1], "gradle-daemon");
  auto bad = parse_policy_text(R"({"processes": {"keep_alive": ["/usr/bin/sccache"]}})", "f.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("/processes/keep_alive/0: expected a process name"), std::string::npos)
    << bad.error().message();
}

struct bad_case {
  const char* name;
  const char* text;
  const char* pointer;
  const char* expected;
  const char* found;
};

class policy_validation : public ::testing::TestWithParam<bad_case> {};

TEST_P(policy_validation, names_file_pointer_expected_and_found) {
  const auto& c = GetParam();
  auto loaded = parse_policy_text(c.text, "/etc/my-policy.json");
  ASSERT_FALSE(loaded.is_ok()) << c.name;
  const std::string msg = loaded.error().message();
  EXPECT_TRUE(loaded.error().is_invalid_argument());
  EXPECT_NE(msg.find("/etc/my-policy.json: "), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::string(c.pointer) + ": expected "), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.expected), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.found), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
  cases, policy_validation,
  ::testing::Values(
    bad_case{"unknown_top_level_key", R"({"colour": "red"})", "/colour", "no unknown key",
             "\"red\""},
    bad_case{"unknown_target_key",
             R"({"targets": [{"id": "a", "adapter": "codex", "model": "m",
                 "execution_class": "cloud_model", "speed": 3}],
                 "rules": [], "promotion": {}, "review_target": "a"})",
             "/targets/0/speed", "no unknown key", "3"},
    bad_case{"unknown_candidate",
             R"({"rules": [{"id": "r", "stage": "worker", "lanes": ["cloud"], "grades": [1, 10],
                 "candidates": ["claude-opus", "nobody"]}]})",
             "/rules/0/candidates/1", "the id of a target", "\"nobody\""},
    bad_case{"unknown_promotion_target", R"({"promotion": {"claude-opus": "ghost"}})",
             "/promotion/claude-opus", "the id of a target", "\"ghost\""},
    bad_case{"unknown_review_target", R"({"review_target": "ghost"})", "/review_target",
             "the id of a target", "\"ghost\""},
    bad_case{"bad_execution_class",
             R"({"targets": [{"id": "a", "adapter": "codex", "model": "m",
                 "execution_class": "gpu"}], "rules": [], "promotion": {}, "review_target": "a"})",
             "/targets/0/execution_class", "local_model or cloud_model", "\"gpu\""},
    bad_case{"command_without_argv",
             R"({"targets": [{"id": "a", "adapter": "command", "model": "m",
                 "execution_class": "cloud_model"}], "rules": [], "promotion": {},
                 "review_target": "a"})",
             "/targets/0/argv", "an argument template", "nothing"},
    bad_case{"bad_regex",
             R"({"tactical_patterns": [{"id": "x", "regexes": ["(unclosed"], "instruction": "i"}]})",
             "/tactical_patterns/0/regexes/0", "a valid regular expression", "(unclosed"},
    bad_case{"backreference",
             R"({"tactical_patterns": [{"id": "x", "regexes": ["(a)\\1"], "instruction": "i"}]})",
             "/tactical_patterns/0/regexes/0", "RE2 syntax", "invalid escape sequence"},
    bad_case{"grade_out_of_range",
             R"({"rules": [{"id": "r", "stage": "worker", "lanes": ["cloud"], "grades": [0, 11],
                 "candidates": ["claude-opus"]}]})",
             "/rules/0/grades/0", "an integer in 1..10", "0"},
    bad_case{"review_rule",
             R"({"rules": [{"id": "r", "stage": "review", "lanes": ["cloud"], "grades": [1, 10],
                 "candidates": ["claude-opus"]}]})",
             "/rules/0/stage", "worker or selfcheck", "\"review\""},
    bad_case{"bad_window",
             R"({"rules": [{"id": "r", "stage": "worker", "lanes": ["cloud"], "grades": [1, 10],
                 "time_window": {"start": "25:00", "end": "06:00"}, "candidates": ["claude-opus"]}]})",
             "/rules/0/time_window/start", "HH:MM", "\"25:00\""},
    bad_case{"negative_backoff", R"({"backoff": {"initial_s": -1}})", "/backoff/initial_s",
             "a number of seconds >= 0", "-1"},
    bad_case{"unknown_violation_action", R"({"claims": {"on_violation": "kill"}})",
             "/claims/on_violation", "warn or block", "\"kill\""},
    bad_case{"unknown_watch_mode", R"({"claims": {"watch": "inotify"}})", "/claims/watch",
             "auto or snapshots", "\"inotify\""},
    bad_case{"unknown_claims_key", R"({"claims": {"on_violation": "warn", "mode": 1}})",
             "/claims/mode", "no unknown key (allowed: on_violation, watch)", "1"},
    bad_case{"promotion_cycle", R"({"promotion": {"claude-opus": "codex-terra", "codex-terra": "claude-opus"}})",
             "/promotion/claude-opus", "without a cycle", "\"codex-terra\""}),
  [](const auto& info) { return std::string(info.param.name); });

TEST(policy_file, a_huge_regex_is_refused_without_compiling_it) {
  // A backtracking compiler crashed on this; the limit refuses it first.
  std::string text = R"({"failure_patterns": [{"failure_class": "x", "regexes": [")" +
                     std::string(100000, '(') + R"("]}]})";
  auto loaded = parse_policy_text(text, "/tmp/p.json");
  ASSERT_FALSE(loaded.is_ok());
  const auto msg = loaded.error().message();
  EXPECT_NE(msg.find("/failure_patterns/0/regexes/0: expected a valid regular expression (RE2 "
                     "syntax, at most 2000 characters)"),
            std::string::npos)
    << msg.substr(0, 400);
  EXPECT_NE(msg.find("100000 characters long"), std::string::npos) << msg.substr(0, 400);
  EXPECT_LT(msg.size(), 1000u) << "the expression is shown cut";
}

// std::regex_match recursed once per character of the time zone and
// overflowed the stack from about 26,500 characters on (SIGSEGV, no
// message).
TEST(policy_file, a_100000_character_timezone_is_refused_naming_the_field) {
  std::string zone = "Asia/" + std::string(100000, 'S');
  auto loaded = parse_policy_text(R"({"timezone": ")" + zone + R"("})", "/tmp/p.json");
  ASSERT_FALSE(loaded.is_ok());
  const auto msg = loaded.error().message();
  EXPECT_NE(msg.find("/tmp/p.json: /timezone: expected at most 256 characters, found a string of "
                     "100005 characters"),
            std::string::npos)
    << msg.substr(0, 400);
  EXPECT_LT(msg.size(), 400u);
}

TEST(policy_file, every_string_field_has_a_bound) {
  auto refused = [](const std::string& text, const std::string& pointer) {
    auto loaded = parse_policy_text(text, "p.json");
    if (loaded.is_ok())
      return ::testing::AssertionFailure() << pointer << " accepted";
    const auto msg = loaded.error().message();
    if (msg.find(pointer) == std::string::npos ||
        msg.find(": expected at most ") == std::string::npos || msg.size() > 1000)
      return ::testing::AssertionFailure() << msg.substr(0, 400);
    return ::testing::AssertionSuccess();
  };
  std::string name(257, 'n');
  std::string text((64 << 10) + 1, 't');
  auto target = [](const std::string& extra) {
    return R"({"targets": [{"id": "a", "adapter": "command", "model": "m",
               "execution_class": "cloud_model", "argv": ["x"])" + extra +
           R"(}], "rules": [], "promotion": {}, "review_target": "a"})";
  };
  EXPECT_TRUE(refused(R"({"review_target": ")" + name + R"("})", "/review_target"));
  EXPECT_TRUE(refused(target(R"(, "env": {")" + name + R"(": "v"})"), "/targets/0/env/nnnnn"));
  EXPECT_TRUE(refused(target(R"(, "env": {"V": ")" + text + R"("})"), "/targets/0/env/V"));
  EXPECT_TRUE(refused(R"({"nodes": [")" + name + R"(:7300"]})", "/nodes/0"));
  EXPECT_TRUE(refused(R"({"promotion": {")" + name + R"(": "a"}})", "/promotion/nnnnn"));
  auto prompts = default_policy_json()["prompts"];
  prompts["worker"] = text;
  EXPECT_TRUE(refused(json{{"prompts", prompts}}.dump(), "/prompts/worker"));
  // At the bound, accepted.
  prompts["worker"] = std::string(64 << 10, 't');
  EXPECT_TRUE(parse_policy_text(json{{"prompts", prompts}}.dump(), "p.json").is_ok());
}

TEST(policy_file, shapes_are_checked_without_regular_expressions) {
  for (const char* zone : {"UTC", "Asia/Seoul", "Etc/GMT+9", "America/Argentina/Buenos_Aires"})
    EXPECT_TRUE(parse_policy_text(R"({"timezone": ")" + std::string(zone) + R"("})", "p").is_ok())
      << zone;
  for (const char* zone : {"", "/UTC", "Asia//Seoul", "Asia/", "Asia/Se oul", "../etc"})
    EXPECT_FALSE(parse_policy_text(R"({"timezone": ")" + std::string(zone) + R"("})", "p").is_ok())
      << zone;
  for (const char* node : {"h:1", "10.0.0.7:65535", "[::1]:7300"})
    EXPECT_TRUE(parse_policy_text(R"({"nodes": [")" + std::string(node) + R"("]})", "p").is_ok())
      << node;
  for (const char* node : {"h", "h:", "h:123456", "a:b:1", "[]:1", "[zz]:1", "h st:1", ":1"})
    EXPECT_FALSE(parse_policy_text(R"({"nodes": [")" + std::string(node) + R"("]})", "p").is_ok())
      << node;
  auto window = [](const std::string& start) {
    return R"({"rules": [{"id": "r", "stage": "worker", "lanes": ["cloud"], "grades": [1, 10],
               "time_window": {"start": ")" + start + R"(", "end": "06:00"}, "candidates": ["claude-opus"]}]})";
  };
  for (const char* t : {"00:00", "23:59", "09:30"})
    EXPECT_TRUE(parse_policy_text(window(t), "p").is_ok()) << t;
  for (const char* t : {"24:00", "12:60", "9:30", "09:3", "0930", "09:30 "})
    EXPECT_FALSE(parse_policy_text(window(t), "p").is_ok()) << t;
}

TEST(policy_file, invalid_json_names_the_file) {
  auto loaded = parse_policy_text("{ nope", "/tmp/p.json");
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.error().message().find("/tmp/p.json"), std::string::npos);
}

TEST(policy_load, explicit_file_wins_over_workspace_file) {
  test::temp_dir ws;
  ws.write("agent-dispatch.json", R"({"budgets": {"recovery_failures": 4}})");
  auto explicit_file = ws.write("other.json", R"({"budgets": {"recovery_failures": 6}})");
  auto from_ws = load_policy(std::nullopt, ws.path());
  ASSERT_TRUE(from_ws.is_ok()) << from_ws.error().to_string();
  EXPECT_EQ(from_ws->value.budgets.recovery_failures, 4);
  EXPECT_EQ(from_ws->source, (ws.path() / "agent-dispatch.json").string());
  auto from_flag = load_policy(explicit_file, ws.path());
  ASSERT_TRUE(from_flag.is_ok());
  EXPECT_EQ(from_flag->value.budgets.recovery_failures, 6);
}

TEST(policy_load, without_a_file_the_default_applies_and_a_missing_flag_file_fails) {
  test::temp_dir ws;
  auto d = load_policy(std::nullopt, ws.path());
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->source, "embedded default policy");
  EXPECT_EQ(d->document, default_policy_json());
  auto missing = load_policy(ws.path() / "nope.json", ws.path());
  ASSERT_FALSE(missing.is_ok());
  EXPECT_TRUE(missing.error().is_not_found());
  EXPECT_NE(missing.error().message().find("nope.json"), std::string::npos);
}

TEST(policy_load, an_invalid_workspace_file_is_an_error_not_a_silent_default) {
  test::temp_dir ws;
  ws.write("agent-dispatch.json", R"({"review_target": "ghost"})");
  auto r = load_policy(std::nullopt, ws.path());
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("agent-dispatch.json: /review_target"), std::string::npos);
}

} // namespace
} // namespace ad::runtime
