#pragma once
// Strict member reads for the keeper's JSON files (records, spool index):
// an integer must be a JSON integer within the range asked for (no 1.5, no
// "1", no wrap-around), a string a JSON string. Like json_member they throw
// std::invalid_argument naming the member; call them only inside a reader's
// try block, which turns the exception into a status naming the file.

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"

namespace ad::runtime::strict_json {

inline const json& member(const json& j, std::string_view key) {
  if (!j.is_object() || !j.contains(key))
    throw_json_member_error(key, "is missing");
  return *j.find(key);
}

inline int64_t integer(const json& j, std::string_view key, int64_t min,
                       int64_t max = std::numeric_limits<int64_t>::max()) {
  const json& v = member(j, key);
  if (!v.is_number_integer())
    throw_json_member_error(key, std::string("must be an integer, not ") + v.type_name());
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max))
    throw_json_member_error(key, "is out of range");
  int64_t n = v.get<int64_t>();
  if (n < min || n > max)
    throw_json_member_error(key, "is out of range (" + std::to_string(n) + ")");
  return n;
}

inline uint64_t unsigned_integer(const json& j, std::string_view key) {
  const json& v = member(j, key);
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0))
    throw_json_member_error(key, std::string("must be a non-negative integer, not ") +
                                   (v.is_number_integer() ? "negative" : v.type_name()));
  return v.get<uint64_t>();
}

inline std::string string(const json& j, std::string_view key) {
  const json& v = member(j, key);
  if (!v.is_string())
    throw_json_member_error(key, std::string("must be a string, not ") + v.type_name());
  return v.get<std::string>();
}

inline const json& object(const json& j, std::string_view key) {
  const json& v = member(j, key);
  if (!v.is_object())
    throw_json_member_error(key, std::string("must be an object, not ") + v.type_name());
  return v;
}

// Runs read(object) on the object member `key`; an error inside it is
// reported as "<key>: <error>".
template <class Read>
auto nested(const json& j, std::string_view key, Read&& read) {
  const json& v = object(j, key);
  try {
    return read(v);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(key) + ": " + e.what());
  }
}

} // namespace ad::runtime::strict_json
