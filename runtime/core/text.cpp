#include "runtime/core/text.hpp"

namespace ad::runtime {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0)
      out += sep;
    out += items[i];
  }
  return out;
}

bool eat(std::string_view& s, std::string_view literal) {
  if (!s.starts_with(literal))
    return false;
  s.remove_prefix(literal.size());
  return true;
}

std::string_view strip_cr(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
    line.remove_suffix(1);
  return line;
}

} // namespace ad::runtime
