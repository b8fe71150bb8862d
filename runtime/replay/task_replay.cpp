#include "runtime/replay/task_replay.hpp"

#include <map>
#include <memory>

#include "runtime/trace/trace_kinds.hpp"

namespace ad::runtime {

namespace {

// What the handler keeps between edges: the policy and zone the machines
// decide with, and each task's machine of its current lifetime.
struct task_replay_state {
  policy pol;
  time_zone zone;
  task_context ctx;
  std::map<std::string, std::unique_ptr<task_machine>> machines;
};

result<std::vector<replayed_decision>> replay_event(task_replay_state& r, const json& body) {
  if (!body.is_object() || !body.contains("task") || !body["task"].is_string() ||
      !body.contains("now") || !body["now"].is_number_integer())
    return status::invalid_argument("task.event: needs task and now");
  auto task = body["task"].get<std::string>();
  auto event = task_event_from_json(body);
  if (!event)
    return event.error().with_context("task.event of " + task);
  if (std::holds_alternative<task_ev::begun>(*event)) {
    if (!body.contains("spec"))
      return status::invalid_argument("task.event of " + task + ": begun needs its spec");
    auto spec = task_spec_from_json(body["spec"]);
    if (!spec)
      return spec.error().with_context("task.event of " + task);
    r.machines[task] = std::make_unique<task_machine>(r.ctx, std::move(*spec));
  }
  auto it = r.machines.find(task);
  if (it == r.machines.end())
    return status::invalid_argument("task.event of " + task + " before its begun event");
  auto commands = it->second->step(body["now"].get<millis>(), *event);
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::task_commands),
     json{{"task", task}, {"commands", commands_to_json(commands)}}}};
}

} // namespace

void add_task_machine_replay(replay_handlers& handlers, const policy& pol, const time_zone& zone,
                             const task_context& base) {
  auto r = std::make_shared<task_replay_state>();
  r->pol = pol;
  r->zone = zone;
  r->ctx = base;
  r->ctx.pol = &r->pol;
  r->ctx.zone = &r->zone;
  handlers[std::string(trace_kinds::task_event)] = {
    {std::string(trace_kinds::task_commands)},
    [r](const json& body) { return replay_event(*r, body); }};
}

} // namespace ad::runtime
