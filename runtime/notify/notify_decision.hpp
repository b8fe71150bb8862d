#pragma once
// The one decision about notifications (docs/notify.md): which rules of the
// policy's "notify" section a run event fires, and what each sends. The
// sender (tools/cli/run_notifier.hpp) feeds it every run event and only
// carries the result out. Pure: no I/O, no clock (a quota wait's length is
// its end minus the event's time), never throws except std::bad_alloc.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/policy/notify_policy.hpp"
#include "runtime/report/run_event.hpp"

namespace ad::runtime {

struct notification {
  std::string rule;                  // the rule's id
  notify_event event = notify_event::run_finished;
  std::vector<std::string> command;  // argv; empty: no command
  std::string url;                   // empty: no POST
  json body;                         // what is sent: the event JSON (docs/events.md)
};

// The notifications `event` fires, in the rules' order (one per rule at
// most). The body is the event's `run --json` object with `notification`
// (the notify event's name), `rule` (the rule's id) and `workspace` added.
std::vector<notification> notifications_for(const run_event& event, const policy_notify& notify,
                                            std::string_view workspace);

} // namespace ad::runtime
