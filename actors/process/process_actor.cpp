#include "actors/process/process_actor.hpp"

#include <caf/all.hpp>

#include "messages/errc.hpp"
#include "runtime/process/spawn.hpp"

namespace ad::actors {

namespace {

namespace rt = ad::runtime;
namespace msg = ad::messages;

// Runs on the reactor thread: forwards one child's events to its subscriber.
class forwarding_sink final : public rt::process_event_sink {
public:
  explicit forwarding_sink(msg::process_subscriber_actor dest) : dest_(std::move(dest)) {}

  void on_line(rt::process_line&& line) override {
    msg::process_line out;
    out.child = line.id;
    out.stream = line.stream == rt::output_stream::stdout_stream ? msg::process_stream::out
                                                                 : msg::process_stream::err;
    out.text = std::move(line.text);
    out.cut = line.cut == rt::line_cut::whole ? msg::process_line_cut::whole
                                              : msg::process_line_cut::truncated;
    out.dropped_bytes = line.dropped_bytes;
    caf::anon_send(dest_, std::move(out));
  }

  void on_silence(const rt::process_silence& tick) override {
    caf::anon_send(dest_, msg::process_silence{tick.id, tick.silent_for_ms});
  }

  void on_exit(const rt::process_exit& ex) override {
    msg::process_exit out;
    out.child = ex.id;
    out.pid = ex.pid;
    out.end = ex.kind == rt::exit_kind::exited     ? msg::process_end::exited
              : ex.kind == rt::exit_kind::signaled ? msg::process_end::signaled
                                                   : msg::process_end::launch_failed;
    out.exit_code = ex.exit_code;
    out.signal = ex.signal;
    out.reason = ex.reason;
    out.lost_lines = ex.lost_lines;
    caf::anon_send(dest_, std::move(out));
  }

  void on_agent(const rt::process_agent& agent) override {
    caf::anon_send(dest_, msg::process_agent_started{agent.id, agent.pid, agent.start_token});
  }

private:
  msg::process_subscriber_actor dest_;
};

// "NAME=value" pairs; false on an entry without '=' or with an empty name.
bool split_env(const std::vector<std::string>& in,
               std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& entry : in) {
    auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0)
      return false;
    out.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return true;
}

} // namespace

msg::process_actor::behavior_type process_actor_impl(
  msg::process_actor::stateful_pointer<process_actor_state> self, process_actor_config cfg) {
  if (auto r = rt::process_reactor::start(cfg.reactor))
    self->state.reactor = std::move(r.value());
  self->state.default_subscriber = std::move(cfg.default_subscriber);
  return {
    [self](msg::spawn_process& req) -> caf::result<msg::process_spawned> {
      auto& st = self->state;
      if (!st.reactor)
        return caf::make_error(msg::errc::retry_call, "process reactor is not running");
      rt::spawn_request spawn;
      if (req.argv.empty() || !split_env(req.env_additions, spawn.env_additions))
        return caf::make_error(msg::errc::invalid_request, "empty argv or bad env addition");
      auto subscriber = caf::actor_cast<msg::process_subscriber_actor>(self->current_sender());
      if (!subscriber)
        subscriber = st.default_subscriber;
      if (!subscriber)
        return caf::make_error(msg::errc::invalid_request, "no subscriber for process events");
      spawn.argv = std::move(req.argv);
      spawn.cwd = req.cwd;
      spawn.marker = std::move(req.marker);
      spawn.line_cap = static_cast<std::size_t>(req.line_cap);
      spawn.silence_interval_ms = req.silence_interval_ms;
      spawn.flow_window = req.flow_window;
      if (!req.keeper.empty())
        spawn.keeper = rt::keeper_launch{req.keeper, req.attempt_dir, req.grace_ms,
                                         req.lease_file, req.lease_ms, req.keep_alive};
      spawn.sink = std::make_shared<forwarding_sink>(std::move(subscriber));
      auto out = st.reactor->spawn(std::move(spawn));
      if (!out)
        return caf::make_error(msg::errc::retry_call, out.error().to_string());
      msg::process_spawned reply;
      reply.child = out->id;
      reply.pid = out->pid;
      reply.start_token = out->start_token;
      if (out->kind == rt::spawn_result_kind::launch_failed) {
        reply.outcome = msg::process_start::launch_failed;
        reply.exit_code = rt::launch_failure_exit_code;
        reply.reason = out->reason;
      }
      return reply;
    },
    [self](msg::adopt_process& req) -> caf::result<msg::process_spawned> {
      auto& st = self->state;
      if (!st.reactor)
        return caf::make_error(msg::errc::retry_call, "process reactor is not running");
      auto subscriber = caf::actor_cast<msg::process_subscriber_actor>(self->current_sender());
      if (!subscriber)
        subscriber = st.default_subscriber;
      if (!subscriber)
        return caf::make_error(msg::errc::invalid_request, "no subscriber for process events");
      rt::adopt_request adopt;
      adopt.attempt_dir = req.attempt_dir;
      adopt.keeper_pid = req.keeper_pid;
      adopt.keeper_start_token = req.keeper_start_token;
      adopt.flow_window = req.flow_window;
      adopt.sink = std::make_shared<forwarding_sink>(std::move(subscriber));
      auto id = st.reactor->adopt(std::move(adopt));
      if (!id)
        return caf::make_error(msg::errc::invalid_request, id.error().to_string());
      msg::process_spawned reply;
      reply.child = *id;
      reply.pid = req.keeper_pid;
      reply.start_token = req.keeper_start_token;
      return reply;
    },
    [self](const msg::terminate_process& cmd) {
      if (self->state.reactor)
        self->state.reactor->terminate(cmd.child, cmd.grace_ms);
    },
    [self](const msg::process_output_consumed& done) {
      if (self->state.reactor)
        self->state.reactor->acknowledge(done.child, done.bytes);
    },
  };
}

} // namespace ad::actors
