#include "tests/support/text_lines.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "runtime/core/json.hpp"

namespace ad::test {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto parsed = runtime::parse_json(line, "output line");
    EXPECT_TRUE(parsed.is_ok()) << line;
    if (parsed.is_ok())
      out.push_back(std::move(*parsed));
  }
  return out;
}

} // namespace ad::test
