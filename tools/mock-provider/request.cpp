#include "tools/mock-provider/request.hpp"

#include <charconv>

namespace ad::mock_provider {
namespace {

void collect_tool_names(api_kind api, const json& tools, std::vector<std::string>& out) {
  if (!tools.is_array()) return;
  for (const auto& t : tools) {
    if (!t.is_object()) continue;
    if (api == api_kind::chat) {
      auto f = t.find("function");
      if (f != t.end() && f->is_object() && f->contains("name") && (*f)["name"].is_string())
        out.push_back((*f)["name"].get<std::string>());
      continue;
    }
    auto name = t.find("name");
    if (name != t.end() && name->is_string()) out.push_back(name->get<std::string>());
    // codex groups some tools under {"type": "namespace", "tools": [...]}.
    auto nested = t.find("tools");
    if (nested != t.end()) collect_tool_names(api, *nested, out);
  }
}

// The text after `marker` up to the end of the line as the prompt spells it
// in JSON (an escaped newline, a quote or a '<').
std::string text_after(std::string_view body, std::string_view marker) {
  auto at = body.find(marker);
  if (at == std::string_view::npos) return {};
  auto rest = body.substr(at + marker.size());
  auto end = rest.find_first_of("\\\"<");
  return std::string(rest.substr(0, end));
}

std::string find_cwd(api_kind api, std::string_view body) {
  switch (api) {
  case api_kind::responses: return text_after(body, "<cwd>");
  case api_kind::messages: return text_after(body, "Primary working directory: ");
  case api_kind::chat: return text_after(body, "Current working directory: ");
  }
  return {};
}

// ${now}, ${now+N}, ${now-N}; returns false for anything else.
bool expand_now(std::string_view name, long long now, std::string& out) {
  if (name.substr(0, 3) != "now") return false;
  auto rest = name.substr(3);
  long long offset = 0;
  if (!rest.empty()) {
    char sign = rest[0];
    if (sign != '+' && sign != '-') return false;
    auto digits = rest.substr(1);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), offset);
    if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty()) return false;
    if (sign == '-') offset = -offset;
  }
  out += std::to_string(now + offset);
  return true;
}

} // namespace

request_view read_request(api_kind api, std::string_view body, std::size_t seq, long long now) {
  request_view r;
  r.seq = seq;
  r.now = now;
  auto doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_object()) {
    r.body = std::move(doc);
    r.parsed = true;
  }
  auto stream = r.body.find("stream");
  r.streaming = stream != r.body.end() && stream->is_boolean() && stream->get<bool>();
  auto model = r.body.find("model");
  if (model != r.body.end() && model->is_string()) r.model = model->get<std::string>();
  auto tools = r.body.find("tools");
  if (tools != r.body.end()) collect_tool_names(api, *tools, r.tool_names);
  r.cwd = find_cwd(api, body);
  return r;
}

std::string expand(std::string_view text, const request_view& req) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    auto open = text.find("${", i);
    if (open == std::string_view::npos) break;
    auto close = text.find('}', open + 2);
    if (close == std::string_view::npos) break;
    out.append(text.substr(i, open - i));
    auto name = text.substr(open + 2, close - open - 2);
    if (name == "cwd")
      out += req.cwd;
    else if (name == "model")
      out += req.model;
    else if (!expand_now(name, req.now, out))
      out.append(text.substr(open, close - open + 1));
    i = close + 1;
  }
  out.append(text.substr(i));
  return out;
}

json expand_json(const json& value, const request_view& req) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    // A string that is only a time placeholder becomes a JSON number
    // ("resets_at": "${now+5400}" -> "resets_at": 1796150000).
    std::string number;
    if (s.size() > 3 && s.rfind("${", 0) == 0 && s.back() == '}' &&
        s.find('}') == s.size() - 1 &&
        expand_now(std::string_view(s).substr(2, s.size() - 3), req.now, number))
      return std::stoll(number);
    return expand(s, req);
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(expand_json(v, req));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items()) out[k] = expand_json(v, req);
    return out;
  }
  return value;
}

reply_spec expand_reply(const reply_spec& reply, const request_view& req) {
  reply_spec r = reply;
  r.text = expand(r.text, req);
  r.thinking = expand(r.thinking, req);
  r.arguments = expand_json(r.arguments, req);
  r.command = expand(r.command, req);
  r.path = expand(r.path, req);
  r.content = expand(r.content, req);
  for (auto& h : r.headers) h.second = expand(h.second, req);
  r.body = expand_json(r.body, req);
  r.error = expand_json(r.error, req);
  return r;
}

} // namespace ad::mock_provider
