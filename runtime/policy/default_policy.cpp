// The embedded default policy: the original dispatcher's targets and chain
// (local pi models, agy, claude opus at xhigh, codex at high; reviews on codex
// at xhigh), its budgets and backoff, and English prompt texts. The failure
// pattern table comes from runtime/agents so the two never drift apart.
#include "runtime/policy/policy.hpp"

namespace ad::runtime {

namespace {

constexpr std::string_view default_policy_text = R"json({
  "version": 1,
  "timezone": "Asia/Seoul",
  "targets": [
    {"id": "pi-laguna-s", "adapter": "pi", "model": "laguna-s",
     "execution_class": "local_model", "selfcheck_required": true,
     "reasoning_effort": "high", "native_resume": true},
    {"id": "pi-laguna-m", "adapter": "pi", "model": "laguna-m",
     "execution_class": "local_model", "selfcheck_required": true,
     "reasoning_effort": "high", "native_resume": false},
    {"id": "agy-gemini", "adapter": "agy", "model": "gemini-3-pro",
     "execution_class": "cloud_model",
     "quota_probe": ["iop-node", "quota-probe", "--adapter", "{adapter}", "--model", "{model}"]},
    {"id": "claude-opus", "adapter": "claude", "model": "claude-opus-4-8",
     "execution_class": "cloud_model", "reasoning_effort": "xhigh",
     "quota_probe": ["iop-node", "quota-probe", "--adapter", "{adapter}", "--model", "{model}"]},
    {"id": "codex-terra", "adapter": "codex", "model": "gpt-5.6-terra",
     "execution_class": "cloud_model", "reasoning_effort": "high",
     "quota_probe": ["iop-node", "quota-probe", "--adapter", "{adapter}", "--model", "{model}"]},
    {"id": "codex-terra-review", "adapter": "codex", "model": "gpt-5.6-terra",
     "execution_class": "cloud_model", "reasoning_effort": "xhigh"}
  ],
  "rules": [
    {"id": "local-workers", "priority": 10, "stage": "worker", "lanes": ["local"],
     "grades": [1, 10], "candidates": ["pi-laguna-s", "pi-laguna-m"]},
    {"id": "cloud-workers", "priority": 10, "stage": "worker", "lanes": ["cloud"],
     "grades": [1, 10], "candidates": ["agy-gemini", "claude-opus", "codex-terra"]},
    {"id": "local-selfcheck", "priority": 10, "stage": "selfcheck", "lanes": ["local"],
     "grades": [1, 10], "candidates": ["pi-laguna-s", "pi-laguna-m"]}
  ],
  "promotion": {"agy-gemini": "claude-opus", "claude-opus": "codex-terra"},
  "review_target": "codex-terra-review",
  "budgets": {"recovery_failures": 10, "selfcheck_incomplete": 10,
              "review_no_progress": 10, "reset_waits": 10},
  "backoff": {"initial_s": 2, "coefficient": 2, "max_s": 30},
  "timeouts": {"heartbeat_s": 30, "silence_inspection_s": 180, "stall_limit_s": 0,
               "reset_wait_max_s": 3600, "quota_cooldown_s": 1800},
  "no_progress": {"network_wait_s": 180, "retrying_s": 120, "cli_max_retries": 3},
  "claims": {"on_violation": "warn", "watch": "auto"},
  "tactical_patterns": [
    {"id": "file-already-exists",
     "regexes": ["file already exists(?:[:,]\\s*(?:open\\s+)?['\"`]?([^\\s'\"`,;]+))?",
                 "\\bFileExistsError\\b(?:[^'\"]*['\"]([^'\"]+)['\"])?",
                 "\\bEEXIST\\b(?:[^'\"]*['\"]([^'\"]+)['\"])?",
                 "already exists:(?:\\s*['\"`]?([^\\s'\"`,;]+))?"],
     "instruction": "These files exist from earlier runs of this task: edit them in place, do not create them again."},
    {"id": "file-not-found",
     "regexes": ["\\bopen ([^\\s:'\"]+): no such file or directory",
                 "no such file or directory(?:[:,]\\s*(?:open\\s+|stat\\s+)?['\"`]?([^\\s'\"`,;]+))?",
                 "file not found(?::\\s*['\"`]?([^\\s'\"`,;]+))?",
                 "\\bFileNotFoundError\\b(?:[^'\"]*['\"]([^'\"]+)['\"])?",
                 "\\bENOENT\\b(?:[^'\"]*['\"]([^'\"]+)['\"])?"],
     "instruction": "A file the task expected was missing. Check which of the listed files exist now before you read or edit them; create a file only when the plan claims it."},
    {"id": "permission-denied",
     "regexes": ["permission denied(?:[:,]\\s*(?:open\\s+)?['\"`]?([^\\s'\"`,;]+))?",
                 "\\bEACCES\\b(?:[^'\"]*['\"]([^'\"]+)['\"])?",
                 "\\bPermissionError\\b(?:[^'\"]*['\"]([^'\"]+)['\"])?",
                 "operation not permitted"],
     "instruction": "A write was refused by file permissions. Do not change permissions and do not write outside the plan's files; work only on the files listed here."}
  ],
  "prompts": {
    "worker": "Read {plan} and complete the task. Write every artifact in English.",
    "selfcheck": "Read {review} and fill in every missing implementation field; do not stop until all of them are complete. This is a self-check of finished work, not a review. Read {plan}, finish any missing work, then recheck and fix your work.",
    "review": "Read {review} and start the review. Write every artifact in English.",
    "continuation": "The previous attempt on this task stopped early. Its record is {locator}. Check the saved context and the current workspace, then continue from where it stopped and complete the task in {plan}.",
    "review_continuation": "Continue the review of {task_dir}: read {review} and finish it.",
    "context_package": "Another agent started this task and stopped. Read the plan {plan}, its attempt record {locator}, the raw log {raw_log} and the rendered output {normalized_output}; the workspace is {workspace}. Continue from where it stopped and complete the task.",
    "native_resume": "Continue this session and complete the current task.",
    "intervention": "Before you start, note what earlier attempts left behind:"
  }
})json";

} // namespace

const json& default_policy_json() {
  static const json doc = [] {
    // The text is a constant covered by tests; a parse failure is a bug and
    // leaves an empty document that parse_policy then rejects loudly.
    auto parsed = parse_json(default_policy_text, "embedded default policy");
    json d = parsed ? std::move(*parsed) : json::object();
    json patterns = json::array();
    for (const auto& p : default_failure_patterns())
      patterns.push_back({{"failure_class", p.failure_class}, {"regexes", p.regexes}});
    d["failure_patterns"] = std::move(patterns);
    return d;
  }();
  return doc;
}

} // namespace ad::runtime
