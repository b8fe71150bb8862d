#include "actors/node/node_actor.hpp"

#include <algorithm>
#include <chrono>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "runtime/agents/attempt_locator.hpp"
#include "runtime/distributed/lease.hpp"
#include "runtime/distributed/lease_file.hpp"
#include "runtime/distributed/node_protocol.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::node_actor::stateful_pointer<node_actor_state>;

caf::error refuse(messages::errc code, std::string text) {
  return caf::make_error(code, std::move(text));
}

void touch_lease(self_ptr self) {
  if (self->state.cfg.lease_file.empty())
    return;
  if (auto st = runtime::touch_lease_file(self->state.cfg.lease_file); !st.is_ok())
    spdlog::error("node: {}", st.message());
}

constexpr int64_t keep_results_ms = 3'600'000;

messages::node_welcome welcome_of(self_ptr self) {
  const auto& cfg = self->state.cfg;
  std::vector<std::string> held;
  for (const auto& [identity, h] : self->state.running)
    held.push_back(identity);
  return {runtime::node_protocol_version, cfg.name, cfg.slots, cfg.adapters,
          std::exchange(self->state.stopping, {}), std::move(held)};
}

// The hello waiting for earlier attempts is answered once none is left.
void maybe_welcome(self_ptr self) {
  auto& st = self->state;
  if (st.welcome && st.running.empty()) {
    st.welcome->deliver(welcome_of(self));
    st.welcome.reset();
  }
}

void stop_all(self_ptr self, const char* why) {
  for (const auto& [identity, held] : self->state.running) {
    spdlog::warn("node: stopping {} ({})", identity, why);
    self->send(self->state.cfg.host, messages::cancel_attempt{identity});
  }
}

} // namespace

messages::node_actor::behavior_type node_actor_impl(self_ptr self, node_config cfg) {
  self->state.cfg = std::move(cfg);
  runtime::lease_terms terms{self->state.cfg.lease_ms, 0};
  auto check_every = std::chrono::milliseconds(std::min<int64_t>(1000, runtime::renew_interval_ms(terms)));
  self->delayed_send(self, check_every, messages::node_lease_check{});
  return {
    [self](messages::node_hello& h) -> caf::result<messages::node_welcome> {
      auto& st = self->state;
      if (auto ok = runtime::check_protocol(h.protocol, st.cfg.name); !ok.is_ok())
        return refuse(messages::errc::invalid_request, ok.message());
      if (h.epoch < st.epoch)
        return refuse(messages::errc::invalid_request,
                      "node " + st.cfg.name + ": coordinator epoch " + std::to_string(h.epoch) +
                        " is older than epoch " + std::to_string(st.epoch) +
                        ", which a newer coordinator holds");
      if (h.lease_ms != st.cfg.lease_ms)
        return refuse(messages::errc::invalid_request,
                      "node " + st.cfg.name + " runs with a lease of " +
                        std::to_string(st.cfg.lease_ms) + " ms and the coordinator asks for " +
                        std::to_string(h.lease_ms) + " ms: give both the same --lease-ms");
      auto files = runtime::judge_shared_files(
        {h.workspace, h.runs_dir, h.probe_file, h.probe_token}, st.cfg.name);
      if (!files.is_ok())
        return refuse(messages::errc::invalid_request, files.message());
      spdlog::info("node: coordinator {} (epoch {}) connected", h.coordinator, h.epoch);
      bool newer = h.epoch > st.epoch;
      st.epoch = h.epoch;
      st.leased = true;
      st.last_renewed = st.cfg.steady_ms();
      touch_lease(self);
      if (st.welcome)
        st.welcome->deliver(refuse(messages::errc::conflict, "a newer hello took over"));
      st.welcome.reset();
      if (st.running.empty() || !newer)
        return welcome_of(self);
      // Another coordinator ordered these: stop them and answer once they
      // have ended.
      for (const auto& [identity, held] : st.running)
        st.stopping.push_back(identity);
      stop_all(self, "a coordinator of a newer epoch connected");
      st.welcome = self->make_response_promise<messages::node_welcome>();
      return *st.welcome;
    },
    [self](messages::lease_renew& r) -> caf::result<messages::lease_granted> {
      auto& st = self->state;
      if (r.epoch != st.epoch)
        return refuse(messages::errc::invalid_request,
                      "lease renewal for epoch " + std::to_string(r.epoch) + ", node " +
                        st.cfg.name + " serves epoch " + std::to_string(st.epoch));
      st.leased = true;
      st.last_renewed = st.cfg.steady_ms();
      touch_lease(self);
      return messages::lease_granted{static_cast<int32_t>(st.running.size())};
    },
    [self](messages::node_start& s) -> caf::result<messages::attempt_result> {
      auto& st = self->state;
      if (s.epoch != st.epoch)
        return refuse(messages::errc::invalid_request,
                      "order of epoch " + std::to_string(s.epoch) + ", node " + st.cfg.name +
                        " serves epoch " + std::to_string(st.epoch));
      if (!st.leased || st.welcome)
        return refuse(messages::errc::conflict, "node " + st.cfg.name + " holds no current lease");
      if (static_cast<int32_t>(st.running.size()) >= st.cfg.slots)
        return refuse(messages::errc::conflict, "node " + st.cfg.name + " has no free slot");
      auto identity = runtime::make_attempt_identity(s.order.task, s.order.plan_number,
                                                     s.order.role, s.order.attempt);
      if (st.running.contains(identity))
        return refuse(messages::errc::conflict, identity + " already runs on node " + st.cfg.name);
      auto answer = self->make_response_promise<messages::attempt_result>();
      st.running[identity] = {s.epoch, answer};
      auto done = [self, identity](caf::expected<messages::attempt_result> r) {
        auto& st = self->state;
        auto i = st.running.find(identity);
        if (i == st.running.end())
          return;
        auto answer = i->second.answer;
        st.running.erase(i);
        auto now = st.cfg.steady_ms();
        std::erase_if(st.done, [&](const auto& kv) { return now - kv.second.at > keep_results_ms; });
        if (r) {
          // Kept in case the coordinator is away and asks again.
          st.done[identity] = {*r, now};
          answer.deliver(std::move(*r));
        } else {
          answer.deliver(std::move(r.error()));
        }
        maybe_welcome(self);
      };
      self->request(st.cfg.host, caf::infinite, std::move(s.order))
        .then([done](messages::attempt_result& r) { done(std::move(r)); },
              [done](caf::error& e) { done(std::move(e)); });
      return answer;
    },
    [self](messages::node_follow& f) -> caf::result<messages::attempt_result> {
      auto& st = self->state;
      if (f.epoch != st.epoch)
        return refuse(messages::errc::invalid_request,
                      "follow of epoch " + std::to_string(f.epoch) + ", node " + st.cfg.name +
                        " serves epoch " + std::to_string(st.epoch));
      if (auto i = st.running.find(f.identity); i != st.running.end()) {
        i->second.answer = self->make_response_promise<messages::attempt_result>();
        return i->second.answer;
      }
      if (auto i = st.done.find(f.identity); i != st.done.end())
        return i->second.result;
      return refuse(messages::errc::not_found,
                    "node " + st.cfg.name + " knows nothing of " + f.identity);
    },
    [self](messages::node_cancel& c) {
      if (c.epoch < self->state.epoch || !self->state.running.contains(c.identity))
        return;
      self->send(self->state.cfg.host, messages::cancel_attempt{c.identity});
    },
    [self, check_every](messages::node_lease_check) {
      auto& st = self->state;
      if (st.leased && runtime::lease_expired(st.last_renewed, st.cfg.steady_ms(), st.cfg.lease_ms)) {
        st.leased = false;
        spdlog::warn("node: no lease renewal from the coordinator for {} ms", st.cfg.lease_ms);
        stop_all(self, "the lease ran out");
      }
      self->delayed_send(self, check_every, messages::node_lease_check{});
    },
  };
}

} // namespace ad::actors
