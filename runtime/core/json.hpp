#pragma once
// The one wrapper around nlohmann::json parsing: it never throws, and a parse
// error becomes invalid_argument naming the source (a file path or a label)
// and the byte offset. Use this instead of json::parse anywhere in runtime/.
// Also the strict member reads of readers that turn exceptions into status
// values (json_member, json_array_member: they throw std::invalid_argument
// naming the field; call them only inside such a reader's try block).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

using json = nlohmann::json;

// Arrays and objects nest at most this deep in any JSON the product reads
// (docs/limits.md); deeper text is invalid_argument.
inline constexpr std::size_t json_max_depth = 256;

// Parses text; `source` names where it came from in the error message.
// Text nested deeper than json_max_depth is refused without parsing.
result<json> parse_json(std::string_view text, std::string_view source);

// Serializes without throwing on invalid UTF-8 (bad bytes become U+FFFD).
std::string dump_json(const json& value, int indent = -1);

// Throws std::invalid_argument: `"key" <what>` (what: "is missing", ...).
[[noreturn]] void throw_json_member_error(std::string_view key, std::string_view what);

// The member `key` of object j as a T. Throws std::invalid_argument
// ("\"key\" is missing", "\"key\" has the wrong type (array)").
template <class T>
T json_member(const json& j, std::string_view key) {
  if (!j.is_object() || !j.contains(key))
    throw_json_member_error(key, "is missing");
  const auto& value = *j.find(key);
  try {
    return value.get<T>();
  } catch (const json::exception&) {
    throw_json_member_error(key, std::string("has the wrong type (") + value.type_name() + ")");
  }
}

// The member `key` of object j, which must be an array (throws as above).
inline const json& json_array_member(const json& j, std::string_view key) {
  if (!j.is_object() || !j.contains(key))
    throw_json_member_error(key, "is missing");
  const auto& value = *j.find(key);
  if (!value.is_array())
    throw_json_member_error(key, std::string("must be an array, not ") + value.type_name());
  return value;
}

} // namespace ad::runtime
