#pragma once
// What the contract tests compare between a run against the mock and the
// capture of the real CLI (tests/fixtures/realcli/<cli>/<scenario>): the
// exit code, the sequence of event types with consecutive repeats collapsed
// (claude's system events as "system/<subtype>"), and each CLI's key texts:
// codex's turn.failed message, its retry messages and last answer; claude's
// result fields and the statuses of its api_retry events; pi's last
// assistant stopReason and errorMessage and its auto-retry outcome. Texts
// are normalized where a run cannot match a capture byte for byte (loopback
// ports, "Reconnecting... 2/5" counters, reset times). Pure functions.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tests/contract/contract_run.hpp"

namespace ad::contract {

struct cli_shape {
  int exit_code = -1;
  std::vector<std::string> types;
  nlohmann::json key;
};

// The shape of a CLI's stdout (JSON lines) and exit code.
cli_shape shape_of(cli c, std::string_view stdout_jsonl, int exit_code);

// The shape of the capture tests/fixtures/realcli/<cli>/<scenario>.
cli_shape capture_shape(cli c, const std::string& scenario);

// Ports, retry counters and clock times replaced by placeholders.
std::string normalize(std::string text);

// The parsed JSON lines of a stdout.
std::vector<nlohmann::json> json_lines(std::string_view text);

} // namespace ad::contract
