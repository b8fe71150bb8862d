#pragma once
// Helpers for tests that read a program's output. Test-only; asserts
// through GoogleTest.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ad::test {

bool contains(const std::string& haystack, const std::string& needle);

// Every line of text parsed as JSON; a line that is not JSON fails the test
// and is left out.
std::vector<nlohmann::json> json_lines(const std::string& text);

} // namespace ad::test
