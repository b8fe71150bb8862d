#include "runtime/schedule/runtime_identity.hpp"

namespace ad::runtime {

status check_completing_identity(const completing_target& decision,
                                 std::string_view expected_work_unit_id,
                                 const attempt_identity& actual) {
  if (decision.stage != "worker")
    return status::invalid_argument("completing decision is for stage '" + decision.stage +
                                    "', not worker");
  if (decision.work_unit_id != expected_work_unit_id)
    return status::invalid_argument("completing decision work unit mismatch: decision=" +
                                    decision.work_unit_id +
                                    " plan=" + std::string(expected_work_unit_id));
  if (decision.cli.empty() || decision.model.empty())
    return status::invalid_argument("completing decision names no target (cli='" +
                                    decision.cli + "', model='" + decision.model + "')");
  if (decision.cli != actual.cli)
    return status::invalid_argument("worker runtime cli mismatch: expected=" + decision.cli +
                                    " actual=" + actual.cli);
  if (decision.model != actual.model)
    return status::invalid_argument("worker runtime model mismatch: expected=" + decision.model +
                                    " actual=" + actual.model);
  return status::ok();
}

} // namespace ad::runtime
