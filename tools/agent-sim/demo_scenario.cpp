#include "tools/agent-sim/demo_scenario.hpp"

namespace ad::agent_sim {

using runtime::json;

json demo_scenario(const std::vector<std::string>& given) {
  std::vector<std::string> tasks = given;
  if (tasks.empty()) tasks = {"demo/01_model", "demo/02+01_api", "demo/03+01_cli", "demo/04+02,03_docs"};
  const json work = {{"kind", "work"}};
  const json events = {{"kind", "events"}, {"count", 3}, {"interval_seconds", 0.5}};
  // One script per failure, handed out round-robin over the tasks.
  const std::vector<json> scripts = {
    {{"worker", {{"1", {{"actions", {events, {{"kind", "fail"}, {"failure", "rate_limit"},
                                              {"retry_after_seconds", 2}}}}}}}}},
    {{"worker", {{"1", {{"actions", {events, {{"kind", "fail"}, {"failure", "stream_disconnected"}}}}}}}}},
    {{"worker", {{"1", {{"actions", {events, {{"kind", "fail"}, {"failure", "file_exists"},
                                              {"path", "README.md"}}}}}}}}},
    {{"worker", {{"1", {{"actions", {events, {{"kind", "silence"}, {"seconds", 3}}, work}}}}}},
     {"review", {{"1", {{"actions", {events, {{"kind", "review"}, {"verdict", "FAIL"}}}}}}}}},
  };
  json doc = {{"version", 1},
              {"description", "agent-sim demo: a few realistic failures, then competent agents"},
              {"tasks", json::object()}};
  for (std::size_t i = 0; i < tasks.size() && i < scripts.size(); ++i) doc["tasks"][tasks[i]] = scripts[i];
  return doc;
}

} // namespace ad::agent_sim
