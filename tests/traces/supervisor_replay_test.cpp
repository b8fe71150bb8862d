// The supervisor actor replayed on CAF's deterministic scheduler: fed every
// recorded failure and quota batch of a trace in order, it decides exactly
// what the supervisor's decision function decides with the cool-downs
// carried along, and an edge the actor rejects comes back as the actor's
// own error.
#include <gtest/gtest.h>

#include "runtime/replay/pure_replay.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/replay/replay_run.hpp"
#include "tools/replay/supervisor_replay.hpp"

namespace ad::tools {
namespace {

using runtime::json;

TEST(supervisor_replay, the_actor_decides_every_recorded_failure_as_the_decision_function) {
  auto trace = runtime::read_trace(test::source_dir() / "tests" / "traces" / "corpus" /
                                   "failure-classes.jsonl");
  ASSERT_TRUE(trace.is_ok()) << trace.error().message();
  auto pol = recorded_policy(*trace);
  ASSERT_TRUE(pol.is_ok());
  auto zone = runtime::time_zone_from_tzif(pol->timezone, trace->header.time_zone_tzif);
  ASSERT_TRUE(zone.is_ok()) << zone.error().message();

  supervisor_replay actor(*pol, *zone);
  runtime::replay_handlers pure;
  runtime::add_pure_replay_handlers(pure, *pol, *zone);
  auto roots = replay_roots();
  int failures = 0, with_cooldowns = 0;
  for (const auto& r : trace->records) {
    if (r.kind != "supervisor.failure" && r.kind != "supervisor.quota_batch")
      continue;
    auto body = roots.expand(r.body);
    if (r.kind == "supervisor.quota_batch") {
      ASSERT_TRUE(actor.quota_batch(body).is_ok());
      ASSERT_TRUE(pure.at(r.kind).fn(body).is_ok());
      continue;
    }
    auto by_actor = actor.failure(body);
    auto by_function = pure.at(r.kind).fn(body);
    ASSERT_TRUE(by_actor.is_ok()) << by_actor.error().message();
    ASSERT_TRUE(by_function.is_ok());
    ASSERT_EQ(by_actor->size(), 1u);
    EXPECT_EQ((*by_actor)[0].kind, "supervisor.step");
    EXPECT_EQ((*by_actor)[0].body, (*by_function)[0].body) << "at record " << r.seq;
    ++failures;
    if (!(*by_actor)[0].body["cooldowns"].empty())
      ++with_cooldowns;
  }
  EXPECT_GT(failures, 10);
  EXPECT_GT(with_cooldowns, 0) << "no failure left a cool-down to carry to the next one";
}

// The replay decodes the recorded request itself (the actor only takes
// typed values): a request that does not decode is an error naming the
// edge and what is wrong.
TEST(supervisor_replay, a_recorded_request_that_does_not_decode_is_a_clear_error) {
  runtime::policy pol;
  supervisor_replay actor(pol, runtime::time_zone::fixed("UTC", 0));
  auto out = actor.failure(json{{"request", json{{"failure", "not an object"}}},
                                {"task_state", json::object()},
                                {"now", 1}});
  ASSERT_FALSE(out.is_ok());
  EXPECT_NE(out.error().message().find("supervisor.failure: "), std::string::npos);
  EXPECT_NE(out.error().message().find("failure"), std::string::npos) << out.error().message();
  auto bad_state = actor.failure(json{{"request", json{{"failure", json::object()}}},
                                      {"task_state", "not a task"},
                                      {"now", 1}});
  ASSERT_FALSE(bad_state.is_ok());
  EXPECT_NE(bad_state.error().message().find("supervisor.failure.task_state"), std::string::npos)
    << bad_state.error().message();
  auto missing = actor.failure(json{{"request", json::object()}});
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.error().message().find("needs request, task_state and now"),
            std::string::npos);
  EXPECT_FALSE(actor.quota_batch(json{{"snapshot", "garbage"}}).is_ok());
}

} // namespace
} // namespace ad::tools
