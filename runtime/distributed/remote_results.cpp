#include "runtime/distributed/remote_results.hpp"

#include "runtime/agents/attempt_locator.hpp"

namespace ad::runtime {

namespace {

attempt_result failed(const attempt_order& order, millis now) {
  attempt_result r;
  r.identity = make_attempt_identity(order.task, order.plan_number, order.role, order.attempt);
  r.status = "failed";
  r.exit_code = -1;
  r.started_at = now;
  r.finished_at = now;
  return r;
}

} // namespace

attempt_result node_lost_result(const attempt_order& order, const std::string& node,
                                const std::string& why, millis now) {
  auto r = failed(order, now);
  r.failure_class = std::string(node_lost_class);
  r.failure_source = "node";
  r.evidence = "node " + node + " lost: " + why;
  r.evidence_origin = "coordinator";
  return r;
}

attempt_result cancelled_while_waiting(const attempt_order& order, millis now) {
  auto r = failed(order, now);
  r.failure_class = "cancelled";
  r.failure_source = "caller-cancel";
  r.evidence = "cancelled while waiting for a node";
  r.evidence_origin = "coordinator";
  return r;
}

} // namespace ad::runtime
