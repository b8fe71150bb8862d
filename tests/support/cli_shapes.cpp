#include "tests/support/cli_shapes.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/support/temp_dir.hpp"

namespace ad::test {
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

bool is_retry_name(const std::string& name) {
  return name == "auto_retry_start" || name == "system/api_retry" || name == "error/reconnecting";
}

void add_keys(std::set<std::string>& to, const json& obj) {
  if (!obj.is_object()) return;
  for (auto it = obj.begin(); it != obj.end(); ++it) to.insert(it.key());
}

} // namespace

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> file_lines(const std::filesystem::path& p) {
  std::vector<std::string> out;
  std::string text = read_all(p);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string::npos ? text.size() : nl;
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

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

cli_shape shape_of(std::string_view cli, std::string_view stdout_jsonl, int exit_code) {
  cli_shape s;
  s.exit_code = exit_code;
  auto events = json_lines(stdout_jsonl);
  for (const auto& e : events) {
    auto type = e.value("type", "?");
    if (cli == "claude" && type == "system") type += "/" + e.value("subtype", "");
    if (s.types.empty() || s.types.back() != type) s.types.push_back(type);
  }
  if (cli == "codex") s.key = codex_key(events);
  else if (cli == "claude") s.key = claude_key(events);
  else if (cli == "pi") s.key = pi_key(events);
  return s;
}

std::filesystem::path capture_dir(std::string_view cli, std::string_view scenario) {
  return source_dir() / "tests" / "fixtures" / "realcli" / std::string(cli) / std::string(scenario);
}

int capture_exit_code(const std::filesystem::path& dir) {
  auto code = read_all(dir / "exit_code.txt");
  return code.empty() || !std::isdigit(static_cast<unsigned char>(code[0])) ? -1 : std::atoi(code.c_str());
}

cli_shape capture_shape(std::string_view cli, const std::string& scenario) {
  auto dir = capture_dir(cli, scenario);
  return shape_of(cli, read_all(dir / "stdout.jsonl"), capture_exit_code(dir));
}

std::string event_name(std::string_view cli, const json& e) {
  std::string type = e.value("type", "?");
  if (cli == "claude") {
    if (type == "system") return type + "/" + e.value("subtype", "");
    if (type == "assistant" && e.contains("message") && e["message"].is_object() &&
        e["message"].value("model", "") == "<synthetic>")
      return "assistant/<synthetic>";
  } else if (cli == "codex") {
    if ((type == "item.started" || type == "item.completed") && e.contains("item") && e["item"].is_object())
      return type + "/" + e["item"].value("type", "");
    if (type == "error" && e.value("message", "").rfind("Reconnecting", 0) == 0) return "error/reconnecting";
  } else if (cli == "pi") {
    if ((type == "message_start" || type == "message_end") && e.contains("message") && e["message"].is_object())
      return type + "/" + e["message"].value("role", "");
  }
  return type;
}

std::vector<std::string> collapsed_names(std::string_view cli, const std::vector<json>& events,
                                         const std::set<std::string>& skip) {
  std::vector<std::string> names;
  for (const auto& e : events) {
    std::string name = event_name(cli, e);
    if (skip.count(name)) continue;
    if (names.empty() || names.back() != name) names.push_back(std::move(name));
  }
  // A retry cycle repeated back to back (pi: auto_retry_start, agent_start,
  // turn_start, ... agent_end) is kept once.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t len = 2; len <= 16 && !changed; ++len) {
      for (std::size_t i = 0; i + 2 * len <= names.size() && !changed; ++i) {
        bool same = std::equal(names.begin() + static_cast<long>(i), names.begin() + static_cast<long>(i + len),
                               names.begin() + static_cast<long>(i + len));
        bool retry = std::any_of(names.begin() + static_cast<long>(i), names.begin() + static_cast<long>(i + len),
                                 is_retry_name);
        if (same && retry) {
          names.erase(names.begin() + static_cast<long>(i + len), names.begin() + static_cast<long>(i + 2 * len));
          changed = true;
        }
      }
    }
  }
  return names;
}

std::map<std::string, std::set<std::string>> event_keys(std::string_view cli, const std::vector<json>& events) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& e : events) {
    std::string name = event_name(cli, e);
    add_keys(out[name], e);
    for (const char* nested : {"item", "message", "usage", "rate_limit_info", "error"})
      if (e.contains(nested) && e[nested].is_object()) add_keys(out[name + "." + nested], e[nested]);
  }
  return out;
}

} // namespace ad::test
