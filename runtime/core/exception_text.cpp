#include "runtime/core/exception_text.hpp"

namespace ad::runtime {

std::string without_library_tags(std::string_view text) {
  static constexpr std::string_view tag = "[json.exception.";
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    auto found = text.find(tag, at);
    if (found == std::string_view::npos) {
      out.append(text.substr(at));
      break;
    }
    out.append(text.substr(at, found - at));
    auto close = text.find(']', found + tag.size());
    if (close == std::string_view::npos) {
      out.append(text.substr(found));
      break;
    }
    at = close + 1;
    if (at < text.size() && text[at] == ' ')
      ++at;
  }
  return out;
}

std::string exception_text(const std::exception& e) {
  return without_library_tags(e.what());
}

} // namespace ad::runtime
