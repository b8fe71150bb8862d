#pragma once
// The shape of a JSON-speaking agent CLI's run (codex, claude, pi), to
// compare a run with the capture of the real CLI in
// tests/fixtures/realcli/<cli>/<scenario>: the exit code, the sequence of
// event types with consecutive repeats collapsed (claude's system events as
// "system/<subtype>"), and each CLI's key texts: codex's turn.failed
// message, its retry messages and last answer; claude's result fields and
// the statuses of its api_retry events; pi's last assistant stopReason and
// errorMessage and its auto-retry outcome. Texts are normalized where a run
// cannot match a capture byte for byte (loopback ports, "Reconnecting...
// 2/5" counters, reset times). Used by the contract tests (the real CLIs)
// and the simulator's shape test (tools/agent-sim), which also compares the
// key sets of each event type (event_keys). Pure functions except the
// capture readers, which read the fixture files and return "" / -1 when
// one is missing.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ad::test {

struct cli_shape {
  int exit_code = -1;
  std::vector<std::string> types;
  nlohmann::json key;
};

// cli: "codex", "claude" or "pi". The shape of a stdout (JSON lines) and exit code.
cli_shape shape_of(std::string_view cli, std::string_view stdout_jsonl, int exit_code);

// tests/fixtures/realcli/<cli>/<scenario>
std::filesystem::path capture_dir(std::string_view cli, std::string_view scenario);
// The shape of that capture; its exit code is -1 when the run was stopped
// by a signal ("timeout(SIGTERM->-15)").
cli_shape capture_shape(std::string_view cli, const std::string& scenario);
// The capture's exit code as capture_shape reads it.
int capture_exit_code(const std::filesystem::path& dir);

// Ports, retry counters and clock times replaced by placeholders.
std::string normalize(std::string text);

// The parsed JSON lines of a stdout.
std::vector<nlohmann::json> json_lines(std::string_view text);

// A file's bytes, "" when it cannot be read.
std::string read_all(const std::filesystem::path& p);

// A file's lines without their newlines; none when it cannot be read.
std::vector<std::string> file_lines(const std::filesystem::path& p);

// The name an event is compared under: its "type", claude's system events
// as "system/<subtype>" and its synthetic assistant message as
// "assistant/<synthetic>", codex items as "item.completed/<item type>",
// pi messages as "message_end/<role>".
std::string event_name(std::string_view cli, const nlohmann::json& event);

// The event names in order, consecutive repeats collapsed, then any block
// of names repeated back to back that holds a retry event
// (auto_retry_start, system/api_retry, codex's Reconnecting error) kept
// once; `skip` names are left out first (streaming updates whose number
// depends on the provider's chunking).
std::vector<std::string> collapsed_names(std::string_view cli, const std::vector<nlohmann::json>& events,
                                         const std::set<std::string>& skip = {});

// For each event name, the union of the keys its events carry, and for
// nested objects the dispatcher reads ("<name>.item", "<name>.message",
// "<name>.usage", "<name>.rate_limit_info", "<name>.error") theirs.
std::map<std::string, std::set<std::string>> event_keys(std::string_view cli,
                                                        const std::vector<nlohmann::json>& events);

} // namespace ad::test
