#include "runtime/state/spend.hpp"

namespace ad::runtime {

spend_totals spend_totals_of(const state_model& state) {
  spend_totals out;
  for (const auto& [id, s] : state.spent) {
    out.run += s.usage;
    out.by_task[s.task] += s.usage;
    out.by_target[s.target] += s.usage;
  }
  return out;
}

token_usage task_spend(const state_model& state, std::string_view task) {
  token_usage out;
  for (const auto& [id, s] : state.spent)
    if (s.task == task)
      out += s.usage;
  return out;
}

} // namespace ad::runtime
