#pragma once
// The one wrapper around nlohmann::json parsing: it never throws, and a parse
// error becomes invalid_argument naming the source (a file path or a label)
// and the byte offset. Use this instead of json::parse anywhere in runtime/.

#include <nlohmann/json.hpp>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

using json = nlohmann::json;

// Parses text; `source` names where it came from in the error message.
result<json> parse_json(std::string_view text, std::string_view source);

// Serializes without throwing on invalid UTF-8 (bad bytes become U+FFFD).
std::string dump_json(const json& value, int indent = -1);

} // namespace ad::runtime
