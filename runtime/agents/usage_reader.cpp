#include "runtime/agents/usage_reader.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "runtime/agents/json_fields.hpp"
#include "runtime/core/files.hpp"

namespace ad::runtime {

namespace {

using agent_json::member;
using agent_json::parse_object_line;
using agent_json::str;

// A count as the CLIs write them: a whole number in 0..max_usage_tokens.
std::optional<int64_t> count(const json& obj, std::string_view key) {
  const json* v = member(obj, key);
  if (v == nullptr)
    return std::nullopt;
  if (v->is_number_unsigned()) {
    auto n = v->get<uint64_t>();
    return n <= static_cast<uint64_t>(max_usage_tokens) ? std::optional<int64_t>(static_cast<int64_t>(n))
                                                        : std::nullopt;
  }
  if (v->is_number_integer() && v->get<int64_t>() >= 0)
    return v->get<int64_t>();
  return std::nullopt;
}

std::optional<double> cost(const json& obj, std::string_view key) {
  const json* v = member(obj, key);
  if (v == nullptr || !v->is_number())
    return std::nullopt;
  double d = v->get<double>();
  if (!std::isfinite(d) || d < 0 || d > max_usage_cost_usd)
    return std::nullopt;
  return d;
}

// codex's usage object (turn.completed, the rollout's total_token_usage).
token_usage codex_usage(const json& u) {
  token_usage out;
  out.cache_read_tokens = count(u, "cached_input_tokens");
  out.cache_write_tokens = count(u, "cache_write_input_tokens");
  if (auto in = count(u, "input_tokens")) {
    int64_t fresh = *in - out.cache_read_tokens.value_or(0) - out.cache_write_tokens.value_or(0);
    out.input_tokens = fresh < 0 ? 0 : fresh;
  }
  out.output_tokens = count(u, "output_tokens");
  out.reasoning_tokens = count(u, "reasoning_output_tokens");
  return out;
}

// claude's usage object (assistant message.usage, result.usage).
token_usage claude_usage(const json& u) {
  token_usage out;
  out.input_tokens = count(u, "input_tokens");
  out.output_tokens = count(u, "output_tokens");
  out.cache_read_tokens = count(u, "cache_read_input_tokens");
  out.cache_write_tokens = count(u, "cache_creation_input_tokens");
  if (const json* details = member(u, "output_tokens_details"))
    out.reasoning_tokens = count(*details, "thinking_tokens");
  return out;
}

// pi's usage object (an assistant message's usage).
token_usage pi_usage(const json& u) {
  token_usage out;
  out.input_tokens = count(u, "input");
  out.output_tokens = count(u, "output");
  out.cache_read_tokens = count(u, "cacheRead");
  out.cache_write_tokens = count(u, "cacheWrite");
  // Zero is what pi writes for a model without a price.
  if (const json* c = member(u, "cost"))
    if (auto total = cost(*c, "total"); total && *total > 0)
      out.cost_usd = total;
  return out;
}

// The usage of a pi assistant message; nullopt for any other message.
std::optional<token_usage> pi_assistant_usage(const json& message) {
  if (str(message, "role") != "assistant")
    return std::nullopt;
  const json* u = member(message, "usage");
  if (u == nullptr || !u->is_object())
    return std::nullopt;
  return pi_usage(*u);
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

} // namespace

std::string_view to_string(usage_format f) {
  switch (f) {
    case usage_format::codex:
      return "codex";
    case usage_format::claude:
      return "claude";
    case usage_format::pi:
      return "pi";
    case usage_format::none:
      break;
  }
  return "none";
}

result<usage_format> parse_usage_format(std::string_view name) {
  if (name == "codex")
    return usage_format::codex;
  if (name == "claude")
    return usage_format::claude;
  if (name == "pi")
    return usage_format::pi;
  return status::invalid_argument("unknown usage reader \"" + std::string(name)
                                  + "\" (expected codex, claude or pi)");
}

usage_format usage_format_of(adapter_kind kind) {
  switch (kind) {
    case adapter_kind::codex:
      return usage_format::codex;
    case adapter_kind::claude:
      return usage_format::claude;
    case adapter_kind::pi:
      return usage_format::pi;
    case adapter_kind::agy:
    case adapter_kind::command:
      break;
  }
  return usage_format::none;
}

void usage_reader::on_event(const json& event) {
  if (!event.is_object())
    return;
  switch (format_) {
    case usage_format::codex:
      codex(event);
      break;
    case usage_format::claude:
      claude(event);
      break;
    case usage_format::pi:
      pi(event);
      break;
    case usage_format::none:
      break;
  }
}

void usage_reader::on_line(std::string_view line) {
  if (format_ == usage_format::none)
    return;
  if (auto event = parse_object_line(line))
    on_event(*event);
}

void usage_reader::codex(const json& event) {
  if (str(event, "type") != "turn.completed")
    return;
  const json* u = member(event, "usage");
  if (u == nullptr || !u->is_object())
    return;
  total_ = codex_usage(*u); // a running total: it replaces the one before
  closed_ = true;
}

void usage_reader::claude(const json& event) {
  std::string_view type = str(event, "type");
  if (type == "assistant") {
    const json* message = member(event, "message");
    const json* u = message ? member(*message, "usage") : nullptr;
    if (u == nullptr || !u->is_object())
      return;
    std::string_view id = str(*message, "id");
    std::string key = id.empty() ? "#" + std::to_string(unnamed_++) : std::string(id);
    pending_[key] = claude_usage(*u); // the latest event of a message has its latest usage
  } else if (type == "result") {
    token_usage run;
    if (const json* u = member(event, "usage"); u != nullptr && u->is_object())
      run = claude_usage(*u);
    run.cost_usd = cost(event, "total_cost_usd");
    // The run's totals: they cover every message counted before.
    total_ = run;
    pending_.clear();
    closed_ = true;
  }
}

void usage_reader::pi(const json& event) {
  if (str(event, "type") != "message_end")
    return;
  const json* message = member(event, "message");
  if (message == nullptr)
    return;
  if (auto u = pi_assistant_usage(*message))
    total_ += *u;
}

token_usage usage_reader::so_far() const {
  token_usage out = total_;
  for (const auto& [id, u] : pending_)
    out += u;
  return out;
}

void session_usage_reader::on_line(std::string_view line) {
  if (format_ == usage_format::codex) {
    if (!contains(line, "token_count"))
      return;
    auto entry = parse_object_line(line);
    if (!entry || str(*entry, "type") != "event_msg")
      return;
    const json* payload = member(*entry, "payload");
    if (payload == nullptr || str(*payload, "type") != "token_count")
      return;
    const json* info = member(*payload, "info");
    const json* total = info ? member(*info, "total_token_usage") : nullptr;
    if (total != nullptr && total->is_object())
      found_ = codex_usage(*total); // running totals: the last one counts
  } else if (format_ == usage_format::pi) {
    if (!contains(line, "assistant"))
      return;
    auto entry = parse_object_line(line);
    if (!entry || str(*entry, "type") != "message")
      return;
    const json* message = member(*entry, "message");
    if (message == nullptr)
      return;
    // The message's own time (ms); an entry without one is stamped by the entry.
    std::optional<millis> at = agent_json::integer(*message, "timestamp");
    if (!at)
      if (auto stamped = parse_utc_iso(str(*entry, "timestamp")))
        at = *stamped;
    if (!at || *at < since_)
      return;
    if (auto u = pi_assistant_usage(*message))
      found_ = found_ ? *found_ + *u : *u;
  }
}

result<std::optional<token_usage>> read_session_usage(usage_format format,
                                                      const std::filesystem::path& path,
                                                      millis since) {
  auto fd = open_regular_file(path);
  if (!fd)
    return fd.error();
  session_usage_reader reader(format, since);
  std::string line;
  bool skipping = false; // inside a line longer than max_session_line_bytes
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(*fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(*fd);
      return status::from_errno("reading " + path.string(), err);
    }
    if (n == 0)
      break;
    std::string_view chunk(buf, static_cast<size_t>(n));
    while (!chunk.empty()) {
      size_t nl = chunk.find('\n');
      std::string_view part = chunk.substr(0, nl);
      if (!skipping) {
        line.append(part);
        if (line.size() > max_session_line_bytes) {
          skipping = true;
          line.clear();
          line.shrink_to_fit();
        }
      }
      if (nl == std::string_view::npos)
        break;
      if (!skipping)
        reader.on_line(line);
      line.clear();
      skipping = false;
      chunk.remove_prefix(nl + 1);
    }
  }
  ::close(*fd);
  // The last line without its newline may be still being written: read it
  // if it parses (a torn line does not).
  if (!skipping && !line.empty())
    reader.on_line(line);
  return reader.found();
}

bool wants_session_usage(const usage_reader& stream, uint64_t lost_stream_lines) {
  switch (stream.format()) {
    case usage_format::codex:
      return !stream.closed();
    case usage_format::pi:
      return lost_stream_lines > 0;
    case usage_format::claude:
    case usage_format::none:
      break;
  }
  return false;
}

token_usage settle_usage(const usage_reader& stream, uint64_t lost_stream_lines,
                         const std::optional<token_usage>& session) {
  if (session && wants_session_usage(stream, lost_stream_lines))
    return *session;
  return stream.so_far();
}

} // namespace ad::runtime
