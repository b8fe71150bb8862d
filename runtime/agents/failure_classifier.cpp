#include "runtime/agents/failure_classifier.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>

#include "runtime/agents/reset_time.hpp"

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

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  if (abbrev != nullptr)
    return std::string("SIG") + abbrev;
  return "SIG" + std::to_string(signal);
}

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
    v.failure_class = "launch-failure";
    v.failure_source = "cli-launch";
    set_evidence(v, in.launch_error.empty() ? "command not found" : in.launch_error,
                 "dispatcher:launch");
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
  if (in.exit.ended == agent_exit_status::how::exited && in.exit.code == 127) {
    v.failure_class = "launch-failure";
    v.failure_source = "cli-launch";
    for (const auto& d : diags)
      if (d.text.find("not found") != std::string::npos) {
        set_evidence(v, d.text, d.origin);
        return v;
      }
    set_evidence(v, "exit status 127 (command not found)", "dispatcher:exit");
    return v;
  }
  for (const auto& d : diags) {
    auto m = table.match(d.text);
    if (!m)
      continue;
    v.failure_class = m->failure_class;
    set_evidence(v, d.text, d.origin);
    if (is_transport_class(v.failure_class)) {
      v.failure_source = "provider-terminal-diagnostic";
      v.provider_transport_failure_confirmed = true;
    } else {
      v.failure_source = "cli-terminal-diagnostic";
    }
    if (v.failure_class == "provider-quota") {
      v.reset_at = extract_reset_at(d.text, in.observed_at);
      for (size_t i = 0; !v.reset_at && i < diags.size(); ++i)
        v.reset_at = extract_reset_at(diags[i].text, in.observed_at);
    }
    return v;
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
