#pragma once
// Internal to runtime/agents: type-checked, non-throwing reads of fields from
// parsed agent events. Agent CLIs change their event shapes between releases,
// so every read tolerates a missing field or a field of another type by
// returning an empty value. Never throws; no state.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/core/numbers.hpp"

namespace ad::runtime::agent_json {

// The object member `key`, or nullptr when value is not an object or lacks it.
inline const json* member(const json& value, std::string_view key) {
  if (!value.is_object())
    return nullptr;
  auto it = value.find(key);
  return it == value.end() ? nullptr : &*it;
}

// The string member `key`, or "" when absent or not a string.
inline std::string_view str(const json& value, std::string_view key) {
  const json* m = member(value, key);
  if (m == nullptr || !m->is_string())
    return {};
  return m->get_ref<const std::string&>();
}

inline bool truthy(const json& value, std::string_view key) {
  const json* m = member(value, key);
  if (m == nullptr)
    return false;
  if (m->is_boolean())
    return m->get<bool>();
  if (m->is_number())
    return m->get<double>() != 0;
  if (m->is_string())
    return !m->get_ref<const std::string&>().empty();
  return !m->is_null();
}

inline std::optional<int64_t> integer(const json& value, std::string_view key) {
  const json* m = member(value, key);
  if (m == nullptr)
    return std::nullopt;
  if (m->is_number_integer())
    return m->get<int64_t>();
  if (m->is_number_float())
    return to_int64(m->get<double>()); // 1E234 is no integer

  return std::nullopt;
}

// Parses a line that looks like a JSON object; nullopt for anything else
// (plain text, a torn line, binary garbage).
inline std::optional<json> parse_object_line(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
    ++i;
  if (i == line.size() || line[i] != '{')
    return std::nullopt;
  auto parsed = parse_json(line, "stream line");
  if (!parsed || !parsed->is_object())
    return std::nullopt;
  return std::move(parsed.value());
}

} // namespace ad::runtime::agent_json
