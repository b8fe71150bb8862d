// agent-dispatch.json text merged over the default policy. Invariants: an
// error names the file; an accepted policy printed (as `policy show` does)
// parses back to the same policy.
#include "runtime/core/json.hpp"
#include "runtime/policy/policy.hpp"
#include "tests/fuzz/fuzz_target.hpp"

AD_FUZZ_TARGET(policy) {
  using namespace ad::runtime;
  auto loaded = parse_policy_text(input, "agent-dispatch.json");
  if (!loaded) {
    ad::fuzz::fuzz_require(loaded.error().message().find("agent-dispatch.json") != std::string::npos,
                           "a policy error does not name the file: " + loaded.error().message());
    ad::fuzz::fuzz_require_plain(loaded.error().message(), input);
    return 0;
  }
  json shown = policy_to_json(loaded->value);
  auto again = parse_policy(shown, "policy show");
  ad::fuzz::fuzz_require(again.is_ok(), "the printed policy is refused: "
                                          + (again ? std::string() : again.error().message()));
  ad::fuzz::fuzz_require(policy_to_json(*again) == shown,
                         "the printed policy parses to another policy");
  return 0;
}
