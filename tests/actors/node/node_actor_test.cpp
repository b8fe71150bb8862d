// The worker node's actor (actors/node) with a stand-in attempt host on the
// threaded scheduler: what it refuses at hello, its epochs, its lease and
// fencing, and the results it keeps for a coordinator that reconnects.
#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/node/node_actor.hpp"
#include "messages/types.hpp"
#include "runtime/agents/attempt_locator.hpp"
#include "runtime/distributed/node_protocol.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// What the stand-in host saw; starts are held until finish() or a cancel.
struct host_log {
  std::mutex mu;
  std::vector<std::string> started, cancelled;
  std::map<std::string, caf::typed_response_promise<messages::attempt_result>> held;
  std::vector<std::string> cancels() {
    std::lock_guard<std::mutex> g(mu);
    return cancelled;
  }
};

messages::attempt_result result_of(const std::string& identity, const std::string& status) {
  messages::attempt_result r;
  r.identity = identity;
  r.status = status;
  return r;
}

messages::attempt_host_actor::behavior_type stand_in_host(messages::attempt_host_actor::pointer self,
                                                          std::shared_ptr<host_log> log) {
  return {
    [self, log](messages::start_attempt& o) -> caf::result<messages::attempt_result> {
      auto id = runtime::make_attempt_identity(o.task, o.plan_number, o.role, o.attempt);
      std::lock_guard<std::mutex> g(log->mu);
      log->started.push_back(id);
      auto rp = self->make_response_promise<messages::attempt_result>();
      log->held[id] = rp;
      return rp;
    },
    [](messages::adopt_attempt&) -> caf::result<messages::attempt_result> {
      return caf::make_error(messages::errc::invalid_request, "no adoption here");
    },
    [](messages::place_attempt&) { return messages::attempt_placement{"local", ""}; },
    [log](messages::cancel_attempt& c) {
      std::lock_guard<std::mutex> g(log->mu);
      log->cancelled.push_back(c.identity);
      if (auto i = log->held.find(c.identity); i != log->held.end()) {
        i->second.deliver(result_of(c.identity, "cancelled"));
        log->held.erase(i);
      }
    },
  };
}

class node_actor_test : public ::testing::Test {
public:
  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    cfg.set("scheduler.max-threads", size_t{2});
    messages::register_message_types(cfg);
    return cfg;
  }

  node_actor_test() : sys(configure(cfg)) {
    fs::create_directories(dir.path() / "ws");
    fs::create_directories(dir.path() / "runs");
    dir.write("runs/.node-probe", "token 1");
    host = sys.spawn(stand_in_host, log);
    node_config nc;
    nc.name = "n1";
    nc.slots = 2;
    nc.adapters = {"command"};
    nc.lease_ms = 1000;
    nc.lease_file = (dir.path() / "lease.1").string();
    nc.host = host;
    nc.steady_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
    };
    node = sys.spawn(node_actor_impl, nc);
  }

  ~node_actor_test() override {
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
  }

  messages::node_hello hello(int64_t epoch) const {
    messages::node_hello h;
    h.protocol = runtime::node_protocol_version;
    h.epoch = epoch;
    h.coordinator = "test";
    h.lease_ms = 1000;
    h.workspace = (dir.path() / "ws").string();
    h.runs_dir = (dir.path() / "runs").string();
    h.probe_file = (dir.path() / "runs" / ".node-probe").string();
    h.probe_token = "token 1";
    return h;
  }

  template <class Reply, class Message>
  caf::expected<Reply> ask(Message m, caf::timespan limit = 10s) {
    caf::scoped_actor self{sys};
    caf::expected<Reply> out{caf::error{}};
    self->request(node, limit, std::move(m))
      .receive([&](Reply& r) { out = std::move(r); }, [&](caf::error& e) { out = std::move(e); });
    return out;
  }

  messages::node_start start(int64_t epoch, int64_t attempt) const {
    messages::node_start s;
    s.epoch = epoch;
    s.order.task = "g/01_t";
    s.order.plan_number = 1;
    s.order.role = "worker";
    s.order.attempt = attempt;
    return s;
  }

  std::string render(const caf::error& e) { return sys.render(e); }

  // Greets as epoch 7 and starts attempts 1 and 2, which the stand-in host
  // holds.
  void start_two_of_epoch_7() {
    ASSERT_TRUE(ask<messages::node_welcome>(hello(7)));
    caf::anon_send(node, start(7, 1));
    caf::anon_send(node, start(7, 2));
    ASSERT_TRUE(test::eventually([&] {
      std::lock_guard<std::mutex> g(log->mu);
      return log->held.size() == 2;
    }));
  }

  test::temp_dir dir;
  caf::actor_system_config cfg;
  caf::actor_system sys;
  std::shared_ptr<host_log> log = std::make_shared<host_log>();
  messages::attempt_host_actor host;
  messages::node_actor node;
};

TEST_F(node_actor_test, a_hello_it_cannot_serve_is_refused_saying_what_differs) {
  auto h = hello(5);
  h.protocol = runtime::node_protocol_version + 1;
  auto r = ask<messages::node_welcome>(h);
  ASSERT_FALSE(r);
  EXPECT_NE(render(r.error()).find("speaks wire protocol"), std::string::npos) << render(r.error());

  h = hello(5);
  h.lease_ms = 3000;
  r = ask<messages::node_welcome>(h);
  ASSERT_FALSE(r);
  EXPECT_NE(render(r.error()).find("give both the same --lease-ms"), std::string::npos);

  h = hello(5);
  h.workspace = (dir.path() / "elsewhere").string();
  r = ask<messages::node_welcome>(h);
  ASSERT_FALSE(r);
  EXPECT_NE(render(r.error()).find("has no workspace at"), std::string::npos);

  auto ok = ask<messages::node_welcome>(hello(5));
  ASSERT_TRUE(ok) << render(ok.error());
  EXPECT_EQ(ok->name, "n1");
  EXPECT_EQ(ok->slots, 2);
  EXPECT_EQ(ok->adapters, std::vector<std::string>{"command"});
  EXPECT_TRUE(fs::exists(dir.path() / "lease.1")) << "the keepers' lease file";

  // A coordinator older than the one it serves is refused, and its orders too.
  r = ask<messages::node_welcome>(hello(4));
  ASSERT_FALSE(r);
  EXPECT_NE(render(r.error()).find("older than epoch 5"), std::string::npos) << render(r.error());
  auto old_start = ask<messages::attempt_result>(start(4, 1));
  ASSERT_FALSE(old_start);
  EXPECT_NE(render(old_start.error()).find("order of epoch 4"), std::string::npos);
  auto old_renew = ask<messages::lease_granted>(messages::lease_renew{4});
  ASSERT_FALSE(old_renew);
  EXPECT_TRUE(log->started.empty());
}

TEST_F(node_actor_test, without_a_current_lease_nothing_starts_and_a_lapsed_lease_stops_all) {
  auto refused = ask<messages::attempt_result>(start(0, 1));
  ASSERT_FALSE(refused) << "no hello yet";
  ASSERT_TRUE(ask<messages::node_welcome>(hello(7)));
  caf::anon_send(node, start(7, 1));
  ASSERT_TRUE(test::eventually([&] {
    std::lock_guard<std::mutex> g(log->mu);
    return log->started.size() == 1;
  }));
  // No renewal: after the lease (1 s) the node stops its attempt itself.
  EXPECT_TRUE(test::eventually([&] { return log->cancels().size() == 1; }, 5s));
  EXPECT_EQ(log->cancels(), std::vector<std::string>{"g__01_t__p1__worker__a01"});
  auto late = ask<messages::attempt_result>(start(7, 2));
  ASSERT_FALSE(late);
  EXPECT_NE(render(late.error()).find("holds no current lease"), std::string::npos);
  // A renewal makes it current again.
  ASSERT_TRUE(ask<messages::lease_granted>(messages::lease_renew{7}));
  caf::anon_send(node, start(7, 2));
  EXPECT_TRUE(test::eventually([&] {
    std::lock_guard<std::mutex> g(log->mu);
    return log->started.size() == 2;
  }));
}

TEST_F(node_actor_test, the_same_coordinator_reconnected_follows_its_attempts) {
  start_two_of_epoch_7();
  if (HasFatalFailure())
    return;
  // Reconnected: both are still held, nothing stopped.
  auto again = ask<messages::node_welcome>(hello(7));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->held.size(), 2u);
  EXPECT_TRUE(again->orphans.empty());
  EXPECT_TRUE(log->cancels().empty());
  // One ends while no one listens; its result is kept for the follow.
  {
    std::lock_guard<std::mutex> g(log->mu);
    log->held.at("g__01_t__p1__worker__a01").deliver(result_of("g__01_t__p1__worker__a01", "succeeded"));
    log->held.erase("g__01_t__p1__worker__a01");
  }
  ASSERT_TRUE(test::eventually([&] {
    auto r = ask<messages::attempt_result>(messages::node_follow{7, "g__01_t__p1__worker__a01"}, 1s);
    return r && r->status == "succeeded";
  }));
  auto unknown = ask<messages::attempt_result>(messages::node_follow{7, "g__09_x__p1__worker__a01"});
  ASSERT_FALSE(unknown);
  EXPECT_NE(render(unknown.error()).find("knows nothing of"), std::string::npos);
  ASSERT_TRUE(ask<messages::lease_granted>(messages::lease_renew{7}));

}

TEST_F(node_actor_test, a_coordinator_that_took_over_adopts_within_a_lease_or_the_rest_is_stopped) {
  start_two_of_epoch_7();
  if (HasFatalFailure())
    return;
  // Epoch 8 takes over: both are orphans, nothing stopped yet.
  auto newer = ask<messages::node_welcome>(hello(8));
  ASSERT_TRUE(newer) << render(newer.error());
  EXPECT_TRUE(newer->held.empty());
  EXPECT_EQ(newer->orphans.size(), 2u);
  EXPECT_TRUE(log->cancels().empty());
  // It adopts one (a follow from epoch 8) and renews; the other is stopped
  // after one lease (1 s) and reported as an orphan until it has ended.
  caf::anon_send(node, messages::node_follow{8, "g__01_t__p1__worker__a01"});
  EXPECT_TRUE(test::eventually([&] {
    auto r = ask<messages::lease_granted>(messages::lease_renew{8});
    return r && r->orphans == std::vector<std::string>{"g__01_t__p1__worker__a02"};
  }, 900ms));
  EXPECT_TRUE(test::eventually([&] {
    ask<messages::lease_granted>(messages::lease_renew{8});  // the lease stays current
    return log->cancels().size() == 1;
  }, 5s));
  EXPECT_EQ(log->cancels(), std::vector<std::string>{"g__01_t__p1__worker__a02"});
  auto renewed = ask<messages::lease_granted>(messages::lease_renew{8});
  ASSERT_TRUE(renewed);
  EXPECT_TRUE(renewed->orphans.empty());
  EXPECT_EQ(renewed->running, 1);
}

} // namespace
} // namespace ad::actors
