#include "runtime/schedule/task_view.hpp"

namespace ad::runtime {

std::string_view to_string(view_stage stage) {
  switch (stage) {
    case view_stage::blocked: return "blocked";
    case view_stage::user_review: return "user-review";
    case view_stage::review: return "review";
    case view_stage::selfcheck: return "selfcheck";
    case view_stage::worker: return "worker";
    case view_stage::complete: return "complete";
  }
  return "unknown";
}

std::string_view to_string(live_where where) {
  switch (where) {
    case live_where::none: return "none";
    case live_where::here: return "here";
    case live_where::elsewhere: return "elsewhere";
  }
  return "unknown";
}

std::optional<int> subtask_index_of(std::string_view task_name) {
  auto slash = task_name.rfind('/');
  if (slash == std::string_view::npos)
    return std::nullopt;
  auto leaf = task_name.substr(slash + 1);
  if (leaf.size() < 3)
    return std::nullopt;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!digit(leaf[0]) || !digit(leaf[1]) || (leaf[2] != '+' && leaf[2] != '_'))
    return std::nullopt;
  return (leaf[0] - '0') * 10 + (leaf[1] - '0');
}

std::string two_digit(int index) {
  std::string out;
  if (index >= 0 && index < 10)
    out.push_back('0');
  out += std::to_string(index);
  return out;
}

} // namespace ad::runtime
