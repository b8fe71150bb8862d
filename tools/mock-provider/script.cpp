#include "tools/mock-provider/script.hpp"

#include <array>
#include <set>
#include <stdexcept>
#include <string_view>

#include "runtime/core/files.hpp"

namespace ad::mock_provider {
namespace {

using runtime::result;
using runtime::status;

struct kind_name {
  reply_kind kind;
  const char* name;
};

constexpr std::array<kind_name, 8> kind_names{{
    {reply_kind::text, "text"},
    {reply_kind::tool_call, "tool_call"},
    {reply_kind::shell, "shell"},
    {reply_kind::write_file, "write_file"},
    {reply_kind::http_error, "http_error"},
    {reply_kind::stream_error, "stream_error"},
    {reply_kind::stream_cut, "stream_cut"},
    {reply_kind::drop, "drop"},
}};

// A parse failure at a JSON pointer; caught once in parse_script.
struct bad_value : std::invalid_argument {
  bad_value(const std::string& where, const std::string& what)
      : std::invalid_argument(where + ": " + what) {}
};

std::string child(const std::string& where, std::string_view key) {
  return where + "/" + std::string(key);
}

const std::set<std::string_view>& reply_keys() {
  static const std::set<std::string_view> keys{
      "kind",   "text",   "thinking", "tool",  "arguments",    "command",
      "path",   "content", "status",  "headers", "body",       "error",
      "after_events", "hold_ms", "close", "deltas", "delay_ms", "repeat", "comment", "usage"};
  return keys;
}

std::string string_at(const json& j, std::string_view key, const std::string& where) {
  const auto& v = j.at(std::string(key));
  if (!v.is_string()) throw bad_value(child(where, key), "must be a string");
  return v.get<std::string>();
}

int int_at(const json& j, std::string_view key, const std::string& where, int min) {
  const auto& v = j.at(std::string(key));
  if (!v.is_number_integer()) throw bad_value(child(where, key), "must be an integer");
  auto n = v.get<long long>();
  if (n < min || n > 1'000'000'000)
    throw bad_value(child(where, key), "is out of range (" + std::to_string(n) + ")");
  return static_cast<int>(n);
}

// {"input_tokens": N, "output_tokens": N, "cache_read_tokens": N,
// "cache_write_tokens": N, "reasoning_tokens": N}, any of them.
usage_spec parse_usage(const json& j, const std::string& where) {
  if (!j.is_object()) throw bad_value(where, "must be an object");
  usage_spec u;
  const std::pair<const char*, std::optional<long long>*> fields[] = {
      {"input_tokens", &u.input},           {"output_tokens", &u.output},
      {"cache_read_tokens", &u.cache_read}, {"cache_write_tokens", &u.cache_write},
      {"reasoning_tokens", &u.reasoning}};
  for (const auto& [key, value] : j.items()) {
    (void)value;
    bool known = false;
    for (const auto& f : fields) known = known || key == f.first;
    if (!known) throw bad_value(child(where, key), "unknown key");
  }
  for (const auto& [key, field] : fields)
    if (j.contains(key)) *field = int_at(j, key, where, 0);
  return u;
}

// The reply's own usage fields, else the script's.
void inherit_usage(reply_spec& r, const usage_spec& from) {
  for (auto [mine, theirs] : {std::pair{&r.usage.input, &from.input}, std::pair{&r.usage.output, &from.output},
                              std::pair{&r.usage.cache_read, &from.cache_read},
                              std::pair{&r.usage.cache_write, &from.cache_write},
                              std::pair{&r.usage.reasoning, &from.reasoning}})
    if (!*mine) *mine = *theirs;
}

reply_kind parse_kind(const json& j, const std::string& where) {
  if (!j.contains("kind")) throw bad_value(where, "\"kind\" is missing");
  auto name = string_at(j, "kind", where);
  for (const auto& k : kind_names)
    if (name == k.name) return k.kind;
  throw bad_value(child(where, "kind"), "unknown kind \"" + name + "\"");
}

void parse_headers(const json& j, reply_spec& r, const std::string& where) {
  const auto& h = j.at("headers");
  if (!h.is_object()) throw bad_value(child(where, "headers"), "must be an object");
  for (const auto& [name, value] : h.items()) {
    if (value.is_string())
      r.headers.emplace_back(name, value.get<std::string>());
    else if (value.is_number())
      r.headers.emplace_back(name, value.dump());
    else
      throw bad_value(child(child(where, "headers"), name), "must be a string or a number");
  }
}

void require(const json& j, std::string_view key, const std::string& where, const char* kind) {
  if (!j.contains(std::string(key)))
    throw bad_value(where, "\"" + std::string(key) + "\" is required for kind " + kind);
}

// Parses one reply; `repeat` (how many list slots it fills) goes to *repeat.
reply_spec parse_reply(const json& j, const std::string& where, int* repeat) {
  if (!j.is_object()) throw bad_value(where, "must be an object");
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (!reply_keys().count(key)) throw bad_value(child(where, key), "unknown key");
  }
  reply_spec r;
  r.kind = parse_kind(j, where);
  const char* kind = to_string(r.kind);
  if (j.contains("text")) r.text = string_at(j, "text", where);
  if (j.contains("thinking")) r.thinking = string_at(j, "thinking", where);
  if (j.contains("tool")) r.tool = string_at(j, "tool", where);
  if (j.contains("arguments")) {
    r.arguments = j.at("arguments");
    if (!r.arguments.is_object()) throw bad_value(child(where, "arguments"), "must be an object");
  }
  if (j.contains("command")) r.command = string_at(j, "command", where);
  if (j.contains("path")) r.path = string_at(j, "path", where);
  if (j.contains("content")) r.content = string_at(j, "content", where);
  if (j.contains("status")) r.status = int_at(j, "status", where, 100);
  if (r.status > 599) throw bad_value(child(where, "status"), "must be an HTTP status");
  if (j.contains("headers")) parse_headers(j, r, where);
  if (j.contains("body")) r.body = j.at("body");
  if (j.contains("error")) {
    r.error = j.at("error");
    if (!r.error.is_object()) throw bad_value(child(where, "error"), "must be an object");
  }
  if (j.contains("after_events")) r.after_events = int_at(j, "after_events", where, 0);
  if (j.contains("hold_ms")) r.hold_ms = int_at(j, "hold_ms", where, 0);
  if (j.contains("close")) {
    auto c = string_at(j, "close", where);
    if (c == "fin")
      r.close = close_mode::fin;
    else if (c == "reset")
      r.close = close_mode::reset;
    else if (c == "end" && r.kind == reply_kind::stream_cut)
      r.close = close_mode::end;
    else
      throw bad_value(child(where, "close"),
                      "must be \"fin\", \"reset\" or (stream_cut only) \"end\"");
  }
  if (j.contains("deltas")) r.deltas = int_at(j, "deltas", where, 1);
  if (j.contains("delay_ms")) r.delay_ms = int_at(j, "delay_ms", where, 0);
  if (j.contains("usage")) r.usage = parse_usage(j.at("usage"), child(where, "usage"));
  if (j.contains("repeat")) {
    if (!repeat) throw bad_value(child(where, "repeat"), "is allowed only in \"responses\"");
    *repeat = int_at(j, "repeat", where, 1);
  }
  switch (r.kind) {
  case reply_kind::tool_call: require(j, "tool", where, kind); break;
  case reply_kind::shell: require(j, "command", where, kind); break;
  case reply_kind::write_file: require(j, "path", where, kind); break;
  case reply_kind::http_error: require(j, "status", where, kind); break;
  case reply_kind::stream_error: require(j, "error", where, kind); break;
  case reply_kind::stream_cut: require(j, "after_events", where, kind); break;
  case reply_kind::text:
  case reply_kind::drop: break;
  }
  return r;
}

reply_spec text_reply(std::string text) {
  reply_spec r;
  r.kind = reply_kind::text;
  r.text = std::move(text);
  return r;
}

} // namespace

const char* to_string(reply_kind kind) {
  for (const auto& k : kind_names)
    if (k.kind == kind) return k.name;
  return "?";
}

result<script> parse_script(const json& doc) {
  try {
    if (!doc.is_object()) throw bad_value("", "a script must be a JSON object");
    for (const auto& [key, value] : doc.items()) {
      (void)value;
      if (key != "count" && key != "responses" && key != "then" && key != "uncounted" &&
          key != "comment" && key != "usage")
        throw bad_value("/" + key, "unknown key");
    }
    script s;
    s.then = text_reply("Done.");
    s.uncounted = text_reply("OK");
    if (doc.contains("count")) {
      auto c = string_at(doc, "count", "");
      if (c == "tools")
        s.count = count_rule::tools;
      else if (c == "all")
        s.count = count_rule::all;
      else
        throw bad_value("/count", "must be \"tools\" or \"all\"");
    }
    if (doc.contains("responses")) {
      const auto& list = doc.at("responses");
      if (!list.is_array()) throw bad_value("/responses", "must be an array");
      for (std::size_t i = 0; i < list.size(); ++i) {
        int repeat = 1;
        auto r = parse_reply(list[i], "/responses/" + std::to_string(i), &repeat);
        for (int n = 0; n < repeat; ++n) s.responses.push_back(r);
      }
    }
    if (doc.contains("then")) s.then = parse_reply(doc.at("then"), "/then", nullptr);
    if (doc.contains("uncounted"))
      s.uncounted = parse_reply(doc.at("uncounted"), "/uncounted", nullptr);
    if (doc.contains("usage")) {
      s.usage = parse_usage(doc.at("usage"), "/usage");
      for (auto& r : s.responses) inherit_usage(r, s.usage);
      inherit_usage(s.then, s.usage);
      inherit_usage(s.uncounted, s.usage);
    }
    return s;
  } catch (const std::invalid_argument& e) {
    return status::invalid_argument(e.what());
  } catch (const json::exception& e) {
    return status::invalid_argument(e.what());
  }
}

std::string dump(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

result<script> load_script_file(const std::filesystem::path& path) {
  auto text = runtime::read_file(path);
  if (!text) return text.error();
  json doc;
  try {
    doc = json::parse(*text);
  } catch (const json::parse_error& e) {
    return status::invalid_argument(path.string() + ": " + e.what());
  }
  auto s = parse_script(doc);
  if (!s) return s.error().with_context(path.string());
  return s;
}

const reply_spec& counted_reply(const script& s, std::size_t index) {
  return index < s.responses.size() ? s.responses[index] : s.then;
}

} // namespace ad::mock_provider
