#pragma once
// The usage checks of the contract tests: what the mock provider served
// (its request log's "usage", the figures of each answer, summed over the
// requests it answered in full) against what runtime/agents/usage_reader
// reads from the real CLI's stdout (and, for a codex turn that failed, from
// its rollout, as an attempt settles it). Test-only.

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "runtime/agents/usage_reader.hpp"
#include "tests/contract/contract_run.hpp"

namespace ad::contract {

inline runtime::usage_format format_of(cli c) {
  switch (c) {
    case cli::codex: return runtime::usage_format::codex;
    case cli::claude: return runtime::usage_format::claude;
    case cli::pi: return runtime::usage_format::pi;
  }
  return runtime::usage_format::none;
}

// The usage the mock served, summed over the requests it answered in full
// (an HTTP error, a dropped request and a cut or failed stream count none).
inline runtime::token_usage served(const scenario_run& r) {
  runtime::token_usage sum;
  for (const auto& line : r.requests) {
    if (!line.contains("usage") || line["usage"].is_null()) continue;
    auto u = runtime::usage_from_json(line["usage"]);
    EXPECT_TRUE(u.is_ok()) << line.dump();
    if (u.is_ok()) sum += *u;
  }
  return sum;
}

// The rollout codex wrote under the run's HOME, if any.
inline std::optional<std::filesystem::path> codex_rollout(const scenario_run& r) {
  std::error_code ec;
  auto root = r.home / ".codex" / "sessions";
  if (!std::filesystem::exists(root, ec)) return std::nullopt;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root, ec))
    if (e.is_regular_file() && e.path().extension() == ".jsonl") return e.path();
  return std::nullopt;
}

// The attempt's usage as the dispatcher settles it: the stream's figures,
// or the rollout's when codex's turn did not complete.
inline runtime::token_usage read_usage(cli c, const scenario_run& r) {
  runtime::usage_reader reader(format_of(c));
  std::size_t at = 0;
  while (at < r.out.size()) {
    auto nl = r.out.find('\n', at);
    reader.on_line(std::string_view(r.out).substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  std::optional<runtime::token_usage> session;
  if (runtime::wants_session_usage(reader, 0))
    if (auto file = codex_rollout(r)) {
      auto read = runtime::read_session_usage(format_of(c), *file, 0);
      EXPECT_TRUE(read.is_ok()) << read.error().to_string();
      if (read.is_ok()) session = *read;
    }
  return runtime::settle_usage(reader, 0, session);
}

// Every token count the mock told is what the reader read; reasoning too
// where the API carries it (only the Responses API always does).
inline void expect_usage_as_served(cli c, const scenario_run& r) {
  auto want = served(r);
  auto got = read_usage(c, r);
  SCOPED_TRACE(std::string(name_of(c)) + " usage, served " + runtime::dump_json(runtime::usage_to_json(want))
               + ", read " + runtime::dump_json(runtime::usage_to_json(got)));
  ASSERT_TRUE(want.input_tokens.has_value()) << "the mock answered no request with usage";
  EXPECT_EQ(got.input_tokens, want.input_tokens);
  EXPECT_EQ(got.output_tokens, want.output_tokens);
  EXPECT_EQ(got.cache_read_tokens, want.cache_read_tokens);
  EXPECT_EQ(got.cache_write_tokens, want.cache_write_tokens);
  if (want.reasoning_tokens) {
    EXPECT_EQ(got.reasoning_tokens, want.reasoning_tokens);
  }
}

} // namespace ad::contract
