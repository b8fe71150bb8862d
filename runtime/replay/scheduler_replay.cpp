#include "runtime/replay/scheduler_replay.hpp"

#include <memory>

#include "runtime/records/scheduler_records.hpp"
#include "runtime/trace/trace_kinds.hpp"

namespace ad::runtime {

namespace {

// What the handler keeps between edges: the policy and zone the machine
// decides with, and the machine.
struct scheduler_replay_state {
  policy pol;
  time_zone zone;
  std::unique_ptr<scheduler_machine> machine;
};

result<std::vector<replayed_decision>> replay_event(scheduler_replay_state& r, const json& body) {
  if (!body.is_object() || !body.contains("now") || !body["now"].is_number_integer())
    return status::invalid_argument("scheduler.event: needs now");
  auto event = scheduler_event_from_json(body);
  if (!event)
    return event.error();
  auto commands = r.machine->step(body["now"].get<millis>(), *event);
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::scheduler_commands), json{{"commands", commands_to_json(commands)}}}};
}

} // namespace

void add_scheduler_machine_replay(replay_handlers& handlers, const policy& pol,
                                  const time_zone& zone, const scheduler_context& base) {
  auto r = std::make_shared<scheduler_replay_state>();
  r->pol = pol;
  r->zone = zone;
  auto ctx = base;
  ctx.pol = &r->pol;
  ctx.zone = &r->zone;
  r->machine = std::make_unique<scheduler_machine>(ctx);
  handlers[std::string(trace_kinds::scheduler_event)] = {
    {std::string(trace_kinds::scheduler_commands)},
    [r](const json& body) { return replay_event(*r, body); }};
}

} // namespace ad::runtime
