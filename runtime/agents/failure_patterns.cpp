#include "runtime/agents/failure_patterns.hpp"

namespace ad::runtime {

std::vector<failure_pattern> default_failure_patterns() {
  return {
    {"context-limit",
     {
       R"(context (?:length|window))",
       R"(maximum context)",
       R"(prompt is too long)",
       R"(too many tokens)",
       R"(token limit)",
       R"(exceeded.{0,40}token)",
       R"(output (?:token )?limit)",
       R"(maximum output)",
       R"(\bmax_tokens\b)",
       R"(response (?:is )?too long)",
     }},
    {"provider-quota",
     {
       R"(rate.?limit)",
       R"(\bquota\b)",
       R"(resource[_ ]?exhausted)",
       R"(\b429\b)",
       R"(too many requests)",
       R"(usage limit)",
       R"(capacity limit)",
       R"(\bsession limit\b)",
       R"(hit your .{0,20}limit)",
     }},
    {"model-unavailable",
     {
       R"(model.{0,40}(?:not found|unavailable))",
       R"(model.{0,80}does not exist)",
       R"(issue with the selected model)",
       R"(\bat capacity\b)",
       R"(overloaded)",
       R"(temporarily unavailable)",
     }},
    {"provider-connection",
     {
       R"(\bprovider[_ -]?tunnel[_ -]?error\b)",
       R"((?:provider|backend|/v1/chat/completions|/v1/responses).{0,160}(?:connection refused|dial tcp))",
       R"(connection refused)",
       R"(\bECONNREFUSED\b)",
       R"(^connection error\.?$)",
       R"(waiting for network)",
       R"(connection failed: error sending request)",
     }},
    {"provider-stream-disconnect",
     {
       R"(backend connection failed during streaming request)",
       R"(sse stream before done)",
       R"(llama-server was unresponsive)",
       R"(backend watchdog)",
       R"(model will be reloaded automatically on retry)",
       R"((?:provider|backend|sse).{0,160}curl error: failure when receiving data from the peer)",
       R"(stream disconnected before completion)",
       R"(stream closed before)",
       R"(connection to the api was lost)",
       R"(\bECONNRESET\b)",
       R"(^terminated$)",
       R"(socket hang up)",
     }},
  };
}

result<compiled_failure_patterns> compile_failure_patterns(
  const std::vector<failure_pattern>& table) {
  compiled_failure_patterns out;
  out.entries_.reserve(table.size());
  for (const auto& pattern : table) {
    if (pattern.failure_class.empty())
      return status::invalid_argument("failure pattern with an empty failure class");
    compiled_failure_patterns::entry e;
    e.failure_class = pattern.failure_class;
    for (const auto& source : pattern.regexes) {
      auto re = user_regex::compile(source);
      if (!re)
        return status::invalid_argument("failure pattern '" + pattern.failure_class
                                        + "': regex '" + source + "' does not compile: "
                                        + re.error().message());
      e.regexes.push_back(std::move(*re));
    }
    out.entries_.push_back(std::move(e));
  }
  return out;
}

std::optional<pattern_match> compiled_failure_patterns::match(std::string_view line) const {
  for (const auto& e : entries_) {
    for (const auto& re : e.regexes)
      if (re.search(line))
        return pattern_match{e.failure_class, re.source()};
  }
  return std::nullopt;
}

bool compiled_failure_patterns::matches_class(std::string_view failure_class,
                                              std::string_view line) const {
  for (const auto& e : entries_) {
    if (e.failure_class != failure_class)
      continue;
    for (const auto& re : e.regexes)
      if (re.search(line))
        return true;
  }
  return false;
}

std::vector<std::string> compiled_failure_patterns::classes() const {
  std::vector<std::string> out;
  for (const auto& e : entries_)
    out.push_back(e.failure_class);
  return out;
}

const compiled_failure_patterns& default_compiled_failure_patterns() {
  // The default table is known to compile; a failure here is a bug caught by
  // the tests, and an empty table then classifies everything generic.
  static const compiled_failure_patterns table = [] {
    auto compiled = compile_failure_patterns(default_failure_patterns());
    return compiled ? std::move(compiled.value()) : compiled_failure_patterns{};
  }();
  return table;
}

result<compiled_failure_patterns> policy_failure_patterns(const std::vector<failure_pattern>& table) {
  if (table.empty())
    return default_compiled_failure_patterns();
  return compile_failure_patterns(table);
}

} // namespace ad::runtime
