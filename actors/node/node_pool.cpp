#include "actors/node/node_pool.hpp"

#include <algorithm>
#include <chrono>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>
#include <spdlog/spdlog.h>

#include "runtime/agents/attempt_locator.hpp"
#include "runtime/distributed/placement.hpp"
#include "runtime/distributed/remote_results.hpp"
#include "runtime/distributed/tcp_probe.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::node_pool_actor::stateful_pointer<node_pool_state>;
using std::chrono::milliseconds;

// Runs on its own thread: the probe and the middleman's connect may block.
void connect_node(caf::blocking_actor* self, runtime::node_endpoint endpoint, bool tls,
                  int64_t timeout_ms, messages::node_pool_actor pool, int32_t index) {
  if (auto st = runtime::probe_tcp(endpoint, timeout_ms); !st.is_ok()) {
    self->send(pool, messages::node_unreachable{index, st.message()});
    return;
  }
  auto& sys = self->system();
  auto handle = tls ? caf::openssl::remote_actor<messages::node_actor>(sys, endpoint.host,
                                                                      endpoint.port)
                    : sys.middleman().remote_actor<messages::node_actor>(endpoint.host,
                                                                        endpoint.port);
  if (!handle) {
    self->send(pool, messages::node_unreachable{index, "node " + endpoint.text() + ": " +
                                                         sys.render(handle.error())});
    return;
  }
  self->send(pool, messages::node_connected{index, std::move(*handle)});
}

std::string node_label(const node_pool_state::node& n) {
  return n.name.empty() ? n.endpoint.text() : n.name + " (" + n.endpoint.text() + ")";
}

void finish(self_ptr self, const std::string& identity, caf::expected<messages::attempt_result> r);
void place_waiting(self_ptr self);
void publish_status(self_ptr self);
void adopt_waiting(self_ptr self);

void note_problem(node_pool_state::node& n, const std::string& problem) {
  if (n.last_problem != problem)
    spdlog::warn("node {}: {}", n.endpoint.text(), problem);
  n.last_problem = problem;
}

void disconnect(self_ptr self, int32_t index, const std::string& why) {
  auto& n = self->state.nodes[static_cast<std::size_t>(index)];
  if (n.handle) {
    self->demonitor(n.handle.address());
    n.handle = nullptr;
  }
  if (n.welcomed)
    spdlog::warn("node {}: not reachable ({}); its attempts count as lost {} ms after it was "
                 "last heard from unless it comes back",
                 node_label(n), why, self->state.cfg.terms.lease_ms + self->state.cfg.terms.margin_ms);
  auto lost_at = runtime::replacement_allowed_at(n.last_heard, self->state.cfg.terms);
  for (auto& [identity, p] : self->state.running)
    if (p.node == index && (p.lost_at == 0 || p.following)) {
      p.lost_at = lost_at;
      p.following = false;
    }
  n.welcomed = false;
  n.connecting = false;
  n.next_connect = self->state.cfg.steady_ms() + 500;
  publish_status(self);
}

// Answers node-lost for every attempt whose node has been away past its
// lease and margin and is not being followed again.
void fail_lost(self_ptr self) {
  auto& st = self->state;
  auto now = st.cfg.steady_ms();
  std::vector<std::string> lost;
  for (const auto& [identity, p] : st.running)
    if (p.node >= 0 && p.lost_at > 0 && !p.following && now >= p.lost_at)
      lost.push_back(identity);
  for (const auto& identity : lost) {
    const auto& p = st.running.at(identity);
    const auto& n = st.nodes[static_cast<std::size_t>(p.node)];
    auto why = "not heard from for " +
               std::to_string(now - p.lost_at + st.cfg.terms.lease_ms + st.cfg.terms.margin_ms) +
               " ms, past its lease of " + std::to_string(st.cfg.terms.lease_ms) +
               " ms and the margin of " + std::to_string(st.cfg.terms.margin_ms) + " ms";
    spdlog::warn("node {}: attempt {} lost: {}", node_label(n), identity, why);
    finish(self, identity,
           runtime::node_lost_result(p.order, node_label(n), why, st.cfg.clock->now()));
  }
}

// Asks node `index` for the attempt's result (node_follow).
void follow_one(self_ptr self, const std::string& identity, int32_t index) {
  auto& st = self->state;
  auto id = identity;
  self->request(st.nodes[static_cast<std::size_t>(index)].handle, caf::infinite,
                messages::node_follow{st.cfg.epoch, id})
    .then(
      [self, id, index](messages::attempt_result& r) {
        auto i = self->state.running.find(id);
        if (i != self->state.running.end() && i->second.node == index)
          finish(self, id, std::move(r));
      },
      [self, id, index](caf::error& e) {
        // The node does not know it (a new node process): it is lost when
        // its time comes, as if the node had not come back.
        auto i = self->state.running.find(id);
        if (i == self->state.running.end() || i->second.node != index)
          return;
        spdlog::warn("node {}: {}", node_label(self->state.nodes[static_cast<std::size_t>(index)]),
                     self->system().render(e));
        i->second.following = false;
      });
}

// After a reconnect: the attempts this node ran for us while away are
// asked for again; those it runs that we replaced meanwhile are stopped.
void follow_again(self_ptr self, int32_t index, const messages::node_welcome& w) {
  auto& st = self->state;
  const auto& n = st.nodes[static_cast<std::size_t>(index)];
  for (const auto& identity : w.orphans)
    spdlog::info("node {}: runs {} for an earlier coordinator", node_label(n), identity);
  for (const auto& identity : w.held) {
    auto i = st.running.find(identity);
    if (i == st.running.end() || i->second.node != index) {
      spdlog::warn("node {}: stops {}, which was replaced while the node was away",
                   node_label(n), identity);
      self->send(n.handle, messages::node_cancel{st.cfg.epoch, identity});
    }
  }
  for (auto& [identity, p] : st.running) {
    if (p.node != index || p.lost_at == 0)
      continue;
    p.following = true;
    spdlog::info("node {}: follows {} again", node_label(n), identity);
    follow_one(self, identity, index);
  }
}

void greet(self_ptr self, int32_t index) {
  auto& st = self->state;
  auto& n = st.nodes[static_cast<std::size_t>(index)];
  messages::node_hello hello;
  hello.protocol = runtime::node_protocol_version;
  hello.epoch = st.cfg.epoch;
  hello.coordinator = st.cfg.coordinator;
  hello.lease_ms = st.cfg.terms.lease_ms;
  hello.workspace = st.cfg.files.workspace;
  hello.runs_dir = st.cfg.files.runs_dir;
  hello.probe_file = st.cfg.files.probe_file;
  hello.probe_token = st.cfg.files.probe_token;
  auto handle = n.handle;
  self->request(handle, milliseconds(10'000), std::move(hello))
    .then(
      [self, index, handle](messages::node_welcome& w) {
        auto& n = self->state.nodes[static_cast<std::size_t>(index)];
        if (n.handle != handle)
          return;
        n.welcomed = true;
        n.greeted_once = true;
        n.name = w.name;
        n.slots = w.slots;
        n.adapters = w.adapters;
        n.last_heard = self->state.cfg.steady_ms();
        n.last_problem.clear();
        spdlog::info("node {}: ready, {} slots, adapters {}", node_label(n), n.slots,
                     fmt::join(n.adapters, ","));
        n.orphans = w.orphans;
        follow_again(self, index, w);
        adopt_waiting(self);
        place_waiting(self);
        publish_status(self);
      },
      [self, index, handle](caf::error& e) {
        auto& n = self->state.nodes[static_cast<std::size_t>(index)];
        if (n.handle != handle)
          return;
        note_problem(n, "refused: " + self->system().render(e));
        disconnect(self, index, "refused");
        // A refusal (another version, no shared workspace) is not retried
        // at once.
        n.next_connect = self->state.cfg.steady_ms() + 5'000;
      });
}

constexpr int64_t reservation_lapse_ms = 60'000;

std::vector<runtime::node_load> loads(self_ptr self) {
  auto& st = self->state;
  std::vector<runtime::node_load> out;
  for (const auto& n : st.nodes)
    out.push_back({n.name, n.slots, 0, n.adapters, n.welcomed && n.handle, n.orphans});
  for (const auto& [identity, p] : st.running)
    if (p.node >= 0)
      ++out[static_cast<std::size_t>(p.node)].running;
  for (const auto& [identity, r] : st.reserved)
    if (r.node >= 0)
      ++out[static_cast<std::size_t>(r.node)].running;
  return out;
}

// A node_status event for each greeted node whose status is news.
void publish_status(self_ptr self) {
  auto& st = self->state;
  if (!st.cfg.out)
    return;
  auto current = loads(self);
  auto steady = st.cfg.steady_ms();
  auto wall = st.cfg.clock->now();
  for (std::size_t i = 0; i < st.nodes.size(); ++i) {
    auto& n = st.nodes[i];
    if (!n.greeted_once)
      continue;
    runtime::node_observation o{n.name, n.welcomed && n.handle, n.slots, current[i].running,
                                n.last_heard, n.last_problem};
    auto next = runtime::decide_node_status(o, st.cfg.terms, steady, wall);
    if (n.shown && !runtime::node_status_changed(*n.shown, next, st.cfg.terms))
      continue;
    self->send(st.cfg.out, runtime::node_status_event(next, wall));
    n.shown = std::move(next);
  }
}

// Attempts running or promised on the local host.
int32_t local_running(self_ptr self) {
  int32_t n = 0;
  for (const auto& [identity, p] : self->state.running)
    n += p.node < 0 ? 1 : 0;
  for (const auto& [identity, r] : self->state.reserved)
    n += r.node < 0 ? 1 : 0;
  return n;
}

void lapse_reservations(self_ptr self) {
  auto& st = self->state;
  auto now = st.cfg.steady_ms();
  std::erase_if(st.reserved, [&](const auto& kv) {
    return now - kv.second.at > reservation_lapse_ms;
  });
}

bool all_greeted(self_ptr self) {
  const auto& nodes = self->state.nodes;
  return std::all_of(nodes.begin(), nodes.end(), [](const auto& n) { return n.greeted_once; });
}

void start_on(self_ptr self, node_pool_state::waiting w, int32_t index) {
  auto& st = self->state;
  auto identity = runtime::make_attempt_identity(w.order.task, w.order.plan_number, w.order.role,
                                                 w.order.attempt);
  st.running[identity] = {w.answer, w.order, index};
  auto on_result = [self, identity, index](messages::attempt_result& r) {
    auto i = self->state.running.find(identity);
    if (i == self->state.running.end() || i->second.node != index)
      return;
    finish(self, identity, std::move(r));
  };
  if (index < 0) {
    self->request(st.cfg.local, caf::infinite, std::move(w.order))
      .then(on_result, [self, identity](caf::error& e) { finish(self, identity, std::move(e)); });
    return;
  }
  auto& n = st.nodes[static_cast<std::size_t>(index)];
  st.last_node[w.order.task] = n.name;
  spdlog::info("node {}: runs {}", node_label(n), identity);
  auto handle = n.handle;
  self->request(handle, caf::infinite, messages::node_start{st.cfg.epoch, std::move(w.order)})
    .then(on_result, [self, identity, index](caf::error& e) {
      auto& st = self->state;
      auto i = st.running.find(identity);
      if (i == st.running.end() || i->second.node != index)
        return;
      if (e.category() == caf::atom("ad") &&
          static_cast<messages::errc>(e.code()) == messages::errc::conflict) {
        // Refused before any agent started (busy or lease not current):
        // back to the head of the queue.
        spdlog::info("node {}: refused {}: {}", node_label(st.nodes[static_cast<std::size_t>(index)]),
                     identity, self->system().render(e));
        st.queue.push_front({i->second.answer, i->second.order});
        st.running.erase(i);
        return;
      }
      finish(self, identity, std::move(e));
    });
}

messages::attempt_placement place(self_ptr self, const messages::place_attempt& p) {
  auto& st = self->state;
  lapse_reservations(self);
  st.reserved.erase(p.identity);
  auto current = loads(self);
  if (auto hold = runtime::placement_hold(current, p.task, all_greeted(self),
                                          st.cfg.steady_ms() - st.started, st.cfg.terms);
      !hold.empty())
    return {"", hold};
  if (st.cfg.local_slots > 0 && local_running(self) < st.cfg.local_slots) {
    st.reserved[p.identity] = {-1, st.cfg.steady_ms()};
    return {"local", ""};
  }
  auto prev = st.last_node.find(p.task);
  auto where = runtime::place_attempt(current, p.adapter,
                                      prev == st.last_node.end() ? "" : prev->second);
  if (!where.node)
    return {"", where.waiting_reason};
  auto index = static_cast<int32_t>(*where.node);
  st.reserved[p.identity] = {index, st.cfg.steady_ms()};
  return {st.nodes[*where.node].name, ""};
}

// A start with a reservation goes where it was placed, if that node is
// still there; any other waits in the queue.
void start_reserved(self_ptr self, node_pool_state::waiting w) {
  auto& st = self->state;
  auto identity = runtime::make_attempt_identity(w.order.task, w.order.plan_number, w.order.role,
                                                 w.order.attempt);
  auto r = st.reserved.find(identity);
  if (r != st.reserved.end()) {
    auto index = r->second.node;
    st.reserved.erase(r);
    if (index < 0) {
      start_on(self, std::move(w), -1);
      return;
    }
    const auto& n = st.nodes[static_cast<std::size_t>(index)];
    if (n.handle && n.welcomed) {
      start_on(self, std::move(w), index);
      return;
    }
    spdlog::warn("node {}: gone before {} started; placing it anew", node_label(n), identity);
  }
  st.queue.push_back(std::move(w));
  place_waiting(self);
}

// Adoptions whose node has greeted us go to it; those whose node has not
// by lease + margin after the pool started are lost (the node has stopped
// them itself by then).
void adopt_waiting(self_ptr self) {
  auto& st = self->state;
  auto now = st.cfg.steady_ms();
  auto deadline = runtime::replacement_allowed_at(st.started, st.cfg.terms);
  std::vector<node_pool_state::adoption> still;
  for (auto& a : st.adoptions) {
    auto identity = runtime::make_attempt_identity(a.order.task, a.order.plan_number,
                                                   a.order.role, a.order.attempt);
    int32_t index = -1;
    for (std::size_t i = 0; i < st.nodes.size(); ++i)
      if (st.nodes[i].welcomed && st.nodes[i].handle && st.nodes[i].name == a.order.node)
        index = static_cast<int32_t>(i);
    if (index < 0) {
      if (now < deadline) {
        still.push_back(std::move(a));
        continue;
      }
      auto why = "node " + a.order.node + " did not answer within " +
                 std::to_string(st.cfg.terms.lease_ms + st.cfg.terms.margin_ms) +
                 " ms of this coordinator's start";
      spdlog::warn("node {}: attempt {} lost: {}", a.order.node, identity, why);
      a.answer.deliver(runtime::node_lost_result(a.order, a.order.node, why, st.cfg.clock->now()));
      continue;
    }
    // Followed like an attempt of this connection: lost at the deadline if
    // the node does not know it (a new node process).
    node_pool_state::placed p{a.answer, a.order, index, deadline, true};
    st.running[identity] = p;
    st.last_node[a.order.task] = a.order.node;
    spdlog::info("node {}: adopts {}", node_label(st.nodes[static_cast<std::size_t>(index)]),
                 identity);
    follow_one(self, identity, index);
  }
  st.adoptions = std::move(still);
}

void place_waiting(self_ptr self) {
  auto& st = self->state;
  if (st.queue.empty())
    return;
  std::deque<node_pool_state::waiting> still;
  std::string reason;
  while (!st.queue.empty()) {
    auto w = std::move(st.queue.front());
    st.queue.pop_front();
    auto hold = runtime::placement_hold(loads(self), w.order.task, all_greeted(self),
                                        st.cfg.steady_ms() - st.started, st.cfg.terms);
    if (!hold.empty()) {
      reason = hold;
      still.push_back(std::move(w));
      continue;
    }
    if (st.cfg.local_slots > 0 && local_running(self) < st.cfg.local_slots) {
      start_on(self, std::move(w), -1);
      continue;
    }
    auto prev = st.last_node.find(w.order.task);
    auto where = runtime::place_attempt(loads(self), w.order.adapter,
                                        prev == st.last_node.end() ? "" : prev->second);
    if (where.node) {
      start_on(self, std::move(w), static_cast<int32_t>(*where.node));
      continue;
    }
    reason = where.waiting_reason;
    still.push_back(std::move(w));
  }
  st.queue = std::move(still);
  if (!reason.empty() && reason != st.last_wait_reason)
    spdlog::info("node pool: {} attempt(s) {}", st.queue.size(), reason);
  st.last_wait_reason = reason;
}

void finish(self_ptr self, const std::string& identity, caf::expected<messages::attempt_result> r) {
  auto& st = self->state;
  auto i = st.running.find(identity);
  if (i == st.running.end())
    return;
  auto answer = i->second.answer;
  st.running.erase(i);
  if (r)
    answer.deliver(std::move(*r));
  else
    answer.deliver(std::move(r.error()));
  place_waiting(self);
  publish_status(self);
}

void connect_due(self_ptr self) {
  auto& st = self->state;
  auto now = st.cfg.steady_ms();
  for (std::size_t i = 0; i < st.nodes.size(); ++i) {
    auto& n = st.nodes[i];
    if (n.handle || n.connecting || now < n.next_connect)
      continue;
    n.connecting = true;
    self->system().spawn(connect_node, n.endpoint, st.cfg.tls, st.cfg.probe_timeout_ms,
                         caf::actor_cast<messages::node_pool_actor>(self),
                         static_cast<int32_t>(i));
  }
}

void tick(self_ptr self) {
  auto& st = self->state;
  auto now = st.cfg.steady_ms();
  for (std::size_t i = 0; i < st.nodes.size(); ++i) {
    auto& n = st.nodes[i];
    auto index = static_cast<int32_t>(i);
    if (n.welcomed && n.handle) {
      if (now - n.last_heard > st.cfg.terms.lease_ms) {
        // Connected but silent past the lease (a frozen node): its lease
        // has run out; it must greet anew before it gets work again.
        disconnect(self, index, "no answer for " + std::to_string(now - n.last_heard) + " ms");
      } else {
        auto handle = n.handle;
        self->request(handle, milliseconds(runtime::renew_interval_ms(st.cfg.terms)),
                      messages::lease_renew{st.cfg.epoch})
          .then(
            [self, index, handle](messages::lease_granted& g) {
              auto& n = self->state.nodes[static_cast<std::size_t>(index)];
              if (n.handle == handle && n.welcomed) {
                n.last_heard = self->state.cfg.steady_ms();
                n.orphans = std::move(g.orphans);
              }
            },
            [](caf::error&) {});
      }
    }
  }
  fail_lost(self);
  connect_due(self);
  adopt_waiting(self);
  lapse_reservations(self);
  place_waiting(self);
  publish_status(self);
  self->delayed_send(self, milliseconds(runtime::renew_interval_ms(st.cfg.terms)),
                     messages::node_pool_tick{});
}

} // namespace

messages::node_pool_actor::behavior_type node_pool_impl(self_ptr self, node_pool_config cfg) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.started = st.cfg.steady_ms();
  for (const auto& e : st.cfg.nodes) {
    node_pool_state::node n;
    n.endpoint = e;
    n.last_heard = st.started;
    st.nodes.push_back(std::move(n));
  }
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& nodes = self->state.nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].handle && nodes[i].handle.address() == dm.source)
        disconnect(self, static_cast<int32_t>(i), self->system().render(dm.reason));
  });
  tick(self);
  return {
    [self](messages::start_attempt& order) -> caf::result<messages::attempt_result> {
      auto answer = self->make_response_promise<messages::attempt_result>();
      start_reserved(self, {answer, std::move(order)});
      publish_status(self);
      return answer;
    },
    [self](messages::place_attempt& p) {
      auto placement = place(self, p);
      publish_status(self);
      return placement;
    },
    [self](messages::adopt_attempt& req) -> caf::result<messages::attempt_result> {
      if (req.order.node.empty())
        return self->delegate(self->state.cfg.local, std::move(req));
      auto answer = self->make_response_promise<messages::attempt_result>();
      self->state.adoptions.push_back({answer, std::move(req.order)});
      adopt_waiting(self);
      return answer;
    },
    [self](messages::cancel_attempt& cancel) {
      auto& st = self->state;
      for (auto w = st.queue.begin(); w != st.queue.end(); ++w) {
        auto identity = runtime::make_attempt_identity(w->order.task, w->order.plan_number,
                                                       w->order.role, w->order.attempt);
        if (identity == cancel.identity) {
          w->answer.deliver(runtime::cancelled_while_waiting(w->order, st.cfg.clock->now()));
          st.queue.erase(w);
          return;
        }
      }
      auto i = st.running.find(cancel.identity);
      if (i == st.running.end())
        return;
      if (i->second.node < 0) {
        self->send(st.cfg.local, cancel);
        return;
      }
      const auto& n = st.nodes[static_cast<std::size_t>(i->second.node)];
      if (n.handle)
        self->send(n.handle, messages::node_cancel{st.cfg.epoch, cancel.identity});
    },
    [self](messages::node_connected& c) {
      auto& n = self->state.nodes[static_cast<std::size_t>(c.index)];
      n.connecting = false;
      n.handle = std::move(c.node);
      self->monitor(n.handle);
      greet(self, c.index);
    },
    [self](messages::node_unreachable& u) {
      auto& n = self->state.nodes[static_cast<std::size_t>(u.index)];
      n.connecting = false;
      note_problem(n, u.reason);
      n.next_connect = self->state.cfg.steady_ms() + 1'000;
    },
    [self](messages::node_pool_tick) { tick(self); },
  };
}

} // namespace ad::actors
