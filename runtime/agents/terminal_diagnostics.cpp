#include "runtime/agents/terminal_diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/agents/json_fields.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/text.hpp"
#include "runtime/core/user_regex.hpp"

namespace ad::runtime {

namespace {

using agent_json::member;
using agent_json::parse_object_line;
using agent_json::str;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with_error_word(std::string_view line) {
  static const user_regex re = fixed_regex(R"(^\s*(?:error|fatal|provider error|model error)\b)");
  return re.search(line.substr(0, 64));
}

std::optional<terminal_diagnostic> agy_event(const json& event, std::string_view line) {
  std::string type = lower(str(event, "type"));
  if (type == "assistant" || type == "message" || type == "tool" || type == "tool.result"
      || type == "tool_result")
    return std::nullopt;
  std::string severity = lower(str(event, "severity"));
  if (severity.empty())
    severity = lower(str(event, "level"));
  std::string st = lower(str(event, "status"));
  bool terminal_type =
    type == "error" || type == "fatal" || type == "request.failed" || type == "turn.failed";
  bool terminal_severity = severity == "error" || severity == "fatal";
  bool failed_with_code = (st == "failed" || st == "rejected")
                          && (member(event, "code") || member(event, "error")
                              || member(event, "error_code") || member(event, "status_code"));
  if (terminal_type || terminal_severity || failed_with_code)
    return terminal_diagnostic{"agy:event", std::string(line)};
  return std::nullopt;
}

// The typed failure fields of a claude result, in a fixed order.
std::string claude_result_fields(const json& event) {
  nlohmann::ordered_json out;
  for (const char* key : {"type", "subtype", "is_error", "api_error_status", "error", "result"})
    if (const json* v = member(event, key))
      out[key] = *v;
  return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::optional<terminal_diagnostic> claude_event(const json& event, std::string_view line) {
  std::string_view type = str(event, "type");
  std::string_view subtype = str(event, "subtype");
  if (type == "rate_limit_event") {
    const json* info = member(event, "rate_limit_info");
    if (info != nullptr && lower(str(*info, "status")) == "rejected")
      return terminal_diagnostic{"claude:rate_limit_event", std::string(line)};
  } else if (type == "result") {
    if (agent_json::truthy(event, "is_error") || subtype.substr(0, 5) == "error")
      return terminal_diagnostic{"claude:result", claude_result_fields(event)};
  } else if (type == "system") {
    if (subtype.substr(0, 5) == "error")
      return terminal_diagnostic{"claude:system", std::string(line)};
    if (subtype == "api_retry") {
      nlohmann::ordered_json out;
      for (const char* key : {"subtype", "attempt", "max_retries", "error_status", "error"})
        if (const json* v = member(event, key))
          out[key] = *v;
      return terminal_diagnostic{
        "claude:api_retry",
        out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)};
    }
  } else if (type == "assistant") {
    std::string_view err = str(event, "error");
    if (!err.empty()) {
      std::string text;
      if (const json* message = member(event, "message"))
        if (const json* content = member(*message, "content"); content && content->is_array())
          for (const auto& block : *content)
            if (str(block, "type") == "text")
              text = std::string(str(block, "text"));
      return terminal_diagnostic{"claude:assistant", std::string(err) + ": " + text};
    }
  }
  return std::nullopt;
}

std::optional<terminal_diagnostic> pi_event(const json& event) {
  std::string_view type = str(event, "type");
  if (type == "auto_retry_end" && !agent_json::truthy(event, "success"))
    return terminal_diagnostic{"pi:auto_retry_end",
                               "retries exhausted: " + std::string(str(event, "finalError"))};
  if (type != "message_end")
    return std::nullopt;
  const json* message = member(event, "message");
  if (message == nullptr || str(*message, "role") != "assistant"
      || str(*message, "stopReason") != "error")
    return std::nullopt;
  std::string_view err = str(*message, "errorMessage");
  return terminal_diagnostic{"pi:message_end",
                             "assistant stopped with error: "
                               + (err.empty() ? std::string("(no message)") : std::string(err))};
}

} // namespace

void diagnostic_log::add(terminal_diagnostic d) {
  if (d.text.size() > max_diagnostic_bytes)
    d.text.resize(max_diagnostic_bytes);
  entries_.push_back(std::move(d));
  while (entries_.size() > capacity_)
    entries_.pop_front();
}

std::vector<terminal_diagnostic> diagnostic_log::newest_first() const {
  return {entries_.rbegin(), entries_.rend()};
}

std::optional<terminal_diagnostic> detect_terminal_diagnostic(adapter_kind kind,
                                                              output_channel channel,
                                                              std::string_view line) {
  std::optional<json> event;
  if (channel == output_channel::out && kind != adapter_kind::command)
    event = parse_object_line(line);
  return detect_terminal_diagnostic(kind, channel, line, event ? &*event : nullptr);
}

std::optional<terminal_diagnostic> detect_terminal_diagnostic(adapter_kind kind,
                                                              output_channel channel,
                                                              std::string_view line,
                                                              const json* event) {
  line = strip_cr(line);
  if (channel == output_channel::err) {
    if (line.find_first_not_of(" \t") == std::string_view::npos)
      return std::nullopt;
    return terminal_diagnostic{"stderr", std::string(line)};
  }
  if (kind == adapter_kind::command)
    return std::nullopt;
  if (event == nullptr) {
    if (kind == adapter_kind::agy && starts_with_error_word(line))
      return terminal_diagnostic{"agy:stdout", std::string(line)};
    return std::nullopt;
  }
  switch (kind) {
    case adapter_kind::codex: {
      std::string_view type = str(*event, "type");
      if (type == "turn.failed")
        return terminal_diagnostic{"codex:turn.failed", std::string(line)};
      if (type == "error")
        return terminal_diagnostic{"codex:error", std::string(line)};
      return std::nullopt;
    }
    case adapter_kind::claude:
      return claude_event(*event, line);
    case adapter_kind::agy:
      return agy_event(*event, line);
    case adapter_kind::pi:
      return pi_event(*event);
    case adapter_kind::command:
      break;
  }
  return std::nullopt;
}

std::optional<std::string> codex_collaboration_tool(std::string_view line) {
  auto event = parse_object_line(line);
  if (!event)
    return std::nullopt;
  return codex_collaboration_tool_of_event(*event);
}

std::optional<std::string> codex_collaboration_tool_of_event(const json& event) {
  if (str(event, "type") != "item.started")
    return std::nullopt;
  const json* item = member(event, "item");
  if (item == nullptr || str(*item, "type") != "collab_tool_call")
    return std::nullopt;
  std::string_view tool = str(*item, "tool");
  if (tool.empty())
    return std::nullopt;
  return std::string(tool);
}

terminal_diagnostic review_control_diagnostic(std::string_view tool) {
  return {"dispatcher:review-control",
          "official review invoked forbidden collaboration tool: " + std::string(tool)};
}

bool is_agy_quota_line(std::string_view line) {
  static const user_regex re = fixed_regex(
    R"(RESOURCE[_ ]?EXHAUSTED)"
    R"(|\b(?:HTTP|status(?: code)?)\s*[:=]?\s*429\b)"
    R"(|\btoo many requests\b)"
    R"(|(?:rate.?limit|quota|capacity).{0,40}(?:exceed|exhaust|reached|reject))"
    R"(|(?:exceed|exhaust|reached|reject).{0,40}(?:rate.?limit|quota|capacity))"
    R"(|(?:rate.?limit|quota).{0,40}retry after)");
  return re.search(line.substr(0, max_diagnostic_bytes));
}

std::vector<terminal_diagnostic> agy_log_diagnostics(std::string_view log_text,
                                                     const compiled_failure_patterns& table) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < log_text.size()) {
    size_t nl = log_text.find('\n', start);
    size_t end = nl == std::string_view::npos ? log_text.size() : nl;
    lines.push_back(strip_cr(log_text.substr(start, end - start)));
    start = end + 1;
  }
  size_t first = lines.size() > 200 ? lines.size() - 200 : 0;
  std::vector<terminal_diagnostic> out;
  for (size_t i = first; i < lines.size(); ++i) {
    std::string_view line = lines[i].substr(0, max_diagnostic_bytes);
    auto m = table.match(line);
    if (!m)
      continue;
    if (m->failure_class == "provider-quota" && !is_agy_quota_line(line))
      continue;
    out.push_back({"agy-cli.log", std::string(line)});
  }
  return out;
}

result<std::string> read_file_tail(const std::filesystem::path& path, size_t max_bytes) {
  auto opened = open_regular_file(path);
  if (!opened) {
    if (opened.error().is_not_found())
      return status::not_found("no such file: " + path.string());
    return opened.error();
  }
  int fd = *opened;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return status::from_errno("stat " + path.string(), err);
  }
  off_t size = st.st_size;
  off_t from = size > static_cast<off_t>(max_bytes) ? size - static_cast<off_t>(max_bytes) : 0;
  std::string data(static_cast<size_t>(size - from), '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::pread(fd, data.data() + got, data.size() - got, from + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return status::from_errno("read " + path.string(), err);
    }
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  if (from > 0) {
    auto nl = data.find('\n');
    data.erase(0, nl == std::string::npos ? data.size() : nl + 1);
  }
  return data;
}

} // namespace ad::runtime
