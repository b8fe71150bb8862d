#include "runtime/core/json.hpp"

#include <stdexcept>

namespace ad::runtime {

result<json> parse_json(std::string_view text, std::string_view source) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return status::invalid_argument(std::string(source) + ": invalid JSON at byte "
                                    + std::to_string(e.byte) + ": " + e.what());
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string(source) + ": invalid JSON: " + e.what());
  }
}

std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

void throw_json_member_error(std::string_view key, std::string_view what) {
  std::string message;
  message.reserve(key.size() + what.size() + 3);
  message.append(1, '"').append(key).append("\" ").append(what);
  throw std::invalid_argument(message);
}

} // namespace ad::runtime
