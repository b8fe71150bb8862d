// An agent's output as one attempt reads it, line by line: rendering for
// normalized-output.log, the CLI's typed end, terminal diagnostics, the
// usage, the no-progress rule and the review guard, then the failure
// classification.
// The first line names the adapter ("codex", "claude", "agy", "pi",
// "command", with " review" for a codex review); each later line is a
// stdout line, or a stderr line when it starts with "[stderr] " (the
// channel tags of stream.log; "[stdout] " is dropped). Invariants: rendered
// lines stay within the rendered-line limit; the usage read is a valid
// record (it reads back from its own JSON unchanged); a failed verdict names
// its source and an attempt that exited 0 with no typed failure is no
// failure.
#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/failure_classifier.hpp"
#include "tests/fuzz/fuzz_target.hpp"

AD_FUZZ_TARGET(stream) {
  using namespace ad::runtime;
  size_t nl = input.find('\n');
  std::string_view first = input.substr(0, nl);
  std::string_view rest = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  bool review = first.size() > 7 && first.substr(first.size() - 7) == " review";
  std::string_view name = review ? first.substr(0, first.size() - 7) : first;
  adapter_kind kind = adapter_kind::command;
  const adapter_kind kinds[] = {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy,
                                adapter_kind::pi, adapter_kind::command};
  bool named = false;
  for (auto k : kinds)
    if (to_string(k) == name) {
      kind = k;
      named = true;
    }
  if (!named && !first.empty())
    kind = kinds[static_cast<unsigned char>(first[0]) % 5];
  attempt_output out(kind, review ? review_guard::codex_review : review_guard::off, {},
                     &default_compiled_failure_patterns());
  int64_t at = 0;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    output_channel channel = output_channel::out;
    if (line.rfind("[stderr] ", 0) == 0) {
      channel = output_channel::err;
      line.remove_prefix(9);
    } else if (line.rfind("[stdout] ", 0) == 0) {
      line.remove_prefix(9);
    }
    at += 1000;
    auto step = out.feed(channel, line, at);
    for (const auto& r : step.rendered)
      ad::fuzz::fuzz_require(r.size() <= max_rendered_chars * 4 + 64,
                             "a rendered line of " + std::to_string(r.size()) + " bytes");
  }
  token_usage usage = out.usage();
  auto back = usage_from_json(usage_to_json(usage));
  ad::fuzz::fuzz_require(back.is_ok() && *back == usage,
                         "the usage read is no valid record: " + dump_json(usage_to_json(usage)));
  failure_inputs in;
  in.kind = kind;
  in.outcome = out.outcome();
  in.diagnostics_newest_first = out.diagnostics().newest_first();
  in.observed_at = at;
  in.exit.code = 0;
  auto verdict = classify_attempt(in, default_compiled_failure_patterns());
  if (verdict.failed())
    ad::fuzz::fuzz_require(!verdict.failure_source.empty(), "a failure without a source");
  in.exit.code = 1;
  auto failed = classify_attempt(in, default_compiled_failure_patterns());
  ad::fuzz::fuzz_require(failed.failed(), "exit code 1 classified as success");
  return 0;
}
