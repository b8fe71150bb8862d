#include "runtime/workspace/user_review.hpp"

#include <optional>

#include "runtime/core/files.hpp"
#include "runtime/workspace/markdown.hpp"

namespace ad::runtime {

namespace {

// For `- <label>: <value>` lines (any of `labels`): the trimmed values.
std::vector<std::string_view> labelled_values(std::string_view section,
                                              std::initializer_list<std::string_view> labels) {
  std::vector<std::string_view> out;
  for (const auto& line : split_lines(section)) {
    std::string_view s = line.text;
    if (!s.starts_with("-"))
      continue;
    s.remove_prefix(1);
    while (!s.empty() && is_space(s.front()))
      s.remove_prefix(1);
    for (auto label : labels) {
      if (s.starts_with(label) && s.substr(label.size()).starts_with(":")) {
        out.push_back(trim(s.substr(label.size() + 1)));
        break;
      }
    }
  }
  return out;
}

// `- [<one whitespace>] <text>` items with their text.
std::vector<std::string_view> open_items(std::string_view section) {
  std::vector<std::string_view> out;
  for (const auto& line : split_lines(section)) {
    std::string_view s = line.text;
    if (!s.starts_with("-"))
      continue;
    s.remove_prefix(1);
    while (!s.empty() && is_space(s.front()))
      s.remove_prefix(1);
    if (s.size() < 4 || s[0] != '[' || !is_space(s[1]) || s[2] != ']' || !is_space(s[3]))
      continue;
    auto item = trim(s.substr(3));
    if (!item.empty())
      out.push_back(item);
  }
  return out;
}

} // namespace

std::string_view to_string(user_review_part part) {
  switch (part) {
  case user_review_part::file: return "file";
  case user_review_part::status: return "status";
  case user_review_part::type: return "type";
  case user_review_part::target: return "target";
  case user_review_part::milestone_path: return "milestone-path";
  case user_review_part::evidence: return "evidence";
  case user_review_part::action_duplicated: return "action-duplicated";
  case user_review_part::action: return "action";
  case user_review_part::resume: return "resume";
  }
  return "?";
}

std::string_view describe(user_review_part part) {
  switch (part) {
  case user_review_part::file: return "the file cannot be read";
  case user_review_part::status: return "Status is not USER_REVIEW";
  case user_review_part::type:
    return "Reason does not name exactly one type (milestone-lock or external-execution)";
  case user_review_part::target: return "Reason has no concrete linked target";
  case user_review_part::milestone_path:
    return "milestone-lock target is not a path under agent-roadmap/.../milestones/...md";
  case user_review_part::evidence: return "Evidence has no concrete evidence line";
  case user_review_part::action_duplicated:
    return "Required Action appears under both its current and its legacy name";
  case user_review_part::action: return "Required Action has no unresolved '- [ ]' item";
  case user_review_part::resume: return "Resume Condition has no concrete condition";
  }
  return "?";
}

std::string_view to_string(user_review_type type) {
  switch (type) {
  case user_review_type::none: return "none";
  case user_review_type::milestone_lock: return "milestone-lock";
  case user_review_type::external_execution: return "external-execution";
  }
  return "?";
}

std::string user_review_reading::missing_summary() const {
  std::string out;
  for (auto part : missing) {
    out += out.empty() ? "" : "; ";
    out += part == user_review_part::file && !read_error.empty() ? read_error
                                                                  : std::string(describe(part));
  }
  return out;
}

user_review_reading read_user_review(std::string_view text) {
  user_review_reading out;
  // Surrounding backticks are allowed around the status word.
  std::string status_word(trim(section_text(text, {"Status", "상태"})));
  while (!status_word.empty() && status_word.front() == '`')
    status_word.erase(status_word.begin());
  while (!status_word.empty() && status_word.back() == '`')
    status_word.pop_back();
  if (status_word != "USER_REVIEW")
    out.missing.push_back(user_review_part::status);

  auto reason = section_text(text, {"Reason", "사유"});
  std::size_t types = 0;
  for (auto value : labelled_values(reason, {"Type", "유형"})) {
    if (value == "milestone-lock") {
      out.type = user_review_type::milestone_lock;
      ++types;
    } else if (value == "external-execution") {
      out.type = user_review_type::external_execution;
      ++types;
    }
  }
  if (types != 1) {
    out.type = types == 0 ? user_review_type::none : out.type;
    out.missing.push_back(user_review_part::type);
  }
  auto targets = labelled_values(reason, {"Target", "Linked Target", "연결 대상"});
  std::string_view target = targets.empty() ? std::string_view{} : targets.front();
  out.target = std::string(target);
  if (!is_concrete_value(target)) {
    out.missing.push_back(user_review_part::target);
  } else if (types == 1 && out.type == user_review_type::milestone_lock &&
             (target.find("agent-roadmap/") == std::string_view::npos ||
              target.find("/milestones/") == std::string_view::npos ||
              target.find(".md") == std::string_view::npos)) {
    out.missing.push_back(user_review_part::milestone_path);
  }

  auto evidence_section = section_text(text, {"Evidence", "차단 근거"});
  auto evidence = labelled_values(evidence_section, {"Evidence", "차단 판단 근거"});
  if (evidence.empty() || !is_concrete_value(evidence.front()))
    out.missing.push_back(user_review_part::evidence);

  auto action = section_text(text, {"Required Action", "사용자 조치 또는 결정"});
  auto legacy_action = section_text(text, {"연결 결정 필요"});
  if (!action.empty() && !legacy_action.empty()) {
    out.missing.push_back(user_review_part::action_duplicated);
  } else {
    if (action.empty())
      action = legacy_action;
    for (auto item : open_items(action))
      if (is_concrete_value(item))
        out.actions.emplace_back(item);
    if (out.actions.empty())
      out.missing.push_back(user_review_part::action);
  }

  auto resume = section_text(text, {"Resume Condition", "재개 조건"});
  bool has_condition = false;
  for (const auto& line : split_lines(resume))
    has_condition = has_condition || is_concrete_value(line.text);
  if (!has_condition)
    out.missing.push_back(user_review_part::resume);
  return out;
}

user_review_reading read_user_review_file(const std::filesystem::path& path) {
  auto text = read_file(path, max_user_review_bytes);
  if (!text.is_ok()) {
    user_review_reading out;
    out.missing.push_back(user_review_part::file);
    out.read_error = "USER_REVIEW.md cannot be read: " + text.error().message();
    return out;
  }
  return read_user_review(*text);
}

} // namespace ad::runtime
