#include "runtime/report/board.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <vector>

#include "runtime/report/event_render.hpp"

namespace ad::runtime {
namespace {

constexpr std::array<std::string_view, 6> board_statuses = {
  task_status_running, task_status_pending, task_status_waiting,
  task_status_blocked, task_status_failed,  task_status_complete};

// The order the waits are listed in; other words follow, then "other".
constexpr std::array<std::string_view, 8> wait_order = {
  wait_quota_reset, wait_cool_down, wait_capacity, wait_claim,
  wait_dependency,  wait_pause,     wait_node,     wait_elsewhere};

std::string_view colour_of(std::string_view status) {
  if (status == task_status_running) return "\x1b[36m";   // cyan
  if (status == task_status_complete) return "\x1b[32m";  // green
  if (status == task_status_blocked || status == task_status_failed) return "\x1b[31m";  // red
  if (status == task_status_waiting) return "\x1b[33m";  // yellow
  return "";
}

constexpr std::string_view dim = "\x1b[2m";

std::string paint(std::string_view text, std::string_view colour, colour_mode mode) {
  if (mode == colour_mode::plain || colour.empty())
    return std::string(text);
  return std::string(colour) + std::string(text) + "\x1b[0m";
}

std::string pad(std::string text, size_t width) {
  auto w = display_width(text);
  if (w < width)
    text.append(width - w, ' ');
  return text;
}

} // namespace

std::string shell_word(const std::string& word) {
  bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("/._-+,:=@%").find(c) !=
                                                            std::string_view::npos;
  });
  if (safe)
    return word;
  std::string out = "'";
  for (char c : word)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

// A part of the board under a title: items of one or more lines each. Cut
// to a row budget, it keeps whole items and says how many it left out.
struct section {
  std::string title;
  std::vector<std::vector<std::string>> items;
  std::string more_word;  // "... and N more <more_word>"; empty: no such line
  size_t hidden = 0;      // items left out before any cut

  size_t rows() const {
    size_t n = items.empty() && hidden == 0 ? 0 : 1;
    for (const auto& i : items)
      n += i.size();
    return n + (hidden > 0 && !more_word.empty() ? 1 : 0);
  }

  // At most `budget` rows (none when not even the title and one row fit).
  std::vector<std::string> render(size_t budget) const {
    std::vector<std::string> out;
    if ((items.empty() && hidden == 0) || budget < 2)
      return out;
    out.push_back(title);
    bool all = rows() <= budget;
    size_t room = all || more_word.empty() ? budget - 1 : budget - 2;  // the "more" line
    size_t shown = 0;
    for (const auto& item : items) {
      if (item.size() > room)
        break;
      room -= item.size();
      out.insert(out.end(), item.begin(), item.end());
      ++shown;
    }
    size_t left_out = items.size() - shown + hidden;
    if (left_out > 0 && !more_word.empty())
      out.push_back("  ... and " + std::to_string(left_out) + " more " + more_word);
    return out;
  }
};

// `text` broken at spaces into lines of at most `columns` columns, every
// line after the first starting with `indent` (a word longer than a line
// stays whole; the frame cuts it). columns == 0: one line.
std::vector<std::string> wrap_words(const std::string& text, size_t columns,
                                    const std::string& indent) {
  if (columns == 0 || display_width(text) <= columns)
    return {text};
  auto first = text.find_first_not_of(' ');
  if (first == std::string::npos)
    return {text};
  std::vector<std::string> lines{text.substr(0, first)};  // its own indent
  bool fresh = true;  // nothing but the indent on the last line yet
  size_t start = first;
  for (;;) {
    auto space = text.find(' ', start);
    auto word = text.substr(start, space == std::string::npos ? std::string::npos : space - start);
    if (!word.empty()) {
      if (!fresh && display_width(lines.back()) + 1 + display_width(word) > columns) {
        lines.push_back(indent);
        fresh = true;
      }
      lines.back() += (fresh ? "" : " ") + word;
      fresh = false;
    }
    if (space == std::string::npos)
      break;
    start = space + 1;
  }
  return lines;
}

std::string task_group_of(const std::string& task) {
  auto slash = task.find('/');
  return slash == std::string::npos ? task : task.substr(0, slash);
}

} // namespace

colour_mode colour_mode_from_env(const char* no_color) {
  return (no_color != nullptr && *no_color != '\0') ? colour_mode::plain : colour_mode::ansi;
}

std::string format_elapsed(millis elapsed) {
  int64_t s = std::max<millis>(elapsed, 0) / 1000;
  auto two = [](int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); };
  if (s < 60)
    return std::to_string(s) + "s";
  if (s < 3600)
    return std::to_string(s / 60) + "m" + two(s % 60) + "s";
  return std::to_string(s / 3600) + "h" + two((s % 3600) / 60) + "m";
}

void run_board::set_status(const std::string& task, std::string_view status) {
  status_[task] = std::string(status);
  if (status != task_status_waiting)
    waits_.erase(task);
  if (status != task_status_blocked)
    blocked_.erase(task);
}

void run_board::apply(const run_event& e) {
  switch (e.kind) {
    case run_event_kind::tasks_scanned:
      for (const auto& t : e.tasks) {
        set_status(t.task, t.status.empty() ? task_status_pending : std::string_view(t.status));
        if (t.status == task_status_waiting)
          waits_[t.task] = board_wait{t.wait, t.reason, "", 0};
        else if (t.status == task_status_blocked)
          blocked_[t.task] = t.reason;
      }
      break;
    case run_event_kind::task_started: set_status(e.task, task_status_running); break;
    case run_event_kind::task_finished:
      set_status(e.task, e.outcome == "complete" ? task_status_complete : task_status_pending);
      break;
    case run_event_kind::task_failed: set_status(e.task, task_status_failed); break;
    case run_event_kind::task_blocked:
      set_status(e.task, task_status_blocked);
      blocked_[e.task] = e.reason;
      break;
    case run_event_kind::task_waiting:
    case run_event_kind::supervisor_wait:
      set_status(e.task, task_status_waiting);
      waits_[e.task] = board_wait{e.wait, e.reason, e.target, e.until};
      break;
    case run_event_kind::attempt_started:
      running_[e.identity] =
        board_attempt{e.task, e.role, e.target, e.node, e.attempt, e.time, e.locator, "", ""};
      set_status(e.task, task_status_running);
      break;
    case run_event_kind::attempt_finished:
      running_.erase(e.identity);
      spent_ += e.usage;
      break;
    case run_event_kind::summary:
      finished_ = true;
      summary_line_ = render_event_body(e);
      break;
    default: break;
  }
  if (e.kind == run_event_kind::tasks_scanned || e.kind == run_event_kind::summary)
    return;  // the counts and the summary line show them
  std::string line;
  if (e.kind == run_event_kind::node_status) {
    if (e.lease == lease_held)
      return;  // a node renewing its lease on time is no news
    line = "node " + e.node + ": lease " + e.lease + (e.lease == lease_lost ? " ended " : " ends ") +
           clock_text(e.until) + ", " + std::to_string(e.slots_in_use) + "/" +
           std::to_string(e.slots) + " slots in use";
    if (auto why = one_line(e.reason); !why.empty())
      line += ": " + why;
  } else {
    line = render_event_body(e);
  }
  recent_.emplace_back(e.time, std::move(line));
  while (recent_.size() > options_.recent_events)
    recent_.pop_front();
}

void run_board::set_live(const std::string& identity, const attempt_live& live) {
  auto it = running_.find(identity);
  if (it == running_.end())
    return;
  it->second.output = one_line(live.output);
  auto tokens = counted_tokens(live.usage);
  it->second.usage = tokens ? format_token_count(*tokens) + " tok" : "";
}

void run_board::note(millis time, const std::string& line) {
  recent_.emplace_back(time, one_line(line));
  while (recent_.size() > options_.recent_events)
    recent_.pop_front();
}

std::string run_board::clock_text(millis t) const {
  return format_local_clock(t, options_.utc_offset ? options_.utc_offset(t) : 0);
}

std::string retry_command_for(const std::string& prefix, const std::string& task) {
  if (prefix.empty())
    return "";
  return prefix + " --task-group " + shell_word(task_group_of(task));
}

std::string run_board::retry_command_for(const std::string& task) const {
  return runtime::retry_command_for(options_.retry_command, task);
}

std::string run_board::frame(millis now, colour_mode colours, terminal_size size) const {
  std::map<std::string, int64_t> counts;
  for (const auto& [task, status] : status_)
    ++counts[status];
  std::string head = "agent-dispatch: " + std::to_string(status_.size()) + " tasks";
  for (auto status : board_statuses) {
    auto it = counts.find(std::string(status));
    int64_t n = it == counts.end() ? 0 : it->second;
    head += "  " + paint(std::to_string(n) + " " + std::string(status), n ? colour_of(status) : "",
                         colours);
  }
  for (const auto& [status, n] : counts)  // statuses outside the standard set
    if (std::find(board_statuses.begin(), board_statuses.end(), status) == board_statuses.end())
      head += "  " + std::to_string(n) + " " + status;
  if (!spent_.empty())
    head += "  spent " + usage_summary(spent_);
  head += "  " + paint(clock_text(now), dim, colours);

  section running{paint("running:", dim, colours), {}, "running"};
  size_t task_width = 4;
  for (const auto& [id, a] : running_)
    task_width = std::max(task_width, display_width(a.task));
  for (const auto& [id, a] : running_) {
    if (running.items.size() == options_.max_attempt_rows)
      break;
    std::string row = "  " + pad(a.task, task_width) + "  " + pad(a.role, 9) + " " +
                      pad(a.target, 12) + " #" + std::to_string(a.attempt);
    if (!a.node.empty())
      row += " @" + a.node;
    row += "  " + clock_text(a.started) + " " + format_elapsed(now - a.started);
    if (!a.usage.empty())
      row += "  " + a.usage;
    if (!a.output.empty())
      row += "  " + paint(a.output, dim, colours);
    running.items.push_back({row});
  }
  running.hidden = running_.size() - running.items.size();

  section waiting{paint("waiting:", dim, colours), {}, "kinds of wait"};
  std::map<std::string, std::vector<std::string>> by_kind;  // kind -> "task[ until hh:mm:ss]"
  for (const auto& [task, w] : waits_) {
    std::string entry = task;
    if (w.until > 0)
      entry += " until " + clock_text(w.until);
    if (!w.target.empty())
      entry += " (" + w.target + ")";
    by_kind[w.kind.empty() ? "other" : w.kind].push_back(std::move(entry));
  }
  size_t kind_width = 0;
  for (const auto& [kind, tasks] : by_kind)
    kind_width = std::max(kind_width, kind.size());
  auto add_kind = [&](const std::string& kind) {
    auto it = by_kind.find(kind);
    if (it == by_kind.end())
      return;
    std::string row = "  " + pad(kind, kind_width) + " " + std::to_string(it->second.size()) + ": ";
    for (size_t i = 0; i < it->second.size(); ++i)
      row += (i ? ", " : "") + it->second[i];
    waiting.items.push_back({row});
    by_kind.erase(it);
  };
  for (auto kind : wait_order)
    add_kind(std::string(kind));
  while (!by_kind.empty())
    add_kind(by_kind.begin()->first);

  section blocked{paint("blocked:", dim, colours), {}, "blocked"};
  for (const auto& [task, reason] : blocked_) {
    std::vector<std::string> item{"  " + task + (reason.empty() ? "" : ": " + one_line(reason))};
    if (auto retry = retry_command_for(task); !retry.empty())
      for (auto& line : wrap_words("    retry: " + retry, size.columns, "      "))
        item.push_back(std::move(line));
    blocked.items.push_back(std::move(item));
  }

  section recent{paint("recent:", dim, colours), {}, ""};
  // Newest last; a cut keeps the newest, so the list is built newest first.
  for (auto it = recent_.rbegin(); it != recent_.rend(); ++it)
    recent.items.push_back({"  " + clock_text(it->first) + " " + it->second});

  // Rows: the count line and the summary always; then running attempts,
  // blocked tasks, waits and recent events while the terminal has room.
  size_t budget = size.rows > 1 ? size.rows - 1 : SIZE_MAX;
  size_t fixed = 1 + (finished_ ? 1 : 0);
  budget = budget > fixed ? budget - fixed : 0;
  std::vector<std::string> lines{head};
  auto take = [&](const section& s) {
    auto part = s.render(budget);
    budget -= part.size();
    return part;
  };
  auto run_part = take(running);
  auto blocked_part = take(blocked);
  auto waiting_part = take(waiting);
  auto recent_part = take(recent);
  if (!recent_part.empty())
    std::reverse(recent_part.begin() + 1, recent_part.end());
  for (auto* part : {&run_part, &waiting_part, &blocked_part, &recent_part})
    lines.insert(lines.end(), part->begin(), part->end());
  if (finished_)
    lines.push_back(summary_line_);

  std::string out;
  for (const auto& line : lines)
    out += fit_width(line, size.columns) + '\n';
  return out;
}

std::string redraw(const std::string& frame, size_t previous_rows, bool clear_above) {
  std::string out;
  if (previous_rows > 0)
    out += "\r\x1b[" + std::to_string(previous_rows) + "A";
  // From the screen's top to the frame's first column: rows the terminal
  // brought back from its history when it grew taller land above the frame.
  if (clear_above)
    out += "\x1b[1J";
  // Each line is cleared as it is written over, and what is left below the
  // new frame after it: clearing from the frame's top at once would, at the
  // top left of a screen, scroll the old frame into the history (tmux's
  // scroll-on-clear).
  size_t start = 0;
  for (auto nl = frame.find('\n'); nl != std::string::npos; nl = frame.find('\n', start)) {
    out += "\x1b[2K";
    out.append(frame, start, nl + 1 - start);
    start = nl + 1;
  }
  out += "\x1b[J";
  return out;
}

std::string board_screen::replace(const std::string& frame, terminal_size size) {
  auto out = redraw(frame, drawn_ ? frame_rows(previous_, size.columns) : 0,
                    drawn_ && size != size_);
  previous_ = frame;
  size_ = size;
  drawn_ = true;
  return out;
}

} // namespace ad::runtime
