#include "tools/mock-provider/reply.hpp"

#include <algorithm>


namespace ad::mock_provider {

std::string sse_frame(std::string_view name, const json& data) {
  std::string out;
  if (!name.empty()) {
    out += "event: ";
    out += name;
    out += '\n';
  }
  out += "data: ";
  out += dump(data);
  out += "\n\n";
  return out;
}

std::vector<std::string> split_deltas(std::string_view text, int parts) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  if (parts < 1) parts = 1;
  std::size_t size = (text.size() + static_cast<std::size_t>(parts) - 1) /
                     static_cast<std::size_t>(parts);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = std::min(text.size(), at + size);
    // Continuation bytes are 10xxxxxx: move the cut forward past them.
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    out.emplace_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

http_reply body_reply(const reply_spec& spec, int status, const json& body) {
  http_reply r;
  r.shape = reply_shape::body;
  r.status = status;
  r.headers = spec.headers;
  r.delay_ms = spec.delay_ms;
  if (body.is_string()) {
    r.content_type = "text/plain";
    r.body = body.get<std::string>();
  } else {
    r.content_type = "application/json";
    r.body = dump(body);
  }
  return r;
}

json served_usage(const http_reply& r) {
  if (r.shape == reply_shape::drop) return nullptr;
  bool cut = r.cut_after >= 0 && static_cast<std::size_t>(r.cut_after) < r.events.size();
  return cut ? json(nullptr) : r.answer_usage;
}

http_reply drop_reply(const reply_spec& spec) {
  http_reply r;
  r.shape = reply_shape::drop;
  // A request that is not answered at all cannot end "properly".
  r.close = spec.close == close_mode::end ? close_mode::fin : spec.close;
  r.delay_ms = spec.delay_ms;
  return r;
}

} // namespace ad::mock_provider
