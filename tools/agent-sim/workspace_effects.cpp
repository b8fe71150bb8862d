#include "tools/agent-sim/workspace_effects.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <system_error>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"

namespace ad::agent_sim {

namespace {

using runtime::result;
using runtime::status;

const std::regex plan_name_re{R"(^PLAN-(local|cloud)-G(0[1-9]|10)\.md$)"};
const std::regex review_name_re{R"(^CODE_REVIEW-(local|cloud)-G(0[1-9]|10)\.md$)"};
const std::regex plan_log_re{R"(^plan_(local|cloud)_G(0[1-9]|10)_(\d{1,9})\.log$)"};
const std::regex review_log_re{R"(^code_review_(local|cloud)_G(0[1-9]|10)_(\d{1,9})\.log$)"};
const std::regex identity_re{R"(<!--\s*task=(\S+)\s+plan=(\d+)\s+tag=(\S+)\s*-->)"};

bool is_inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *r != *q) return false;
  }
  return true;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) lines.push_back(std::move(cur));
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

// [begin, end) line indexes of the body of "## <heading>", or nullopt.
std::optional<std::pair<std::size_t, std::size_t>> section(const std::vector<std::string>& lines,
                                                           std::string_view heading) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = rtrim(lines[i]);
    if (l.rfind("## ", 0) == 0 && std::string_view(l).substr(3) == heading) {
      std::size_t end = i + 1;
      while (end < lines.size() && lines[end].rfind("## ", 0) != 0) ++end;
      return std::make_pair(i + 1, end);
    }
  }
  return std::nullopt;
}

bool is_empty_box(const std::string& line) {
  static const std::regex box{R"(^-\s+\[\s*\])"};
  return std::regex_search(line, box);
}

bool is_box(const std::string& line) {
  static const std::regex box{R"(^-\s+\[[^\]\r\n]*\])"};
  return std::regex_search(line, box);
}

status read_text(const fs::path& p, std::string& out) {
  auto text = runtime::read_file(p);
  if (!text) return text.error();
  out = std::move(*text);
  return status::ok();
}

status rename_path(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) return status::io_error("rename " + from.string() + " -> " + to.string() + ": " + ec.message());
  return status::ok();
}

// A file name in dir that does not exist yet: base + n + ext, n counting up.
fs::path free_log_name(const fs::path& dir, const std::string& stem, int n) {
  for (;; ++n) {
    fs::path p = dir / (stem + std::to_string(n) + ".log");
    if (!fs::exists(p)) return p;
  }
}

// Drops every verdict section, in either schema (English "Code Review
// Result", legacy Korean "코드리뷰 결과"), so the new verdict is the only one.
std::string without_result_section(std::string_view review_text) {
  auto lines = split_lines(review_text);
  bool dropped = false;
  for (std::string_view heading : {"Code Review Result", "코드리뷰 결과"}) {
    while (auto sec = section(lines, heading)) {
      lines.erase(lines.begin() + static_cast<long>(sec->first - 1), lines.begin() + static_cast<long>(sec->second));
      dropped = true;
    }
  }
  return dropped ? join_lines(lines) : std::string(review_text);
}

std::string with_verdict(std::string_view review_text, std::string_view verdict) {
  std::string out = without_result_section(review_text);
  if (!out.empty() && out.back() != '\n') out += "\n";
  out += "\n## Code Review Result\n\nOverall Verdict: " + std::string(verdict) + "\n";
  return out;
}

std::string clear_checklist(std::string_view review_text) {
  auto lines = split_lines(without_result_section(review_text));
  auto sec = section(lines, "Implementation Checklist");
  if (sec) {
    static const std::regex box{R"(^(-\s+)\[[^\]\r\n]*\])"};
    for (std::size_t i = sec->first; i < sec->second; ++i)
      lines[i] = std::regex_replace(lines[i], box, "$1[ ]", std::regex_constants::format_first_only);
  }
  return join_lines(lines);
}

int plan_number_of(const task_files& task) {
  std::string text;
  const fs::path& source = task.plan.empty() ? task.plan_log : task.plan;
  if (!source.empty() && read_text(source, text)) {
    if (auto id = read_plan_identity(text)) return id->plan;
  }
  return 1;
}

// Cleans one prompt word: drops "key=" and surrounding punctuation.
std::string prompt_token(std::string word) {
  if (auto eq = word.find('='); eq != std::string::npos && word.find('/') > eq) word = word.substr(eq + 1);
  auto strip = [](char c) { return c == '.' || c == ',' || c == ';' || c == ':' || c == '"' || c == '\'' || c == '`' || c == ')' || c == '('; };
  while (!word.empty() && strip(word.back())) word.pop_back();
  while (!word.empty() && strip(word.front()) && word.front() != '.') word.erase(word.begin());
  return word;
}

result<task_files> task_from_directory(const fs::path& workspace, const fs::path& dir) {
  std::error_code ec;
  fs::path ws = fs::weakly_canonical(workspace, ec);
  fs::path d = fs::weakly_canonical(dir, ec);
  fs::path root = ws / "agent-task";
  if (!is_inside(root, d) || d == root)
    return status::invalid_argument("task folder " + d.string() + " is outside " + root.string());
  task_files t;
  t.workspace = ws;
  t.directory = d;
  t.name = d.lexically_relative(root).generic_string();
  if (t.name.rfind("archive", 0) == 0) return status::invalid_argument("task folder " + d.string() + " is in the archive");
  if (!fs::is_directory(d, ec)) return status::not_found("task folder " + d.string() + " does not exist");
  // Logs by (generation, name): the newest review log, plan logs by suffix.
  std::pair<long, std::string> newest_review{-1, ""};
  std::vector<std::pair<long, std::string>> plan_logs;
  for (const auto& e : fs::directory_iterator(d, ec)) {
    std::string name = e.path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, review_log_re)) {
      std::pair<long, std::string> key{std::stol(m[3]), name};
      if (key > newest_review) newest_review = key;
    } else if (std::regex_match(name, m, plan_log_re)) {
      plan_logs.emplace_back(std::stol(m[3]), name);
    } else if (std::regex_match(name, m, plan_name_re)) {
      t.plan = e.path();
      t.lane = m[1];
      t.grade = m[2];
    } else if (std::regex_match(name, m, review_name_re)) {
      t.review = e.path();
      if (t.lane.empty()) {
        t.lane = m[1];
        t.grade = m[2];
      }
    }
  }
  if (t.review.empty() && newest_review.first >= 0) {
    t.review_log = d / newest_review.second;
    std::smatch m;
    std::regex_match(newest_review.second, m, review_log_re);
    if (t.lane.empty()) {
      t.lane = m[1];
      t.grade = m[2];
    }
    // The plan log of the same generation, else the newest one.
    std::string twin = "plan_" + newest_review.second.substr(std::string("code_review_").size());
    std::sort(plan_logs.begin(), plan_logs.end());
    for (const auto& [gen, name] : plan_logs)
      if (name == twin) t.plan_log = d / name;
    if (t.plan_log.empty() && !plan_logs.empty()) t.plan_log = d / plan_logs.back().second;
  }
  return t;
}

} // namespace

result<task_files> task_from_name(const fs::path& workspace, std::string_view name) {
  return task_from_directory(workspace, workspace / "agent-task" / std::string(name));
}

// The prompt's words: runs of non-space characters, where a double-quoted
// span (with \" and \\ escapes) is one word however many spaces it holds,
// as the dispatcher quotes a path with spaces.
std::vector<std::string> prompt_words(std::string_view prompt) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < prompt.size(); ++i) {
    char c = prompt[i];
    if (quoted) {
      if (c == '\\' && i + 1 < prompt.size())
        word += prompt[++i];
      else if (c == '"')
        quoted = false;
      else
        word += c;
    } else if (c == '"') {
      quoted = any = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (any)
        words.push_back(std::move(word));
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any)
    words.push_back(std::move(word));
  return words;
}

result<task_files> task_from_prompt(const fs::path& workspace, std::string_view prompt) {
  std::error_code ec;
  for (const auto& word : prompt_words(prompt)) {
    std::string tok = prompt_token(word);
    if (tok.find('/') == std::string::npos) continue;
    fs::path p = tok;
    if (p.is_relative()) p = workspace / p;
    std::string base = p.filename().string();
    if (std::regex_match(base, plan_name_re) || std::regex_match(base, review_name_re))
      return task_from_directory(workspace, p.parent_path());
    fs::path locator = base == "locator.json" ? p : p / "locator.json";
    if (fs::is_regular_file(locator, ec)) {
      std::string text;
      if (!read_text(locator, text)) continue;
      auto doc = runtime::parse_json(text, locator.string());
      if (doc && doc->is_object()) {
        for (const char* key : {"task", "task_name"}) {
          if (doc->contains(key) && doc->at(key).is_string())
            return task_from_name(workspace, doc->at(key).get<std::string>());
        }
        for (const char* key : {"plan_path", "plan", "review_path", "review"}) {
          if (doc->contains(key) && doc->at(key).is_string())
            return task_from_directory(workspace, fs::path(doc->at(key).get<std::string>()).parent_path());
        }
      }
      continue;
    }
    fs::path canon = fs::weakly_canonical(p, ec);
    if (fs::is_directory(canon, ec) && is_inside(fs::weakly_canonical(workspace, ec) / "agent-task", canon))
      return task_from_directory(workspace, canon);
  }
  return status::not_found("the prompt names no PLAN, CODE_REVIEW, task folder or locator: " +
                           std::string(prompt.substr(0, 200)));
}

std::string role_from_prompt(std::string_view prompt) {
  std::string p(prompt);
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
  if (p.find("start the review") != std::string::npos ||
      p.find("continue the review") != std::string::npos)
    return "review";
  if (p.find("self-check") != std::string::npos || p.find("selfcheck") != std::string::npos ||
      p.find("missing implementation field") != std::string::npos)
    return "selfcheck";
  return "worker";
}

result<plan_identity> read_plan_identity(std::string_view plan_text) {
  std::string head(plan_text.substr(0, 1024));
  std::smatch m;
  if (!std::regex_search(head, m, identity_re))
    return status::invalid_argument("no <!-- task=... plan=N tag=... --> header in the first 1024 bytes");
  plan_identity id;
  id.task = m[1];
  id.plan = std::stoi(m[2].str().substr(0, 9));
  id.tag = m[3];
  return id;
}

result<std::vector<std::string>> modified_files(std::string_view plan_text) {
  auto lines = split_lines(plan_text);
  auto sec = section(lines, "Modified Files Summary");
  if (!sec) return status::invalid_argument("no ## Modified Files Summary section");
  std::vector<std::string> out;
  bool header_seen = false;
  static const std::regex tick{"`([^`]*)`"};
  static const std::regex line_suffix{R"(:\d+(:\d+)?$)"};
  for (std::size_t i = sec->first; i < sec->second; ++i) {
    std::string l = rtrim(lines[i]);
    if (l.empty() || l[0] != '|') continue;
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    if (l.find_first_not_of("|-: ") == std::string::npos) continue;  // separator row
    std::string cell = l.substr(1, l.find('|', 1) == std::string::npos ? std::string::npos : l.find('|', 1) - 1);
    for (std::sregex_iterator it(cell.begin(), cell.end(), tick), end; it != end; ++it) {
      std::string path = std::regex_replace((*it)[1].str(), line_suffix, "");
      if (!path.empty()) out.push_back(path);
    }
  }
  return out;
}

std::string fill_checklist(std::string_view review_text, checklist_fill how) {
  auto lines = split_lines(review_text);
  auto sec = section(lines, "Implementation Checklist");
  if (!sec || how == checklist_fill::none) return std::string(review_text);
  static const std::regex box{R"(^(-\s+)\[\s*\])"};
  for (std::size_t i = sec->first; i < sec->second; ++i) {
    if (!is_empty_box(lines[i])) continue;
    lines[i] = std::regex_replace(lines[i], box, "$1[x]", std::regex_constants::format_first_only);
    if (how == checklist_fill::first) break;
  }
  return join_lines(lines);
}

bool checklist_complete(std::string_view review_text) {
  auto lines = split_lines(review_text);
  auto sec = section(lines, "Implementation Checklist");
  if (!sec) return false;
  bool any = false;
  for (std::size_t i = sec->first; i < sec->second; ++i) {
    if (!is_box(lines[i])) continue;
    any = true;
    if (is_empty_box(lines[i])) return false;
  }
  return any;
}

result<fs::path> confine(const fs::path& workspace, std::string_view relative) {
  std::error_code ec;
  fs::path ws = fs::weakly_canonical(workspace, ec);
  fs::path p = fs::path(std::string(relative));
  if (p.is_relative()) p = ws / p;
  fs::path canon = fs::weakly_canonical(p.lexically_normal(), ec);
  if (ec) return status::invalid_argument(std::string(relative) + ": " + ec.message());
  if (!is_inside(ws, canon) || canon == ws)
    return status::invalid_argument(std::string(relative) + " resolves to " + canon.string() +
                                    ", outside the workspace " + ws.string());
  return canon;
}

status do_work(const task_files& task, const action& a, std::string_view stamp, effect_report& report) {
  if (task.plan.empty()) return status::not_found("no PLAN in " + task.directory.string());
  std::string plan_text;
  if (auto st = read_text(task.plan, plan_text); !st) return st;
  auto paths = modified_files(plan_text);
  if (!paths) return paths.error().with_context(task.plan.string());
  for (const auto& rel : *paths) {
    auto target = confine(task.workspace, rel);
    if (!target) {
      report.refused.push_back(rel);
      continue;
    }
    std::error_code ec;
    fs::create_directories(target->parent_path(), ec);
    std::string current;
    if (fs::exists(*target, ec)) {
      if (auto st = read_text(*target, current); !st) return st;
    }
    if (a.mode == write_mode::append) current += std::string(stamp) + "\n";
    if (auto st = runtime::write_file_atomic(*target, current, runtime::durability::buffered); !st) return st;
    report.written.push_back(target->string());
  }
  if (!task.review.empty()) {
    std::string review_text;
    if (auto st = read_text(task.review, review_text); !st) return st;
    std::string filled = fill_checklist(review_text, a.checklist);
    if (filled != review_text) {
      if (auto st = runtime::write_file_atomic(task.review, filled, runtime::durability::buffered); !st) return st;
      report.written.push_back(task.review.string());
    }
  }
  return status::ok();
}

status do_selfcheck(const task_files& task, effect_report& report) {
  if (task.review.empty()) return status::not_found("no CODE_REVIEW in " + task.directory.string());
  std::string text;
  if (auto st = read_text(task.review, text); !st) return st;
  std::string filled = fill_checklist(text, checklist_fill::all);
  if (filled == text) return status::ok();
  if (auto st = runtime::write_file_atomic(task.review, filled, runtime::durability::buffered); !st) return st;
  report.written.push_back(task.review.string());
  return status::ok();
}

namespace {

// The PLAN text of the generation after n: the identity header's plan number
// raised, and a follow-up note.
std::string next_generation_plan(const std::string& plan_text, int n) {
  std::string next_plan = plan_text;
  std::smatch m;
  std::string head = plan_text.substr(0, 1024);
  if (std::regex_search(head, m, identity_re)) {
    std::string header = "<!-- task=" + m[1].str() + " plan=" + std::to_string(n + 1) +
                         " tag=" + m[3].str() + " -->";
    next_plan = plan_text.substr(0, static_cast<std::size_t>(m.position(0))) + header +
                plan_text.substr(static_cast<std::size_t>(m.position(0) + m.length(0)));
  }
  next_plan += "\n## Follow-up\n\nAddress the review findings of plan " + std::to_string(n) + ".\n";
  return next_plan;
}

// PASS: complete.log, then the folder moves to archive/<YYYY>/<MM>/<group>/.
status archive_task(const task_files& task, int n, const fs::path& review_log, runtime::millis now,
                    effect_report& report) {
  std::string iso = runtime::format_utc_iso(now);
  std::string body = "task=" + task.name + "\nverdict=PASS\nplan=" + std::to_string(n) +
                     "\ncompleted_at=" + iso + "\n";
  if (auto st = runtime::write_file_atomic(task.directory / "complete.log", body,
                                           runtime::durability::buffered); !st)
    return st;
  fs::path rel = fs::path(task.name);
  std::string group = rel.begin()->string();
  fs::path month_dir = task.workspace / "agent-task" / "archive" / iso.substr(0, 4) / iso.substr(5, 2);
  fs::path target = month_dir / group;
  if (rel.has_parent_path()) target /= rel.filename();
  fs::path chosen = target;
  for (int k = 1; fs::exists(chosen); ++k) chosen = target.string() + "_" + std::to_string(k);
  std::error_code ec;
  fs::create_directories(chosen.parent_path(), ec);
  if (auto st = rename_path(task.directory, chosen); !st) return st;
  report.written.push_back((chosen / review_log.filename()).string());
  report.written.push_back((chosen / "complete.log").string());
  report.notes.push_back("archived " + task.name + " to " + chosen.string());
  return status::ok();
}

// A recovery folder: the newest logs' generation is reviewed again.
status do_recovery_review(const task_files& task, std::string_view verdict,
                          review_follow_up follow_up, runtime::millis now, effect_report& report) {
  std::string review_text;
  if (auto st = read_text(task.review_log, review_text); !st) return st;
  const int n = plan_number_of(task);
  const std::string suffix = task.lane + "_G" + task.grade + "_";
  fs::path review_log = free_log_name(task.directory, "code_review_" + suffix, n);
  if (auto st = runtime::write_file_atomic(review_log, with_verdict(review_text, verdict),
                                           runtime::durability::buffered); !st)
    return st;
  if (verdict == "PASS") return archive_task(task, n, review_log, now, report);

  report.written.push_back(review_log.string());
  if (task.plan_log.empty() || follow_up == review_follow_up::stop) return status::ok();
  std::string plan_text;
  if (auto st = read_text(task.plan_log, plan_text); !st) return st;
  const std::string route = task.lane + "-G" + task.grade + ".md";
  fs::path plan = task.directory / ("PLAN-" + route);
  fs::path review = task.directory / ("CODE_REVIEW-" + route);
  if (auto st = runtime::write_file_atomic(plan, next_generation_plan(plan_text, n),
                                           runtime::durability::buffered); !st)
    return st;
  if (auto st = runtime::write_file_atomic(review, clear_checklist(review_text),
                                           runtime::durability::buffered); !st)
    return st;
  report.written.push_back(plan.string());
  report.written.push_back(review.string());
  report.notes.push_back("follow-up plan " + std::to_string(n + 1) + " for " + task.name);
  return status::ok();
}

} // namespace

status do_review(const task_files& task, std::string_view verdict, review_follow_up follow_up,
                 runtime::millis now, effect_report& report) {
  if (task.review.empty() && !task.review_log.empty())
    return do_recovery_review(task, verdict, follow_up, now, report);
  if (task.review.empty()) return status::not_found("no CODE_REVIEW in " + task.directory.string());
  std::string review_text;
  if (auto st = read_text(task.review, review_text); !st) return st;
  const int n = plan_number_of(task);
  const std::string suffix = task.lane + "_G" + task.grade + "_";
  fs::path review_log = free_log_name(task.directory, "code_review_" + suffix, n);
  if (auto st = runtime::write_file_atomic(task.review, with_verdict(review_text, verdict),
                                           runtime::durability::buffered); !st)
    return st;
  if (auto st = rename_path(task.review, review_log); !st) return st;

  if (verdict == "PASS") return archive_task(task, n, review_log, now, report);

  // FAIL or WARN: a follow-up generation with the next plan number.
  report.written.push_back(review_log.string());
  if (task.plan.empty()) return status::ok();
  std::string plan_text;
  if (auto st = read_text(task.plan, plan_text); !st) return st;
  fs::path plan_log = free_log_name(task.directory, "plan_" + suffix, n);
  if (auto st = rename_path(task.plan, plan_log); !st) return st;
  report.written.push_back(plan_log.string());
  if (follow_up == review_follow_up::stop) return status::ok();
  if (auto st = runtime::write_file_atomic(task.plan, next_generation_plan(plan_text, n),
                                           runtime::durability::buffered); !st) return st;
  if (auto st = runtime::write_file_atomic(task.review, clear_checklist(review_text),
                                           runtime::durability::buffered); !st)
    return st;
  report.written.push_back(task.plan.string());
  report.written.push_back(task.review.string());
  report.notes.push_back("follow-up plan " + std::to_string(n + 1) + " for " + task.name);
  return status::ok();
}

status do_write(const fs::path& workspace, std::string_view relative, std::string_view content,
                effect_report& report) {
  auto target = confine(workspace, relative);
  if (!target) {
    report.refused.push_back(std::string(relative));
    return status::ok();
  }
  std::error_code ec;
  fs::create_directories(target->parent_path(), ec);
  if (auto st = runtime::write_file_atomic(*target, content, runtime::durability::buffered); !st) return st;
  report.written.push_back(target->string());
  return status::ok();
}

} // namespace ad::agent_sim
