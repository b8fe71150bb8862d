#include "runtime/workspace/task_name.hpp"

#include <cstdio>

#include "runtime/core/text.hpp"

namespace ad::runtime {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Consumes "local" or "cloud".
std::optional<task_lane> eat_lane(std::string_view& s) {
  if (s.starts_with("local")) {
    s.remove_prefix(5);
    return task_lane::local;
  }
  if (s.starts_with("cloud")) {
    s.remove_prefix(5);
    return task_lane::cloud;
  }
  return std::nullopt;
}

// Consumes "G01".."G10".
std::optional<int> eat_grade(std::string_view& s) {
  if (s.size() < 3 || s[0] != 'G' || !is_digit(s[1]) || !is_digit(s[2]))
    return std::nullopt;
  int grade = (s[1] - '0') * 10 + (s[2] - '0');
  if (grade < 1 || grade > 10)
    return std::nullopt;
  s.remove_prefix(3);
  return grade;
}

// Consumes "0" or "[1-9][0-9]*" (bounded so it fits).
std::optional<long long> eat_generation(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && is_digit(s[n]))
    ++n;
  if (n == 0 || n > 15 || (n > 1 && s[0] == '0'))
    return std::nullopt;
  long long value = 0;
  for (std::size_t i = 0; i < n; ++i)
    value = value * 10 + (s[i] - '0');
  s.remove_prefix(n);
  return value;
}

std::optional<route_file_name> parse_route_file(std::string_view file, std::string_view prefix) {
  if (!eat(file, prefix))
    return std::nullopt;
  auto lane = eat_lane(file);
  if (!lane || !eat(file, "-"))
    return std::nullopt;
  auto grade = eat_grade(file);
  if (!grade || file != ".md")
    return std::nullopt;
  return route_file_name{*lane, *grade};
}

std::optional<log_file_name> parse_log(std::string_view file, std::string_view prefix) {
  if (!eat(file, prefix))
    return std::nullopt;
  auto lane = eat_lane(file);
  if (!lane || !eat(file, "_"))
    return std::nullopt;
  auto grade = eat_grade(file);
  if (!grade || !eat(file, "_"))
    return std::nullopt;
  auto generation = eat_generation(file);
  if (!generation || file != ".log")
    return std::nullopt;
  return log_file_name{*lane, *grade, *generation};
}

} // namespace

std::string_view to_string(task_lane lane) {
  return lane == task_lane::local ? "local" : "cloud";
}

std::string route_label(task_lane lane, int grade) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "G%02d", grade);
  return std::string(to_string(lane)) + "-" + buf;
}

std::optional<subtask_name> parse_subtask_name(std::string_view folder) {
  subtask_name out;
  if (folder.size() < 4 || !is_digit(folder[0]) || !is_digit(folder[1]))
    return std::nullopt;
  out.index = (folder[0] - '0') * 10 + (folder[1] - '0');
  folder.remove_prefix(2);
  if (eat(folder, "+")) {
    do {
      if (folder.size() < 2 || !is_digit(folder[0]) || !is_digit(folder[1]))
        return std::nullopt;
      out.deps.emplace_back(folder.substr(0, 2));
      folder.remove_prefix(2);
    } while (eat(folder, ","));
  }
  if (!eat(folder, "_") || folder.empty())
    return std::nullopt;
  for (char c : folder)
    if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '_'))
      return std::nullopt;
  return out;
}

std::optional<route_file_name> parse_plan_file_name(std::string_view file) {
  return parse_route_file(file, "PLAN-");
}

std::optional<route_file_name> parse_review_file_name(std::string_view file) {
  return parse_route_file(file, "CODE_REVIEW-");
}

std::optional<log_file_name> parse_plan_log_name(std::string_view file) {
  return parse_log(file, "plan_");
}

std::optional<log_file_name> parse_review_log_name(std::string_view file) {
  return parse_log(file, "code_review_");
}

std::string task_name_of(const std::filesystem::path& task_root,
                         const std::filesystem::path& directory) {
  auto relative = directory.lexically_relative(task_root);
  if (relative.empty() || *relative.begin() == "..")
    return {};
  return relative.generic_string();
}

std::string task_group(std::string_view task_name) {
  return std::string(task_name.substr(0, task_name.find('/')));
}

bool is_valid_group_name(std::string_view group) {
  return !group.empty() && group != "." && group != ".." && group != "archive" &&
         group.find('/') == std::string_view::npos && group.find('\0') == std::string_view::npos;
}

} // namespace ad::runtime
