#pragma once
// The one wrapper around nlohmann::json parsing: it never throws, and a parse
// error becomes invalid_argument naming the source (a file path or a label)
// and the byte offset. Use this instead of json::parse anywhere in runtime/.
// Also the strict member reads of readers that turn exceptions into status
// values (json_member, json_array_member, require_integer_numbers: they throw
// std::invalid_argument naming the field or the number; call them only
// inside such a reader's try block).
//
// nlohmann converts a number written with a fraction or an exponent to an
// integer type by a plain cast, which is undefined behaviour when the value
// is out of the type's range (1e300 as int64_t). So no reader here takes an
// integer from such a number: json_member refuses one, and readers of whole
// documents that hold only integers (the state files) call
// require_integer_numbers before converting.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>

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

// Throws std::invalid_argument ("holds 1e+300 where an integer belongs") when
// j holds, at any depth, a number written with a fraction or an exponent.
void require_integer_numbers(const json& j);
// The same, except inside members named `skip` (at any depth): values whose
// own reader checks their numbers, such as a usage record's cost
// (usage_from_json).
void require_integer_numbers(const json& j, std::string_view skip);

// The member `key` of object j as a T. Throws std::invalid_argument
// ("\"key\" is missing", "\"key\" has the wrong type (array)", "\"key\"
// holds 1.5 where an integer belongs"). Unless T is json or a floating-point
// type, a number with a fraction or an exponent anywhere in the member is
// refused: no type the product reads this way (integers, strings, its own
// structs and containers of them) holds a floating-point field.
template <class T>
T json_member(const json& j, std::string_view key) {
  if (!j.is_object() || !j.contains(key))
    throw_json_member_error(key, "is missing");
  const auto& value = *j.find(key);
  if constexpr (!std::is_same_v<T, json> && !std::is_floating_point_v<T>) {
    try {
      require_integer_numbers(value);
    } catch (const std::invalid_argument& e) {
      throw_json_member_error(key, e.what());
    }
  }
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
