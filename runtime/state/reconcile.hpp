#pragma once
// The orchestration reconciliation rule of SPEC section 9 as a pure function:
// a task of a scope's orchestration record that vanished from agent-task/ is
// complete only when exactly one archive folder with complete.log appeared
// for it since first sight (i.e. outside its recorded archive baseline);
// otherwise it is an error naming the candidates. The caller scans the file
// system and passes what it saw; this function reads nothing else, returns
// the state changes to make durable (completion and claim release), and
// never throws.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

struct reconcile_outcome {
  std::map<std::string, std::string> completed;  // task -> archive folder
  std::map<std::string, std::string> errors;     // task -> human reason
  std::vector<state_change> changes;             // to apply through the store
};

// `live`: tasks still present in agent-task/ or running anywhere.
// `archives`: task -> archive folders holding complete.log right now.
reconcile_outcome reconcile_orchestration(const std::string& scope,
                                          const orchestration_record& record,
                                          const std::set<std::string>& live,
                                          const std::map<std::string, std::vector<std::string>>& archives);

} // namespace ad::runtime
