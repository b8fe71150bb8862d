// The supervisor actor on CAF's deterministic scheduler: it answers a failed
// attempt with the decision function's step and changes, shares quota
// cool-downs between tasks, resets on success, clears blocks with a retry
// handoff; its messages cross hosts through CAF's binary encoding, and a
// serialized request that does not decode is errc::invalid_request.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include "actors/supervisor/supervisor_actor.hpp"
#include "messages/supervisor.hpp"
#include "messages/types.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::actors {
namespace {

using namespace ad::messages;

struct test_config : caf::actor_system_config {
  test_config() {
    set("scheduler.policy", caf::atom("testing"));
    register_message_types(*this);
  }
};

constexpr const char* policy_text = R"({
  "targets": [
    {"id": "sim-a", "adapter": "command", "model": "a", "execution_class": "cloud_model", "argv": ["x"]},
    {"id": "sim-b", "adapter": "command", "model": "b", "execution_class": "cloud_model", "argv": ["x"]}
  ],
  "rules": [{"id": "workers", "stage": "worker", "lanes": ["cloud"], "grades": [1, 10],
             "candidates": ["sim-a", "sim-b"]}],
  "review_target": "sim-a",
  "promotion": {"sim-a": "sim-b"},
  "backoff": {"initial_s": 0.01, "coefficient": 2, "max_s": 0.1}
})";

const std::string task_name = "g/01_x";
const std::string work_unit = "g/01_x::plan-1::tag-a";
const int64_t now = 1'800'000'000'000;

class supervisor_actor_test : public ::testing::Test {
protected:
  supervisor_actor_test()
      : sys_(cfg_), sched_(dynamic_cast<caf::scheduler::test_coordinator&>(sys_.scheduler())) {}

  void SetUp() override {
    auto loaded = runtime::parse_policy_text(policy_text, "policy.json");
    ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
    pol_ = loaded->value;
    actor_ = spawn_supervisor(sys_, pol_, runtime::time_zone::fixed("Asia/Seoul", 9 * 3600));
    sched_.run();
    ASSERT_TRUE(runtime::apply_change(model_, runtime::begin_work_unit{task_name, work_unit}).is_ok());
    runtime::selection_request r;
    r.work_unit_id = work_unit;
    r.stage = "worker";
    r.lane = "cloud";
    r.grade = 5;
    r.now = now;
    auto d = runtime::select_target(pol_, runtime::time_zone::fixed("Asia/Seoul", 9 * 3600), r);
    ASSERT_TRUE(d.is_ok());
    ASSERT_TRUE(runtime::apply_change(model_, runtime::record_decision{task_name, *d}).is_ok());
  }

  void TearDown() override {
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    sched_.run();
  }

  runtime::task_state task() { return model_.tasks.at(task_name); }

  runtime::supervisor_request failure(const char* failure_class, const char* evidence = "boom") {
    runtime::supervisor_request req;
    req.failure.task = task_name;
    req.failure.stage = "worker";
    req.failure.failure_class = failure_class;
    req.failure.evidence = evidence;
    req.failure.locator = "/runs/a01/locator.json";
    req.failure.raw_log = "/runs/a01/stream.log";
    req.failure.normalized_output = "/runs/a01/normalized-output.log";
    req.paths.plan = "/ws/PLAN-cloud-G05.md";
    req.lane = "cloud";
    req.grade = 5;
    return req;
  }

  // Sends req from a fresh client and runs the scheduler until the reply.
  template <class Reply, class Req>
  std::optional<Reply> ask(Req req, caf::error* err_out = nullptr) {
    auto reply = std::make_shared<std::optional<Reply>>();
    auto err = std::make_shared<caf::error>();
    auto target = actor_;
    // The unused int: CAF 0.17.6 dereferences a null argument tuple when a
    // function actor is spawned without arguments.
    sys_.spawn(
      [=](caf::event_based_actor* self, int) {
        self->request(target, std::chrono::seconds(5), req)
          .then([=](Reply& r) { *reply = std::move(r); }, [=](caf::error& e) { *err = e; });
      },
      0);
    sched_.run();
    if (err_out != nullptr)
      *err_out = *err;
    return *reply;
  }

  void commit(const std::vector<runtime::state_change>& changes) {
    for (const auto& c : changes)
      ASSERT_TRUE(runtime::apply_change(model_, c).is_ok()) << runtime::change_name(c);
  }

  test_config cfg_;
  caf::actor_system sys_;
  caf::scheduler::test_coordinator& sched_;
  runtime::policy pol_;
  runtime::state_model model_;
  supervisor_actor actor_;
};

TEST_F(supervisor_actor_test, answers_a_quota_failure_with_a_failover_and_its_changes) {
  auto reply = ask<supervision_decided>(supervise_failure{failure("provider-quota"), task(), now});
  ASSERT_TRUE(reply.has_value());
  const auto* step = std::get_if<runtime::failover_step>(&reply->step);
  ASSERT_NE(step, nullptr) << runtime::step_name(reply->step);
  EXPECT_EQ(step->target, "sim-b");
  EXPECT_EQ(step->package.kind, runtime::package_kind::logical);
  EXPECT_EQ(step->package.locator, "/runs/a01/locator.json");
  ASSERT_EQ(reply->events.size(), 2u);
  EXPECT_EQ(reply->events[1].kind, "no_match");
  EXPECT_NE(reply->events[1].message.find("no tactical pattern matched"), std::string::npos);
  commit(reply->changes);
  EXPECT_EQ(model_.tasks.at(task_name).decisions.at("worker")->selected_target, "sim-b");
  EXPECT_EQ(model_.tasks.at(task_name).failure_budgets.at("worker"), 1);

  // The cool-down is shared: the actor now reports sim-a cooling down.
  auto cool = ask<target_cooldowns_reply>(get_target_cooldowns{});
  ASSERT_TRUE(cool.has_value());
  EXPECT_TRUE(cool->cooldowns.active("sim-a", now + 1000).has_value());
}

TEST_F(supervisor_actor_test, an_observer_is_given_the_cooldowns_after_a_quota_failure) {
  auto seen = std::make_shared<std::vector<runtime::target_cooldowns>>();
  auto watched = spawn_supervisor(sys_, pol_, runtime::time_zone::fixed("Asia/Seoul", 9 * 3600),
                                  nullptr, [seen](const runtime::target_cooldowns& c) {
                                    seen->push_back(c);
                                  });
  sched_.run();
  std::swap(actor_, watched);
  auto reply = ask<supervision_decided>(supervise_failure{failure("provider-quota"), task(), now});
  std::swap(actor_, watched);
  caf::anon_send_exit(watched, caf::exit_reason::user_shutdown);
  sched_.run();
  ASSERT_TRUE(reply);
  ASSERT_EQ(seen->size(), 1u);
  auto cooling = seen->back().active("sim-a", now);
  ASSERT_TRUE(cooling);
  EXPECT_EQ(cooling->until, now + static_cast<int64_t>(pol_.timeouts.quota_cooldown_s * 1000));
}

TEST_F(supervisor_actor_test, retries_with_backoff_until_the_budget_blocks) {
  for (int i = 1; i < pol_.budgets.recovery_failures; ++i) {
    auto reply = ask<supervision_decided>(supervise_failure{failure("generic-error"), task(), now});
    ASSERT_TRUE(reply.has_value());
    ASSERT_EQ(runtime::step_name(reply->step), "retry_same") << i;
    commit(reply->changes);
  }
  auto last = ask<supervision_decided>(supervise_failure{failure("generic-error"), task(), now});
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(runtime::step_name(last->step), "block");
  commit(last->changes);
  ASSERT_TRUE(model_.tasks.at(task_name).blocked.has_value());
}

TEST_F(supervisor_actor_test, quota_batches_start_and_end_cooldowns) {
  runtime::probe_snapshot snap;
  snap.snapshot_id = "batch-1";
  snap.checked_at = now;
  snap.entries.push_back({"sim-b", {"probe"}, runtime::quota_status::exhausted, true, now + 60000, ""});
  caf::anon_send(actor_, quota_batch_taken{snap});
  sched_.run();
  auto cool = ask<target_cooldowns_reply>(get_target_cooldowns{});
  ASSERT_TRUE(cool.has_value());
  ASSERT_TRUE(cool->cooldowns.active("sim-b", now).has_value());
  EXPECT_EQ(cool->cooldowns.active("sim-b", now)->until, now + 60000);
}

} // namespace
} // namespace ad::actors

namespace ad::actors {
namespace {

// Replies cross hosts: the change list must survive CAF's binary encoding.
TEST(supervisor_messages, a_decided_reply_round_trips_through_caf_serialization) {
  using namespace ad::messages;
  test_config cfg;
  caf::actor_system sys{cfg};
  supervision_decided out;
  runtime::failover_step moved;
  moved.target = "sim-b";
  moved.package.kind = runtime::package_kind::native;
  moved.package.native_session_path = "/runs/a01/session.jsonl";
  moved.prompt = "continue";
  moved.decision.selected_target = "sim-b";
  moved.delay = 1500;
  out.step = moved;
  out.changes.push_back(runtime::record_failure{"g/01_x", "worker"});
  out.changes.push_back(runtime::set_blocked{"g/01_x", {"limit", "{}"}});
  out.events = {{"attempt_failed", "attempt failed, analysing", {}, ""},
                {"matched", "matched", {"p1", "p2"}, "error: EEXIST"}};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  ASSERT_FALSE(sink(out));
  supervision_decided in;
  caf::binary_deserializer source{sys, buf};
  ASSERT_FALSE(source(in));
  const auto* back_step = std::get_if<runtime::failover_step>(&in.step);
  ASSERT_NE(back_step, nullptr);
  EXPECT_EQ(back_step->target, "sim-b");
  EXPECT_EQ(back_step->package.kind, runtime::package_kind::native);
  EXPECT_EQ(back_step->package.native_session_path, "/runs/a01/session.jsonl");
  EXPECT_EQ(back_step->prompt, "continue");
  EXPECT_EQ(back_step->decision.selected_target, "sim-b");
  EXPECT_EQ(back_step->delay, 1500);
  ASSERT_EQ(in.changes.size(), 2u);
  EXPECT_EQ(runtime::change_name(in.changes[1]), "set_blocked");
  ASSERT_EQ(in.events.size(), 2u);
  EXPECT_EQ(in.events[1].kind, "matched");
  EXPECT_EQ(in.events[1].pattern_ids, (std::vector<std::string>{"p1", "p2"}));
  EXPECT_EQ(in.events[1].matched_line, "error: EEXIST");

}

// Every step kind, the request and the task state keep their values on
// the wire.
TEST(supervisor_messages, every_step_kind_and_the_request_round_trip) {
  using namespace ad::messages;
  test_config cfg;
  caf::actor_system sys{cfg};
  runtime::wait_until wait{1796220072000, "quota resets", "sim-a", "go on"};
  runtime::retry_same retry{"sim-a", "again", 2000, "generic", runtime::prompt_origin::from_scratch};
  std::vector<runtime::next_step> steps{retry, runtime::failover_step{}, runtime::promote_step{},
                                        runtime::resume_native{"pi", "/s.jsonl", "resume", 7},
                                        wait, runtime::block_step{"limit", R"({"role":"worker"})"}};
  for (const auto& step : steps) {
    supervise_failure req;
    req.request.failure.task = "g/01_x";
    req.request.failure.failure_class = "provider-quota";
    req.request.grade = 7;
    req.task.work_unit_id = "g/01_x::plan-1";
    req.now = 42;
    supervision_decided decided;
    decided.step = step;
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    ASSERT_FALSE(sink(req, decided));
    supervise_failure req_back;
    supervision_decided back;
    caf::binary_deserializer source{sys, buf};
    ASSERT_FALSE(source(req_back, back)) << runtime::step_name(step);
    EXPECT_EQ(runtime::dump_json(runtime::to_json(back.step)),
              runtime::dump_json(runtime::to_json(step)));
    EXPECT_EQ(req_back.request.failure.task, "g/01_x");
    EXPECT_EQ(req_back.request.failure.failure_class, "provider-quota");
    EXPECT_EQ(req_back.request.grade, 7);
    EXPECT_EQ(req_back.task.work_unit_id, "g/01_x::plan-1");
    EXPECT_EQ(req_back.now, 42);
  }
}

// A request whose encoded value does not decode fails as invalid_request,
// naming the value.
TEST(supervisor_messages, a_request_that_does_not_decode_is_an_invalid_request) {
  using namespace ad::messages;
  test_config cfg;
  caf::actor_system sys{cfg};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  // The wire layout of supervise_failure: request text, task text, now.
  ASSERT_FALSE(sink(std::string("{not json"), std::string("{}"), int64_t{42}));
  supervise_failure back;
  caf::binary_deserializer source{sys, buf};
  auto err = source(back);
  ASSERT_TRUE(err);
  EXPECT_EQ(err.category(), caf::atom("ad"));
  EXPECT_EQ(err.code(), static_cast<uint8_t>(errc::invalid_request));
  EXPECT_NE(sys.render(err).find("supervisor_request"), std::string::npos) << sys.render(err);
}

} // namespace
} // namespace ad::actors
