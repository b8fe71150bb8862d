#include "runtime/core/json.hpp"

#include <algorithm>

#include <stdexcept>

#include "runtime/core/exception_text.hpp"

namespace ad::runtime {

namespace {

// The deepest nesting of arrays and objects in text (strings skipped); stops
// counting once past limit.
std::size_t nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit)
        return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

} // namespace

result<json> parse_json(std::string_view text, std::string_view source) {
  // Deep nesting is refused before the parser (and every recursive walk of
  // the value after it) can exhaust the stack.
  if (nesting_depth(text, json_max_depth) > json_max_depth)
    return status::invalid_argument(std::string(source) + ": invalid JSON: nested deeper than "
                                    + std::to_string(json_max_depth) + " levels");
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return status::invalid_argument(std::string(source) + ": invalid JSON at byte "
                                    + std::to_string(e.byte) + ": " + exception_text(e));
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string(source) + ": invalid JSON: " + exception_text(e));
  }
}

std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

void require_integer_numbers(const json& j) {
  if (j.is_number_float())
    throw std::invalid_argument("holds " + j.dump() + " where an integer belongs");
  if (j.is_structured())
    for (const auto& item : j)
      require_integer_numbers(item);
}

void require_integer_numbers(const json& j, std::string_view skip) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != skip)
        require_integer_numbers(it.value(), skip);
    return;
  }
  if (j.is_array()) {
    for (const auto& item : j)
      require_integer_numbers(item, skip);
    return;
  }
  require_integer_numbers(j);
}

void throw_json_member_error(std::string_view key, std::string_view what) {
  std::string message;
  message.reserve(key.size() + what.size() + 3);
  message.append(1, '"').append(key).append("\" ").append(what);
  throw std::invalid_argument(message);
}

} // namespace ad::runtime
