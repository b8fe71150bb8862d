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

// The attempts of this epoch, and those of an older one not adopted yet.
std::pair<std::vector<std::string>, std::vector<std::string>> holdings(self_ptr self) {
  std::vector<std::string> held, orphans;
  for (const auto& [identity, h] : self->state.running)
    (h.orphan_until != 0 ? orphans : held).push_back(identity);
  return {std::move(held), std::move(orphans)};
}

messages::node_welcome welcome_of(self_ptr self) {
  const auto& cfg = self->state.cfg;
  auto [held, orphans] = holdings(self);
  return {runtime::node_protocol_version, cfg.name, cfg.slots, cfg.adapters, std::move(held),
          std::move(orphans)};
}

void stop(self_ptr self, const std::string& identity, const char* why) {
  spdlog::warn("node: stopping {} ({})", identity, why);
  self->send(self->state.cfg.host, messages::cancel_attempt{identity});
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
      st.last_renewed = st.cfg.steady_ms();
      if (h.epoch > st.epoch) {
        // A coordinator that took over: what the older one ordered waits
        // one lease for its adoption (node_follow), then stops.
        for (auto& [identity, held] : st.running)
          if (held.orphan_until == 0)
            held.orphan_until = st.last_renewed + st.cfg.lease_ms;
      }
      st.epoch = h.epoch;
      st.leased = true;
      touch_lease(self);
      return welcome_of(self);
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
      return messages::lease_granted{static_cast<int32_t>(st.running.size()),
                                     holdings(self).second};
    },
    [self](messages::node_start& s) -> caf::result<messages::attempt_result> {
      auto& st = self->state;
      if (s.epoch != st.epoch)
        return refuse(messages::errc::invalid_request,
                      "order of epoch " + std::to_string(s.epoch) + ", node " + st.cfg.name +
                        " serves epoch " + std::to_string(st.epoch));
      if (!st.leased)
        return refuse(messages::errc::conflict, "node " + st.cfg.name + " holds no current lease");
      if (static_cast<int32_t>(st.running.size()) >= st.cfg.slots)
        return refuse(messages::errc::conflict, "node " + st.cfg.name + " has no free slot");
      auto identity = runtime::make_attempt_identity(s.order.task, s.order.plan_number,
                                                     s.order.role, s.order.attempt);
      if (st.running.contains(identity))
        return refuse(messages::errc::conflict, identity + " already runs on node " + st.cfg.name);
      auto answer = self->make_response_promise<messages::attempt_result>();
      st.running[identity] = {s.epoch, 0, answer};
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
        if (i->second.orphan_until > 0)
          spdlog::info("node: {} adopted by the coordinator of epoch {}", f.identity, f.epoch);
        i->second.epoch = f.epoch;
        i->second.orphan_until = 0;
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
      auto now = st.cfg.steady_ms();
      if (st.leased && runtime::lease_expired(st.last_renewed, now, st.cfg.lease_ms)) {
        st.leased = false;
        spdlog::warn("node: no lease renewal from the coordinator for {} ms", st.cfg.lease_ms);
        for (auto& [identity, held] : st.running) {
          stop(self, identity, "the lease ran out");
          if (held.orphan_until > 0)
            held.orphan_until = -1;
        }
      }
      for (auto& [identity, held] : st.running)
        if (held.orphan_until > 0 && now > held.orphan_until) {
          held.orphan_until = -1;  // stopping; kept out of `held`
          stop(self, identity, "the coordinator that took over did not adopt it");
        }
      self->delayed_send(self, check_every, messages::node_lease_check{});
    },
  };
}

} // namespace ad::actors
