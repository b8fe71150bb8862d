#include "runtime/agents/failure_classifier.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>

#include "runtime/agents/reset_time.hpp"
#include "runtime/core/json.hpp"
#include "runtime/process/spawn.hpp"

namespace ad::runtime {

namespace {

void set_evidence(failure_verdict& v, const std::string& text, const std::string& origin) {
  v.evidence_truncated = text.size() > failure_evidence_limit;
  size_t cut = std::min(text.size(), failure_evidence_limit);
  // Do not split a UTF-8 sequence.
  while (cut > 0 && cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  v.evidence = text.substr(0, cut);
  v.evidence_origin = origin;
}

bool is_transport_class(const std::string& failure_class) {
  return failure_class == "provider-connection" || failure_class == "provider-stream-disconnect";
}

std::optional<std::pair<int, bool>> termination(const agent_exit_status& exit) {
  if (exit.ended == agent_exit_status::how::signaled)
    return std::pair{exit.signal, false};
  if (exit.code > 128 && exit.code <= 128 + 64)
    return std::pair{exit.code - 128, true};
  return std::nullopt;
}

} // namespace

namespace {

bool judged_by_typed_end(adapter_kind kind) {
  return kind == adapter_kind::codex || kind == adapter_kind::claude || kind == adapter_kind::pi;
}

void set_reset(failure_verdict& v, const failure_inputs& in, const std::string& evidence) {
  if (v.failure_class != "provider-quota")
    return;
  if (in.outcome.reset_at) {
    v.reset_at = in.outcome.reset_at;
    return;
  }
  v.reset_at = extract_reset_at(evidence, in.observed_at, in.utc_offset_s);
  for (size_t i = 0; !v.reset_at && i < in.diagnostics_newest_first.size(); ++i)
    v.reset_at =
      extract_reset_at(in.diagnostics_newest_first[i].text, in.observed_at, in.utc_offset_s);
}

void set_class(failure_verdict& v, std::string failure_class, bool typed) {
  v.failure_class = std::move(failure_class);
  if (is_transport_class(v.failure_class)) {
    v.failure_source = "provider-terminal-diagnostic";
    v.provider_transport_failure_confirmed = true;
  } else {
    v.failure_source = typed ? "cli-typed-end" : "cli-terminal-diagnostic";
  }
}

// Step 7: the CLI said its final turn failed.
void classify_typed_failure(failure_verdict& v, const failure_inputs& in,
                            const compiled_failure_patterns& table) {
  const cli_failure& f = in.outcome.failure;
  std::string code = f.code;
  std::string message = f.message;
  std::string origin = f.origin;
  if (in.kind == adapter_kind::codex)
    for (const auto& d : in.diagnostics_newest_first)
      if (d.origin == "codex:rollout") {
        if (auto j = parse_json(d.text, "rollout error"); j && j->is_object()) {
          code = j->value("code", std::string());
          if (message.empty())
            message = j->value("message", std::string());
        }
        break;
      }
  auto meaning = meaning_of_code(in.kind, code);
  std::string failure_class;
  if (!meaning.failure_class.empty() && !meaning.patterns_first)
    failure_class = meaning.failure_class;
  if (failure_class.empty())
    if (auto m = table.match(message))
      failure_class = m->failure_class;
  if (failure_class.empty())
    failure_class = meaning.failure_class;
  if (failure_class.empty()) {
    v.failure_class = "generic-error";
    v.failure_source = "cli-typed-end";
  } else {
    set_class(v, std::move(failure_class), true);
  }
  set_evidence(v, message.empty() ? code : message, origin);
  set_reset(v, in, message);
}

} // namespace

failure_verdict classify_attempt(const failure_inputs& in,
                                 const compiled_failure_patterns& table) {
  failure_verdict v;
  const auto& diags = in.diagnostics_newest_first;

  if (auto t = termination(in.exit)) {
    v.termination_signal = t->first;
    v.termination_signal_name = signal_name(t->first);
    v.termination_signal_inferred = t->second;
  }

  if (in.review_control_tool) {
    v.failure_class = "review-control-violation";
    v.failure_source = "dispatcher-control";
    auto d = review_control_diagnostic(*in.review_control_tool);
    set_evidence(v, d.text, d.origin);
    return v;
  }
  if (in.launch == launch_outcome::failed_to_start) {
    v.failure_class = std::string(launch_failure_class);
    v.failure_source = "cli-launch";
    set_evidence(v, in.launch_error.empty() ? "command not found" : in.launch_error,
                 "dispatcher:launch");
    return v;
  }
  if (in.stop == dispatcher_stop::no_progress) {
    set_class(v, in.no_progress.failure_class.empty() ? std::string("provider-connection")
                                                       : in.no_progress.failure_class,
              true);
    v.failure_source = "dispatcher-no-progress";
    set_evidence(v, in.no_progress.evidence, in.no_progress.origin);
    set_reset(v, in, in.no_progress.evidence);
    return v;
  }
  if (in.stop != dispatcher_stop::none) {
    bool cancelled = in.stop == dispatcher_stop::cancelled;
    v.failure_class = cancelled ? "cancelled" : "session-stall";
    v.failure_source = cancelled ? "caller-cancel" : "dispatcher-stall";
    return v;
  }
  bool nonzero = in.exit.ended == agent_exit_status::how::signaled || in.exit.code != 0;
  if (nonzero && v.termination_signal) {
    v.failure_class = "process-terminated";
    v.failure_source = "process-termination";
    return v;
  }
  if (in.exit.ended == agent_exit_status::how::exited && in.exit.code == launch_failure_exit_code) {
    v.failure_class = std::string(launch_failure_class);
    v.failure_source = "cli-launch";
    for (const auto& d : diags)
      if (d.text.find("not found") != std::string::npos) {
        set_evidence(v, d.text, d.origin);
        return v;
      }
    set_evidence(v, "exit status 127 (command not found)", "dispatcher:exit");
    return v;
  }
  if (nonzero && !in.outcome.printed_events) {
    // Oldest refusal first: the CLI's first complaint names the problem.
    for (auto it = diags.rbegin(); it != diags.rend(); ++it)
      if (it->origin == "stderr")
        if (auto r = detect_launch_refusal(in.kind, it->text)) {
          v.failure_class = std::string(launch_refused_class);
          v.failure_source = "cli-refusal";
          set_evidence(v, r->line, it->origin);
          return v;
        }
  }
  if (in.outcome.end == cli_end::failed) {
    classify_typed_failure(v, in, table);
    return v;
  }
  if (in.outcome.end == cli_end::succeeded && !nonzero)
    return v;
  {
    // stderr of a run that exited 0 is no verdict for a CLI with typed
    // events; its own error events still are when it never said how it
    // ended.
    bool skip_stderr = !nonzero && judged_by_typed_end(in.kind);
    for (const auto& d : diags) {
      if (skip_stderr && d.origin == "stderr")
        continue;
      auto m = table.match(d.text);
      if (!m)
        continue;
      set_class(v, m->failure_class, false);
      set_evidence(v, d.text, d.origin);
      set_reset(v, in, d.text);
      return v;
    }
  }
  if (nonzero) {
    v.failure_class = "generic-error";
    v.failure_source = "cli-exit";
    if (!diags.empty())
      set_evidence(v, diags.front().text, diags.front().origin);
  }
  return v;
}

} // namespace ad::runtime
