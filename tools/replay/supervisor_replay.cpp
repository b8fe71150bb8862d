#include "tools/replay/supervisor_replay.hpp"

#include <caf/all.hpp>

#include "actors/supervisor/supervisor_actor.hpp"
#include "messages/supervisor.hpp"
#include "tools/replay/deterministic_system.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::tools {

namespace {

namespace kinds = runtime::trace_kinds;
using runtime::json;
using decisions = runtime::result<std::vector<runtime::replayed_decision>>;

struct failure_answer {
  bool done = false;
  std::string error;
  messages::supervision_decided decided;
  runtime::target_cooldowns cooldowns;
};

// Asks the supervisor one supervise_failure, then the cool-downs it keeps.
void ask_supervisor(caf::event_based_actor* self, messages::supervisor_actor sup,
                    messages::supervise_failure msg, std::shared_ptr<failure_answer> out) {
  auto fail = [self, out](caf::error& err) {
    out->error = self->system().render(err);
    out->done = true;
  };
  self->request(sup, caf::infinite, std::move(msg))
    .then(
      [self, sup, out, fail](messages::supervision_decided& d) {
        out->decided = std::move(d);
        self->request(sup, caf::infinite, messages::get_target_cooldowns{})
          .then(
            [out](messages::target_cooldowns_reply& r) {
              out->cooldowns = std::move(r.cooldowns);
              out->done = true;
            },
            fail);
      },
      fail);
}

// The supervisor.step body of a reply, as supervisor_step_body records it.
json step_body(messages::supervision_decided d, runtime::target_cooldowns cooldowns) {
  return runtime::supervisor_step_body(
    {std::move(d.step), std::move(d.changes), std::move(d.events), std::move(cooldowns)});
}

} // namespace

struct supervisor_replay::impl {
  deterministic_config cfg;
  caf::actor_system sys{cfg};
  caf::scheduler::test_coordinator& sched = test_scheduler(sys);
  messages::supervisor_actor sup;
};

supervisor_replay::supervisor_replay(const runtime::policy& pol, const runtime::time_zone& zone)
    : impl_(std::make_unique<impl>()) {
  impl_->sup = actors::spawn_supervisor(impl_->sys, pol, zone);
  impl_->sched.run();
}

supervisor_replay::~supervisor_replay() {
  caf::anon_send_exit(impl_->sup, caf::exit_reason::user_shutdown);
  impl_->sched.run();
}

decisions supervisor_replay::failure(const json& body) {
  if (!body.is_object() || !body.contains("request") || !body.contains("task_state") ||
      !body.contains("now") || !body["now"].is_number_integer())
    return runtime::status::invalid_argument("supervisor.failure: needs request, task_state and now");
  auto req = runtime::supervisor_request_from_json(body["request"]);
  if (!req)
    return runtime::status::invalid_argument("supervisor.failure: " + req.error().message());
  auto task = runtime::task_from_json_text(runtime::dump_json(body["task_state"]),
                                           "supervisor.failure.task_state");
  if (!task)
    return task.error();
  messages::supervise_failure msg{std::move(*req), std::move(*task), body["now"].get<int64_t>()};
  auto out = std::make_shared<failure_answer>();
  impl_->sys.spawn(ask_supervisor, impl_->sup, std::move(msg), out);
  impl_->sched.run();
  if (!out->done)
    return runtime::status::internal("supervisor.failure: the supervisor actor did not answer");
  if (!out->error.empty())
    return runtime::status::invalid_argument("supervisor.failure: " + out->error);
  return std::vector<runtime::replayed_decision>{
    {std::string(kinds::supervisor_step), step_body(std::move(out->decided), std::move(out->cooldowns))}};
}

decisions supervisor_replay::quota_batch(const json& body) {
  if (!body.is_object() || !body.contains("snapshot"))
    return runtime::status::invalid_argument("supervisor.quota_batch: needs snapshot");
  auto snap = runtime::probe_snapshot_from_json(body["snapshot"]);
  if (!snap.is_ok())
    return snap.error();
  caf::anon_send(impl_->sup, messages::quota_batch_taken{std::move(*snap)});
  impl_->sched.run();
  return std::vector<runtime::replayed_decision>{};
}

void add_supervisor_actor_replay(runtime::replay_handlers& handlers, const runtime::policy& pol,
                                 const runtime::time_zone& zone) {
  auto s = std::make_shared<supervisor_replay>(pol, zone);
  handlers[std::string(kinds::supervisor_failure)] = {
    {std::string(kinds::supervisor_step)}, [s](const json& body) { return s->failure(body); }};
  handlers[std::string(kinds::quota_batch)] = {
    {}, [s](const json& body) { return s->quota_batch(body); }};
}

} // namespace ad::tools
