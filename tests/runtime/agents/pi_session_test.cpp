#include "runtime/agents/pi_session.hpp"

#include <chrono>
#include <cstdio>
#include <set>
#include <gtest/gtest.h>
#include <random>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

const std::filesystem::path fixtures = test::source_dir() / "tests/fixtures/agents/pi-sessions";

std::vector<std::string> strings(const json& array) {
  return array.get<std::vector<std::string>>();
}

TEST(pi_session, fixture_sessions_report_every_phase_and_unknown_reason) {
  auto manifest = parse_json(*read_file(fixtures / "cases.json"), "cases.json");
  ASSERT_TRUE(manifest);
  std::set<std::string> phases, reasons;
  for (const auto& c : (*manifest)["cases"]) {
    std::string file = c["file"];
    SCOPED_TRACE(file);
    // Tiny blocks make every entry span several reads; results must not change.
    for (size_t block : {size_t{7}, size_t{64}, size_t{64 * 1024}}) {
      pi_read_options options;
      options.block_size = block;
      auto state = read_pi_session_state(fixtures / file, nullptr, options);
      EXPECT_EQ(to_string(state.phase), c["phase"].get<std::string>()) << "block " << block;
      EXPECT_EQ(state.reason, c["reason"].get<std::string>()) << "block " << block;
      if (c.contains("expected")) {
        EXPECT_EQ(state.expected_tool_call_ids, strings(c["expected"]));
        EXPECT_EQ(state.completed_tool_call_ids, strings(c["completed"]));
        EXPECT_EQ(state.pending_tool_call_ids, strings(c["pending"]));
      } else {
        EXPECT_TRUE(state.expected_tool_call_ids.empty());
      }
    }
    phases.insert(c["phase"].get<std::string>());
    if (c["phase"] == "unknown")
      reasons.insert(c["reason"].get<std::string>());
  }
  EXPECT_EQ(phases, (std::set<std::string>{"starting", "awaiting-model", "tool-running",
                                           "finishing", "unknown"}));
  EXPECT_GE(reasons.size(), 17u);
}

TEST(pi_session, missing_path_or_file_is_starting) {
  auto s = read_pi_session_state("");
  EXPECT_EQ(s.phase, pi_phase::starting);
  EXPECT_EQ(s.reason, "native-session-path-missing");
  test::temp_dir dir;
  s = read_pi_session_state(dir.path() / "nope.jsonl");
  EXPECT_EQ(s.phase, pi_phase::starting);
  EXPECT_EQ(s.reason, "native-session-file-missing");
}

TEST(pi_session, an_entry_over_the_cap_is_unknown) {
  test::temp_dir dir;
  std::string big(5000, 'x');
  auto path = dir.write(
    "s.jsonl", R"({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"})"
               "\n"
               R"({"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":[{"type":"text","text":")"
               + big + "\"}]}}\n");
  pi_read_options options;
  options.block_size = 512;
  options.max_entry_bytes = 1024;
  auto s = read_pi_session_state(path, nullptr, options);
  EXPECT_EQ(s.phase, pi_phase::unknown);
  EXPECT_EQ(s.reason, "entry-too-large");
  options.max_entry_bytes = 1 << 20;
  EXPECT_EQ(read_pi_session_state(path, nullptr, options).phase, pi_phase::awaiting_model);
}

TEST(pi_session, a_session_that_grows_changes_phase) {
  test::temp_dir dir;
  std::string text =
    R"({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"})"
    "\n";
  auto path = dir.write("s.jsonl", text);
  EXPECT_EQ(read_pi_session_state(path).phase, pi_phase::starting);
  text += R"({"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":[]}})"
          "\n";
  dir.write("s.jsonl", text);
  EXPECT_EQ(read_pi_session_state(path).phase, pi_phase::awaiting_model);
  text += R"({"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}]}})"
          "\n";
  dir.write("s.jsonl", text);
  auto s = read_pi_session_state(path);
  EXPECT_EQ(s.phase, pi_phase::tool_running);
  EXPECT_EQ(s.pending_tool_call_ids, std::vector<std::string>{"c1"});
  text += R"({"type":"message","id":"r1","parentId":"a1","message":{"role":"toolResult","toolCallId":"c1","content":[]}})"
          "\n";
  dir.write("s.jsonl", text);
  EXPECT_EQ(read_pi_session_state(path).phase, pi_phase::awaiting_model);
}

// Random sessions read with block sizes from 1 byte to one block for the
// whole file: block boundaries must never change the answer.
TEST(pi_session, block_size_never_changes_the_phase_of_random_sessions) {
  test::temp_dir dir;
  std::mt19937 rng(77);
  std::set<pi_phase> seen;
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int round = 0; round < 150; ++round) {
    std::string text =
      R"({"type":"session","version":3,"id":"r","timestamp":"t","cwd":"/"})"
      "\n";
    std::string parent = "null";
    int entries = pick(12);
    for (int i = 0; i < entries; ++i) {
      std::string id = "e" + std::to_string(i);
      std::string filler(static_cast<size_t>(pick(200)), 'f');
      std::string message;
      switch (pick(5)) {
        case 0:
          message = R"({"role":"user","content":[{"type":"text","text":")" + filler + R"("}]})";
          break;
        case 1:
          message = R"({"role":"assistant","content":[{"type":"text","text":")" + filler + R"("}]})";
          break;
        case 2:
          message = R"({"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x","arguments":{}},{"type":"toolCall","id":"c2","name":"x","arguments":{}}]})";
          break;
        case 3:
          message = R"({"role":"toolResult","toolCallId":"c)" + std::to_string(1 + pick(2))
                    + R"(","content":[{"type":"text","text":")" + filler + R"("}]})";
          break;
        default:
          message.clear();
      }
      if (message.empty())
        text += R"({"type":"model_change","id":")" + id + R"(","parentId":)" + parent + "}";
      else
        text += R"({"type":"message","id":")" + id + R"(","parentId":)" + parent
                + R"(,"message":)" + message + "}";
      text += pick(4) == 0 ? "\r\n" : "\n";
      if (pick(6) == 0)
        text += "\n"; // blank lines are ignored
      parent = "\"" + id + "\"";
    }
    if (pick(4) == 0)
      text += R"({"type":"message","id":"torn","parentId")"; // still being written
    auto path = dir.write("r.jsonl", text);
    pi_read_options whole;
    whole.block_size = 1 << 20;
    auto reference = read_pi_session_state(path, nullptr, whole);
    seen.insert(reference.phase);
    for (size_t block : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{13}, size_t{64},
                         size_t{4096}}) {
      pi_read_options options;
      options.block_size = block;
      EXPECT_EQ(read_pi_session_state(path, nullptr, options), reference)
        << "round " << round << " block " << block << "\n" << text;
    }
  }
  EXPECT_EQ(seen.size(), 5u); // every phase occurred
}

// A 200 MB session: the phase must come from its tail, not a full read.
TEST(pi_session, phase_of_a_200_mb_session_is_read_from_the_tail) {
  test::temp_dir dir;
  auto path = dir.path() / "big.jsonl";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string header =
    R"({"type":"session","version":3,"id":"big","timestamp":"2026-11-29T12:00:00.000Z","cwd":"/work/repo"})"
    "\n";
  std::fwrite(header.data(), 1, header.size(), f);
  // One block of a chained conversation, repeated: tool call, result, answer.
  std::string filler(400, 'o');
  std::string block;
  for (int i = 0; i < 100; ++i) {
    std::string n = std::to_string(i);
    block += R"({"type":"message","id":"a)" + n + R"(","parentId":"p)" + n
             + R"(","message":{"role":"assistant","content":[{"type":"toolCall","id":"k)" + n
             + R"(","name":"read","arguments":{"path":"src/)" + n + R"(.cpp"}}]}})" + "\n";
    block += R"({"type":"message","id":"r)" + n + R"(","parentId":"a)" + n
             + R"(","message":{"role":"toolResult","toolCallId":"k)" + n
             + R"(","content":[{"type":"text","text":")" + filler + R"("}]}})" + "\n";
  }
  const uint64_t target = 200ull << 20;
  uint64_t written = header.size();
  while (written < target) {
    ASSERT_EQ(std::fwrite(block.data(), 1, block.size(), f), block.size());
    written += block.size();
  }
  std::string tail =
    R"({"type":"message","id":"u9","parentId":"r99","message":{"role":"user","content":[{"type":"text","text":"continue"}]}})"
    "\n"
    R"({"type":"message","id":"a9","parentId":"u9","message":{"role":"assistant","content":[{"type":"thinking","thinking":"two reads"},{"type":"toolCall","id":"t1","name":"read","arguments":{}},{"type":"toolCall","id":"t2","name":"read","arguments":{}}]}})"
    "\n"
    R"({"type":"message","id":"r9","parentId":"a9","message":{"role":"toolResult","toolCallId":"t2","content":[]}})"
    "\n";
  std::fwrite(tail.data(), 1, tail.size(), f);
  ASSERT_EQ(std::fclose(f), 0);
  ASSERT_GE(std::filesystem::file_size(path), target);

  pi_read_stats stats;
  auto start = std::chrono::steady_clock::now();
  auto state = read_pi_session_state(path, &stats);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
  std::printf("[ pi-session ] %.1f MB file: phase %s in %.3f ms, %llu bytes read, %llu entries\n",
              static_cast<double>(std::filesystem::file_size(path)) / (1 << 20),
              std::string(to_string(state.phase)).c_str(), ms,
              static_cast<unsigned long long>(stats.bytes_read),
              static_cast<unsigned long long>(stats.entries_examined));
  EXPECT_EQ(state.phase, pi_phase::tool_running);
  EXPECT_EQ(state.completed_tool_call_ids, std::vector<std::string>{"t2"});
  EXPECT_EQ(state.pending_tool_call_ids, std::vector<std::string>{"t1"});
  EXPECT_EQ(stats.entries_examined, 2u);
  // The header block plus one tail block (and the last byte).
  EXPECT_LE(stats.bytes_read, 2u * 64 * 1024 + 1);
  // bytes_read is the proof of a tail read; the time bound only catches a
  // pathological slowdown (a full read of 200 MB would take far longer).
  EXPECT_LT(ms, 1000.0);
}

} // namespace
} // namespace ad::runtime
