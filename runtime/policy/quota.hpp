#pragma once
// Quota knowledge used by target selection: the admission-time probe batch
// (which distinct probe commands to run for the newly admitted workers, and
// how to read their JSON answers into one snapshot), and the per-target
// cool-down shared by every task after a target ran out of quota. All values
// and pure functions: running a probe is an effect behind quota_probe_runner,
// implemented at the edge (process module or an actor). Nothing here reads
// the clock; callers pass `now`.
// Errors: parse_quota_probe_output never fails: unreadable output becomes
// status "unknown" with the reason in `detail`. The JSON readers return
// invalid_argument naming the field.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

enum class quota_status : uint8_t { available, exhausted, unknown };
std::string_view to_string(quota_status s);

struct probe_result {
  std::string target_id;
  std::vector<std::string> probe; // the expanded argv that was run
  quota_status state = quota_status::unknown;
  bool has_reset_at = false;
  millis reset_at = 0;
  std::string detail;
};

struct probe_snapshot {
  std::string snapshot_id; // "" = no snapshot taken
  millis checked_at = 0;
  std::string source; // "admission_batch", "runtime_failure", ...
  std::vector<probe_result> entries;

  const probe_result* find(std::string_view target_id) const;
};

json to_json(const probe_snapshot& s);
// The compact form a decision and the task state keep (target -> status).
quota_snapshot to_quota_snapshot(const probe_snapshot& s);
result<probe_snapshot> probe_snapshot_from_json(const json& j);

// One admitted worker whose candidates may need a probe.
struct probe_request {
  std::string task;
  std::vector<std::string> candidate_ids; // in rank order
  // A retry handoff probes the not-yet-used cloud candidates only.
  std::vector<std::string> used_ids;
  enum class kind : uint8_t { fresh, retry_handoff } mode = kind::fresh;
};

struct planned_probe {
  std::vector<std::string> argv;        // expanded probe command
  std::vector<std::string> target_ids;  // targets this probe answers for
};

// The distinct probes for all requests, in first-seen order. A fresh request
// probes its cloud candidates up to the first local one (local models need no
// quota); a retry handoff probes every cloud candidate not used yet.
std::vector<planned_probe> plan_quota_probes(const policy& pol,
                                             const std::vector<probe_request>& requests);

// Reads one probe's stdout: {"status": "available"|"exhausted"|"unknown",
// optional "reset_at": ISO-8601, optional "retry_after_s": seconds}.
probe_result parse_quota_probe_output(std::string_view target_id,
                                     const std::vector<std::string>& argv, std::string_view output,
                                     int exit_code, millis now);

// The effect: runs one probe and returns its stdout and exit code.
class quota_probe_runner {
public:
  virtual ~quota_probe_runner() = default;
  struct output {
    int exit_code = 0;
    std::string stdout_text;
  };
  virtual output run(const std::vector<std::string>& argv) = 0;
};

// Runs every planned probe once and assembles one snapshot.
probe_snapshot run_quota_probe_batch(const std::vector<planned_probe>& plan,
                                     quota_probe_runner& runner, std::string snapshot_id,
                                     millis now);

// Targets cooling down after running out of quota, shared across tasks.
class target_cooldowns {
public:
  struct entry {
    millis until = 0;
    std::string reason;
  };
  // Marks target exhausted until reset_at when known, else now + cooldown.
  void mark_exhausted(const std::string& target_id, millis now, std::optional<millis> reset_at,
                      double cooldown_s, std::string reason);
  // The end of target's cool-down when it is still cooling down at now.
  std::optional<entry> active(std::string_view target_id, millis now) const;
  void clear(const std::string& target_id) { entries_.erase(target_id); }
  // Drops entries that ended before now.
  void expire(millis now);
  const std::map<std::string, entry, std::less<>>& entries() const { return entries_; }

  // Folds a probe snapshot in: exhausted entries start a cool-down, available
  // ones end it.
  void apply_snapshot(const probe_snapshot& snap, double cooldown_s);

private:
  std::map<std::string, entry, std::less<>> entries_;
};

json to_json(const target_cooldowns& c);
result<target_cooldowns> target_cooldowns_from_json(const json& j);

} // namespace ad::runtime
