#pragma once
// Small text helpers that several readers and renderers share. Pure.

#include <string>
#include <string_view>
#include <vector>

namespace ad::runtime {

// items with sep between each two ("a, b, c"); "" for none.
std::string join(const std::vector<std::string>& items, std::string_view sep);

// When s starts with literal: drops it from s and answers true; otherwise
// leaves s alone and answers false.
bool eat(std::string_view& s, std::string_view literal);

// line without the '\r' and '\n' at its end.
std::string_view strip_cr(std::string_view line);

} // namespace ad::runtime
