#include "tests/contract/shapes.hpp"

#include <fstream>
#include <regex>
#include <sstream>

namespace ad::contract {
namespace {

using nlohmann::json;

json text_or_null(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  if (it->is_string()) return normalize(it->get<std::string>());
  return *it;
}

void add_unique(json& list, json value) {
  for (const auto& v : list)
    if (v == value) return;
  list.push_back(std::move(value));
}

json codex_key(const std::vector<json>& events) {
  json key{{"failed", nullptr}, {"retries", json::array()}, {"answer", nullptr}};
  for (const auto& e : events) {
    auto type = e.value("type", "");
    if (type == "turn.failed" && e.contains("error"))
      key["failed"] = text_or_null(e["error"], "message");
    if (type == "error") {
      auto msg = e.value("message", "");
      if (msg.rfind("Reconnecting", 0) == 0) add_unique(key["retries"], normalize(msg));
    }
    if (type == "item.completed" && e.contains("item") &&
        e["item"].value("type", "") == "agent_message")
      key["answer"] = text_or_null(e["item"], "text");
  }
  return key;
}

json claude_key(const std::vector<json>& events) {
  json key{{"result", nullptr}, {"retry_statuses", json::array()}};
  for (const auto& e : events) {
    auto type = e.value("type", "");
    if (type == "system" && e.value("subtype", "") == "api_retry")
      add_unique(key["retry_statuses"], e.contains("error_status") ? e["error_status"] : json());
    if (type == "result") {
      json r = json::object();
      for (const char* k : {"is_error", "api_error_status", "api_error_type", "api_error",
                            "terminal_reason", "result"})
        r[k] = text_or_null(e, k);
      key["result"] = r;
    }
  }
  return key;
}

json pi_key(const std::vector<json>& events) {
  json key{{"stopReason", nullptr}, {"errorMessage", nullptr}, {"retry_end", nullptr}};
  for (const auto& e : events) {
    auto type = e.value("type", "");
    if (type == "message_end" && e.contains("message") &&
        e["message"].value("role", "") == "assistant") {
      key["stopReason"] = text_or_null(e["message"], "stopReason");
      key["errorMessage"] = text_or_null(e["message"], "errorMessage");
    }
    if (type == "auto_retry_end")
      key["retry_end"] = json{{"success", text_or_null(e, "success")},
                              {"finalError", text_or_null(e, "finalError")}};
  }
  return key;
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

std::vector<json> json_lines(std::string_view text) {
  std::vector<json> out;
  std::size_t at = 0;
  while (at < text.size()) {
    auto nl = text.find('\n', at);
    auto line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    auto j = json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return out;
}

std::string normalize(std::string text) {
  static const std::regex port(R"(127\.0\.0\.1:\d+)");
  static const std::regex reconnect(R"(Reconnecting\.\.\. \d+/\d+)");
  static const std::regex try_again(R"(try again at [^"]*?[AP]M)");
  static const std::regex resets(R"(resets \d{1,2}:\d{2}[ap]m)");
  text = std::regex_replace(text, port, "127.0.0.1:PORT");
  text = std::regex_replace(text, reconnect, "Reconnecting... n/m");
  text = std::regex_replace(text, try_again, "try again at TIME");
  return std::regex_replace(text, resets, "resets TIME");
}

cli_shape shape_of(cli c, std::string_view stdout_jsonl, int exit_code) {
  cli_shape s;
  s.exit_code = exit_code;
  auto events = json_lines(stdout_jsonl);
  for (const auto& e : events) {
    auto type = e.value("type", "?");
    if (c == cli::claude && type == "system") type += "/" + e.value("subtype", "");
    if (s.types.empty() || s.types.back() != type) s.types.push_back(type);
  }
  switch (c) {
  case cli::codex: s.key = codex_key(events); break;
  case cli::claude: s.key = claude_key(events); break;
  case cli::pi: s.key = pi_key(events); break;
  }
  return s;
}

cli_shape capture_shape(cli c, const std::string& scenario) {
  auto dir = test::source_dir() / "tests" / "fixtures" / "realcli" / name_of(c) / scenario;
  auto code = read_all(dir / "exit_code.txt");
  int exit_code = code.empty() || !std::isdigit(static_cast<unsigned char>(code[0]))
                      ? -1
                      : std::atoi(code.c_str());
  return shape_of(c, read_all(dir / "stdout.jsonl"), exit_code);
}

} // namespace ad::contract
