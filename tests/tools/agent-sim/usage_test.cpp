// The simulator's usage read through the dispatcher's readers
// (runtime/agents/usage_reader.hpp) as the real CLIs' is: by default the
// captures' figures per answered request, else the scenario's; a run that
// fails half-way keeps what it spent before (codex's from its rollout), and
// a usage action changes the figures of the requests after it. The run
// through the binary (a scenario's usage and a usage action) is in
// binary_test.cpp; the comparison with each capture in
// realcli_shape_test.cpp.
#include <gtest/gtest.h>

#include <sstream>

#include "runtime/agents/usage_reader.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/agent-sim/emitter.hpp"

namespace ad::agent_sim {
namespace {

namespace fs = std::filesystem;
using runtime::token_usage;
using runtime::usage_format;

struct sim_usage {
  token_usage read; // as an attempt settles it
  bool closed = false;
};

usage_format format_of(persona p) {
  return p == persona::codex ? usage_format::codex : p == persona::claude ? usage_format::claude : usage_format::pi;
}

// steps answered requests before the end; `before` applies before the
// first, `after` (when not empty) after the first step.
sim_usage run(persona p, int steps, bool fail, const token_usage& before, const token_usage& after = {}) {
  test::temp_dir tmp;
  runtime::manual_clock clock(1795946400000);
  id_source ids(7);
  invocation inv;
  inv.as = p;
  inv.model = "model-x";
  inv.prompt = "Read /ws/agent-task/auth/02_api/PLAN-cloud-G05.md and complete the task.";
  inv.session_dir = (tmp.path() / "pi-sessions").string();
  emit_context ctx{inv, "/ws", &clock, &ids, {}, [](double) { return true; }};
  ctx.env.codex_home = (tmp.path() / "codex").string();
  ctx.env.claude_max_retries = 0;
  std::ostringstream out, err;
  auto e = make_emitter(ctx, out, err);
  e->set_request_usage(before);
  e->begin();
  for (int i = 1; i <= steps; ++i) {
    e->step(i, "sed -n 1,80p PLAN-cloud-G05.md");
    if (i == 1 && !after.empty()) e->set_request_usage(overlay(before, after));
  }
  if (fail) {
    action a;
    a.kind = action_kind::fail;
    a.failure = failure_kind::model_unavailable;
    e->failure(describe_failure(a, inv.model, "/ws", clock.now()));
  } else {
    e->success("Finished.");
  }
  runtime::usage_reader reader(format_of(p));
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) reader.on_line(line);
  std::optional<token_usage> session;
  if (runtime::wants_session_usage(reader, 0))
    for (const auto& file : e->side_files()) {
      auto read = runtime::read_session_usage(format_of(p), file, 0);
      EXPECT_TRUE(read.is_ok()) << read.error().to_string();
      if (read.is_ok()) session = *read;
    }
  return {runtime::settle_usage(reader, 0, session), reader.closed()};
}

token_usage times(int n, int64_t in, int64_t out, std::optional<int64_t> cache_read, std::optional<int64_t> cache_write,
                  std::optional<int64_t> reasoning, std::optional<double> cost = std::nullopt) {
  token_usage u;
  u.input_tokens = n * in;
  u.output_tokens = n * out;
  if (cache_read) u.cache_read_tokens = n * *cache_read;
  if (cache_write) u.cache_write_tokens = n * *cache_write;
  if (reasoning) u.reasoning_tokens = n * *reasoning;
  if (cost) u.cost_usd = n * *cost;
  return u;
}

void expect_usage(const token_usage& got, const token_usage& want) {
  EXPECT_EQ(got.input_tokens, want.input_tokens);
  EXPECT_EQ(got.output_tokens, want.output_tokens);
  EXPECT_EQ(got.cache_read_tokens, want.cache_read_tokens);
  EXPECT_EQ(got.cache_write_tokens, want.cache_write_tokens);
  EXPECT_EQ(got.reasoning_tokens, want.reasoning_tokens);
  ASSERT_EQ(got.cost_usd.has_value(), want.cost_usd.has_value());
  if (want.cost_usd) EXPECT_NEAR(*got.cost_usd, *want.cost_usd, 1e-12);
}

TEST(sim_usage, by_default_each_answered_request_reports_what_the_captures_mock_served) {
  // Two steps and the final answer: three requests.
  auto codex = run(persona::codex, 2, false, {});
  EXPECT_TRUE(codex.closed);
  expect_usage(codex.read, times(3, 1200, 40, 0, 0, 0));
  auto claude = run(persona::claude, 2, false, {});
  EXPECT_TRUE(claude.closed);
  expect_usage(claude.read, times(3, 321, 12, 0, 0, 0, 0.001905)); // claude-opus-4-8's list price
  expect_usage(run(persona::pi, 2, false, {}).read, times(3, 1234, 56, 0, 0, std::nullopt));
}

TEST(sim_usage, a_scenarios_figures_are_read_back_in_each_clis_format) {
  token_usage u;
  u.input_tokens = 1000;
  u.output_tokens = 50;
  u.cache_read_tokens = 200;
  u.cache_write_tokens = 30;
  u.reasoning_tokens = 7;
  u.cost_usd = 0.01;
  // codex reports no cost; pi no reasoning count.
  expect_usage(run(persona::codex, 2, false, u).read, times(3, 1000, 50, 200, 30, 7));
  expect_usage(run(persona::claude, 2, false, u).read, times(3, 1000, 50, 200, 30, 7, 0.01));
  expect_usage(run(persona::pi, 2, false, u).read, times(3, 1000, 50, 200, 30, std::nullopt, 0.01));
  // Fields left out keep the CLI's figures.
  token_usage input_only;
  input_only.input_tokens = 10;
  expect_usage(run(persona::claude, 0, false, input_only).read, times(1, 10, 12, 0, 0, 0, 0.00035));
}

TEST(sim_usage, a_run_that_fails_half_way_keeps_what_it_spent_before) {
  // One answered step, then a failed request.
  auto codex = run(persona::codex, 1, true, {});
  EXPECT_FALSE(codex.closed) << "codex prints no usage for a failed turn";
  expect_usage(codex.read, times(1, 1200, 40, 0, 0, 0)); // from the rollout
  expect_usage(run(persona::claude, 1, true, {}).read, times(1, 321, 12, 0, 0, 0, 0.001905));
  expect_usage(run(persona::pi, 1, true, {}).read, times(1, 1234, 56, 0, 0, std::nullopt));
}

TEST(sim_usage, a_change_applies_to_the_requests_after_it) {
  token_usage more;
  more.output_tokens = 400;
  // Step 1 at 1200 / 40, step 2 and the answer at 1200 / 400.
  auto codex = run(persona::codex, 2, false, {}, more);
  EXPECT_EQ(codex.read.output_tokens, 40 + 2 * 400);
  EXPECT_EQ(codex.read.input_tokens, 3 * 1200);
  auto pi = run(persona::pi, 2, false, {}, more);
  EXPECT_EQ(pi.read.output_tokens, 56 + 2 * 400);
}

} // namespace
} // namespace ad::agent_sim
