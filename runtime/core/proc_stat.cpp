#include "runtime/core/proc_stat.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/core/files.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

std::optional<std::vector<std::string_view>> stat_fields_after_name(std::string_view stat_text) {
  auto close = stat_text.rfind(')');
  if (close == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = stat_text.substr(close + 1);
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i])))
      ++i;
    if (i >= rest.size())
      break;
    std::size_t start = i;
    while (i < rest.size() && !std::isspace(static_cast<unsigned char>(rest[i])))
      ++i;
    out.push_back(rest.substr(start, i - start));
  }
  return out;
}

result<std::string> parse_start_token(std::string_view stat_text) {
  auto fields = stat_fields_after_name(stat_text);
  if (!fields)
    return status::invalid_argument("process stat text has no ')'");
  // Fields after the name start at field 3 (state); starttime is field 22.
  if (fields->size() < 20)
    return status::invalid_argument("process stat text has fewer than 22 fields");
  std::string token((*fields)[22 - 3]);
  if (token.empty() || !std::all_of(token.begin(), token.end(), [](unsigned char c) {
        return std::isdigit(c) != 0;
      }))
    return status::invalid_argument("process start time field is not a number: " + token);
  return token;
}

result<std::string> process_start_token(int pid, const fs::path& proc_root) {
  if (pid <= 0)
    return status::not_found("no process with pid " + std::to_string(pid));
  auto text = read_file(proc_root / std::to_string(pid) / "stat", 64 << 10);
  if (!text)
    return status::not_found("no process with pid " + std::to_string(pid));
  return parse_start_token(*text);
}

} // namespace ad::runtime
