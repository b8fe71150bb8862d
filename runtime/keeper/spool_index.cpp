#include "runtime/keeper/spool_index.hpp"

#include <stdexcept>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/strict_json.hpp"

namespace ad::runtime {

namespace {

constexpr std::string_view index_format = "agent-dispatch-spool-index";
constexpr std::size_t max_index_bytes = 4096;

json start_to_json(const spool_segment_start& s) {
  return json{{"inode", s.inode}, {"start_bytes", s.start_bytes}, {"start_lines", s.start_lines}};
}

spool_segment_start start_from_json(const json& j) {
  spool_segment_start s;
  s.inode = strict_json::unsigned_integer(j, "inode");
  s.start_bytes = strict_json::unsigned_integer(j, "start_bytes");
  s.start_lines = strict_json::unsigned_integer(j, "start_lines");
  return s;
}

} // namespace

std::string spool_index_to_text(const spool_index& index) {
  json j{{"format", index_format}, {"version", 1}, {"newest", start_to_json(index.newest)},
         {"older", index.older ? start_to_json(*index.older) : json(nullptr)}};
  return dump_json(j) + "\n";
}

result<spool_index> parse_spool_index(std::string_view text, std::string_view source) {
  auto parsed = parse_json(text, source);
  if (!parsed)
    return parsed.error();
  try {
    const json& j = *parsed;
    if (strict_json::string(j, "format") != index_format)
      throw_json_member_error("format", "is not \"" + std::string(index_format) + "\"");
    strict_json::integer(j, "version", 1, 1);
    spool_index index;
    index.newest = strict_json::nested(j, "newest", start_from_json);
    const json& older = strict_json::member(j, "older");
    if (!older.is_null()) {
      if (!older.is_object())
        throw_json_member_error("older", "must be an object or null");
      index.older = strict_json::nested(j, "older", start_from_json);
    }
    return index;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string(source) + ": " + e.what());
  }
}

status write_spool_index(const std::filesystem::path& log, const spool_index& index) {
  return write_file_atomic(spool_index_path(log), spool_index_to_text(index), durability::buffered);
}

result<std::optional<spool_index>> read_spool_index(const std::filesystem::path& log) {
  auto path = spool_index_path(log);
  auto text = read_file(path, max_index_bytes);
  if (!text) {
    if (text.error().is_not_found())
      return std::optional<spool_index>{};
    return text.error();
  }
  auto index = parse_spool_index(*text, path.string());
  if (!index)
    return index.error();
  return std::optional<spool_index>(std::move(*index));
}

} // namespace ad::runtime
