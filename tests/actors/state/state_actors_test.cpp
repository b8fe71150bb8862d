// The state store and serializer actors on CAF's deterministic scheduler:
// replies come only after the change is durable and in journal order,
// concurrent changes share one group commit, and a query sent after an
// acknowledgement sees the change.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include "actors/state/serializer.hpp"
#include "actors/state/state_store.hpp"
#include "messages/state.hpp"
#include "messages/types.hpp"
#include "runtime/core/files.hpp"
#include "runtime/state/journal.hpp"
#include "runtime/state/model_json.hpp"
#include "tests/runtime/state/fault_file_layer.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

namespace fs = std::filesystem;
using namespace ad::messages;
using runtime::state_change;

struct test_config : caf::actor_system_config {
  test_config() {
    set("scheduler.policy", caf::atom("testing"));
    register_message_types(*this);
  }
};

// Journal entries on disk right now.
size_t entries_on_disk(const fs::path& root) {
  auto text = runtime::read_file(root / runtime::journal_file_name);
  if (!text)
    return 0;
  auto scan = runtime::scan_journal(*text, "journal");
  return scan ? scan->records.size() - 1 : 0;
}

class state_actors_test : public ::testing::Test {
protected:
  state_actors_test() : sys_(cfg_), sched_(dynamic_cast<caf::scheduler::test_coordinator&>(sys_.scheduler())) {}

  void SetUp() override {
    fs::create_directories(dir_.path() / "ws");
    id_ = *runtime::identify_workspace(dir_.path() / "ws");
    root_ = dir_.path() / "state";
    start(runtime::posix_file_layer());
  }

  void start(std::shared_ptr<runtime::state_file_layer> layer) {
    auto opened = runtime::durable_store::open(root_, id_, std::move(layer));
    ASSERT_TRUE(opened) << opened.error().to_string();
    store_ = std::shared_ptr<runtime::durable_store>(std::move(*opened));
    serializer_ = sys_.spawn(state_serializer, store_);
    state_store_config cfg;
    cfg.serializer = serializer_;
    cfg.initial = store_->state();
    cfg.initial_seq = store_->last_seq();
    cfg.write_timeout = std::chrono::seconds(30);
    actor_ = sys_.spawn(state_store, std::move(cfg));
    sched_.run();
  }

  void TearDown() override {
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(serializer_, caf::exit_reason::user_shutdown);
    sched_.run();
  }

  // Spawns a client that sends `req` to the store and runs `on_reply` (or
  // `on_error`) with the answer.
  template <class Req, class OnReply>
  void ask(Req req, OnReply on_reply, std::function<void(caf::error&)> on_error = nullptr) {
    auto store = actor_;
    sys_.spawn([=](caf::event_based_actor* self, int) {
      self->request(store, std::chrono::seconds(30), req)
        .then(on_reply, [=](caf::error& err) {
          if (on_error)
            on_error(err);
          else
            ADD_FAILURE() << "unexpected error: " << self->system().render(err);
        });
    }, 0);  // CAF 0.17 trips UBSan when a functor actor gets no arguments
  }

  static std::vector<state_change> begin(const std::string& task) {
    return {runtime::begin_work_unit{task, task + "::plan-1::tag-a"}};
  }

  test_config cfg_;
  caf::actor_system sys_;
  caf::scheduler::test_coordinator& sched_;
  ad::test::temp_dir dir_;
  runtime::workspace_identity id_;
  fs::path root_;
  std::shared_ptr<runtime::durable_store> store_;
  state_serializer_actor serializer_;
  state_store_actor actor_;
};

TEST_F(state_actors_test, replies_come_after_durability_in_journal_order) {
  std::vector<uint64_t> seqs;
  std::vector<size_t> on_disk_at_reply;
  for (int i = 0; i < 6; ++i)
    ask(apply_state_changes{begin("t" + std::to_string(i))}, [&](state_changes_applied& r) {
      seqs.push_back(r.seq);
      on_disk_at_reply.push_back(entries_on_disk(root_));
      ASSERT_EQ(r.outcomes.size(), 1u);
      EXPECT_EQ(r.outcomes[0].code, 0);
    });
  sched_.run();
  ASSERT_EQ(seqs.size(), 6u);
  for (size_t i = 0; i < seqs.size(); ++i) {
    EXPECT_EQ(seqs[i], i + 1);
    EXPECT_GE(on_disk_at_reply[i], seqs[i]) << "reply before its entry was on disk";
  }
}

TEST_F(state_actors_test, concurrent_changes_share_one_group_commit) {
  int replies = 0;
  for (int i = 0; i < 8; ++i)
    ask(apply_state_changes{begin("t" + std::to_string(i))},
        [&](state_changes_applied&) { ++replies; });
  sched_.run();
  EXPECT_EQ(replies, 8);
  EXPECT_EQ(store_->stats().entries, 8u);
  EXPECT_EQ(store_->stats().commits, 1u) << "8 changes that arrived together took "
                                         << store_->stats().commits << " fsyncs";
}

TEST_F(state_actors_test, query_after_ack_sees_the_change) {
  bool acked = false;
  ask(apply_state_changes{{runtime::begin_work_unit{"g/01_a", "g/01_a::plan-1::tag-a"},
                           runtime::set_counter{"g/01_a", "no_progress", 4},
                           runtime::replace_claim{"g/01_a", {runtime::claim_kind::paths, {"/w/x"}}}}},
      [&](state_changes_applied&) { acked = true; });
  sched_.run();
  ASSERT_TRUE(acked);
  task_state_reply task;
  claims_reply claims;
  ask(get_task_state{"g/01_a"}, [&](task_state_reply& r) { task = r; });
  ask(get_claims{}, [&](claims_reply& r) { claims = r; });
  sched_.run();
  ASSERT_TRUE(task.found);
  EXPECT_EQ(task.state.counters.at("no_progress"), 4);
  ASSERT_EQ(claims.claims.size(), 1u);
  EXPECT_EQ(claims.claims[0].paths, (std::vector<std::string>{"/w/x"}));
}

// A serializer that holds every entry until the test sends st_flush_atom,
// so the window between "sent" and "durable" can be observed.
struct held_serializer_state {
  held_serializer_state() = default;
  static inline const char* name = "held_serializer";
  std::vector<caf::typed_response_promise<journal_batch_durable>> held;
  std::vector<journal_batch> batches;
  uint64_t seq = 0;
};

state_serializer_actor::behavior_type held_serializer(
  state_serializer_actor::stateful_pointer<held_serializer_state> self, int) {
  return {
    [=](journal_batch& b) -> caf::typed_response_promise<journal_batch_durable> {
      auto rp = self->make_response_promise<journal_batch_durable>();
      self->state.held.push_back(rp);
      self->state.batches.push_back(std::move(b));
      return rp;
    },
    [=](st_flush_atom) {
      auto& s = self->state;
      for (size_t i = 0; i < s.held.size(); ++i) {
        journal_batch_durable reply;
        for (const auto& e : s.batches[i].entries)
          reply.entries.push_back({++s.seq, std::vector<change_outcome>(e.changes.size())});
        s.held[i].deliver(std::move(reply));
      }
      s.held.clear();
      s.batches.clear();
    },
  };
}

TEST_F(state_actors_test, queries_see_only_durable_changes) {
  auto held = sys_.spawn(held_serializer, 0);
  state_store_config cfg;
  cfg.serializer = held;
  cfg.write_timeout = std::chrono::seconds(30);
  auto store = sys_.spawn(state_store, std::move(cfg));
  sched_.run();
  bool acked = false;
  auto query = [&](const std::string& task, bool& found) {
    sys_.spawn([=, &found](caf::event_based_actor* self, int) {
      self->request(store, std::chrono::seconds(30), get_task_state{task})
        .then([&found](task_state_reply& r) { found = r.found; },
              [](caf::error&) { ADD_FAILURE() << "query failed"; });
    }, 0);
  };
  sys_.spawn([=, &acked](caf::event_based_actor* self, int) {
    self->request(store, std::chrono::seconds(30), apply_state_changes{begin("late")})
      .then([&acked](state_changes_applied&) { acked = true; },
            [](caf::error&) { ADD_FAILURE() << "apply failed"; });
  }, 0);
  sched_.run();
  EXPECT_FALSE(acked);
  bool before = true;
  query("late", before);
  sched_.run();
  EXPECT_FALSE(before) << "a query saw a change that was not durable yet";
  caf::anon_send(held, st_flush_atom::value);
  sched_.run();
  EXPECT_TRUE(acked);
  bool after = false;
  query("late", after);
  sched_.run();
  EXPECT_TRUE(after);
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(held, caf::exit_reason::user_shutdown);
  sched_.run();
}

TEST_F(state_actors_test, requests_that_arrive_together_reach_the_serializer_as_one_batch) {
  auto held = sys_.spawn(held_serializer, 0);
  state_store_config cfg;
  cfg.serializer = held;
  cfg.write_timeout = std::chrono::seconds(30);
  auto store = sys_.spawn(state_store, std::move(cfg));
  sched_.run();
  std::vector<uint64_t> seqs;
  sys_.spawn([=, &seqs](caf::event_based_actor* self, int) {
    for (int i = 0; i < 7; ++i)
      self->request(store, std::chrono::seconds(30), apply_state_changes{begin("b" + std::to_string(i))})
        .then([&seqs](state_changes_applied& r) { seqs.push_back(r.seq); },
              [](caf::error&) { ADD_FAILURE() << "apply failed"; });
  }, 0);
  sched_.run();
  auto* st = dynamic_cast<caf::stateful_actor<held_serializer_state, state_serializer_actor::base>*>(
    caf::actor_cast<caf::abstract_actor*>(held));
  EXPECT_NE(st, nullptr);
  if (st != nullptr) {
    EXPECT_EQ(st->state.batches.size(), 1u) << "one request per arrival instead of one batch";
    if (!st->state.batches.empty()) {
      EXPECT_EQ(st->state.batches[0].entries.size(), 7u);
    }
  }
  EXPECT_TRUE(seqs.empty());
  caf::anon_send(held, st_flush_atom::value);
  sched_.run();
  EXPECT_EQ(seqs, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7}));
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(held, caf::exit_reason::user_shutdown);
  sched_.run();
}

TEST_F(state_actors_test, rejected_precondition_is_reported_not_an_error) {
  state_changes_applied reply;
  ask(apply_state_changes{{runtime::set_counter{"ghost", "x", 1}}},
      [&](state_changes_applied& r) { reply = r; });
  sched_.run();
  ASSERT_EQ(reply.outcomes.size(), 1u);
  EXPECT_EQ(reply.outcomes[0].code, static_cast<uint8_t>(runtime::status::code::not_found));
  EXPECT_NE(reply.outcomes[0].message.find("ghost"), std::string::npos);
}

TEST_F(state_actors_test, failed_write_makes_every_later_change_state_unavailable) {
  TearDown();
  // The journal exists already, so the first sync is the first commit's.
  start(std::make_shared<runtime::test::fault_file_layer>(runtime::test::fault_kind::sync, 1,
                                                          runtime::test::fault_mode::once));
  std::vector<caf::error> errors;
  for (int i = 0; i < 2; ++i)
    ask(apply_state_changes{begin("t" + std::to_string(i))},
        [&](state_changes_applied&) { ADD_FAILURE() << "acknowledged a failed write"; },
        [&](caf::error& e) { errors.push_back(e); });
  sched_.run();
  ask(apply_state_changes{begin("t9")},
      [&](state_changes_applied&) { ADD_FAILURE() << "accepted after a failure"; },
      [&](caf::error& e) { errors.push_back(e); });
  sched_.run();
  ASSERT_EQ(errors.size(), 3u);
  for (auto& e : errors) {
    EXPECT_EQ(e.code(), static_cast<uint8_t>(errc::state_unavailable)) << sys_.render(e);
    // Plain words for a person: no nested quoting of the wrapped error.
    auto text = sys_.render(e);
    EXPECT_EQ(text.rfind("ad::state_unavailable: ", 0), 0u) << text;
    EXPECT_EQ(text.find('\\'), std::string::npos) << text;
    EXPECT_EQ(text.find("(\""), std::string::npos) << text;
  }
  task_state_reply task;
  ask(get_task_state{"t0"}, [&](task_state_reply& r) { task = r; });
  sched_.run();
  EXPECT_FALSE(task.found);
}

TEST_F(state_actors_test, changes_survive_a_round_trip_through_serialization) {
  std::vector<state_change> changes = {
    runtime::begin_work_unit{"a", "a::plan-1::tag-t"},
    runtime::record_attempt_started{"a", "worker", 1, "worker", 1, "/l", ""},
    runtime::replace_claim{"a", {runtime::claim_kind::exclusive, {}}}};
  auto msg = caf::make_message(apply_state_changes{changes});
  std::vector<char> buf;
  caf::binary_serializer sink(sys_, buf);
  ASSERT_FALSE(sink(msg));
  caf::message back;
  caf::binary_deserializer source(sys_, buf);
  ASSERT_FALSE(source(back));
  ASSERT_TRUE(back.match_elements<apply_state_changes>());
  const auto& got = back.get_as<apply_state_changes>(0);
  EXPECT_EQ(runtime::changes_to_json_text(got.changes), runtime::changes_to_json_text(changes));
}

} // namespace
} // namespace ad::actors
