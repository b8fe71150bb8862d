#include "runtime/report/board.hpp"

#include <algorithm>
#include <array>

#include "runtime/report/event_render.hpp"

namespace ad::runtime {
namespace {

constexpr std::array<std::string_view, 6> board_statuses = {
  task_status_running, task_status_pending, task_status_waiting,
  task_status_blocked, task_status_failed,  task_status_complete};

std::string_view colour_of(std::string_view status) {
  if (status == task_status_running) return "\x1b[36m";   // cyan
  if (status == task_status_complete) return "\x1b[32m";  // green
  if (status == task_status_blocked || status == task_status_failed) return "\x1b[31m";  // red
  if (status == task_status_waiting) return "\x1b[33m";  // yellow
  return "";
}

std::string paint(std::string_view text, std::string_view colour, colour_mode mode) {
  if (mode == colour_mode::plain || colour.empty())
    return std::string(text);
  return std::string(colour) + std::string(text) + "\x1b[0m";
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
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

void run_board::apply(const run_event& e) {
  switch (e.kind) {
    case run_event_kind::tasks_scanned:
      for (const auto& t : e.tasks)
        status_[t.task] = t.status.empty() ? std::string(task_status_pending) : t.status;
      break;
    case run_event_kind::task_started: status_[e.task] = task_status_running; break;
    case run_event_kind::task_finished:
      status_[e.task] = e.outcome == "complete" ? task_status_complete : task_status_pending;
      break;
    case run_event_kind::task_failed: status_[e.task] = task_status_failed; break;
    case run_event_kind::task_blocked: status_[e.task] = task_status_blocked; break;
    case run_event_kind::task_waiting: status_[e.task] = task_status_waiting; break;
    case run_event_kind::attempt_started:
      running_[e.identity] = board_attempt{e.task, e.role, e.target, e.attempt, e.time};
      status_[e.task] = task_status_running;
      break;
    case run_event_kind::attempt_finished:
      running_.erase(e.identity);
      spent_ += e.usage;
      break;
    case run_event_kind::summary: {
      finished_ = true;
      auto line = render_event_line(e);
      summary_line_ = line.substr(0, line.size() - 1);
      break;
    }
    default: break;
  }
  if (e.kind == run_event_kind::tasks_scanned || e.kind == run_event_kind::summary)
    return;  // the counts and the summary line show them
  auto line = render_event_line(e);
  recent_.push_back(line.substr(0, line.size() - 1));
  while (recent_.size() > options_.recent_events)
    recent_.pop_front();
}

std::string run_board::frame(millis now, colour_mode colours) const {
  std::map<std::string, int64_t> counts;
  for (const auto& [task, status] : status_)
    ++counts[status];
  std::string out = "agent-dispatch: " + std::to_string(status_.size()) + " tasks";
  for (auto status : board_statuses) {
    auto it = counts.find(std::string(status));
    int64_t n = it == counts.end() ? 0 : it->second;
    out += "  " + paint(std::to_string(n) + " " + std::string(status), n ? colour_of(status) : "",
                        colours);
  }
  for (const auto& [status, n] : counts)  // statuses outside the standard set
    if (std::find(board_statuses.begin(), board_statuses.end(), status) == board_statuses.end())
      out += "  " + std::to_string(n) + " " + status;
  if (!spent_.empty())
    out += "  spent " + usage_summary(spent_);
  out += '\n';

  size_t width = 4;
  for (const auto& [id, a] : running_)
    width = std::max(width, a.task.size());
  size_t shown = 0;
  for (const auto& [id, a] : running_) {
    if (shown == options_.max_attempt_rows)
      break;
    ++shown;
    out += "  " + pad(a.task, width) + "  " + pad(a.role, 9) + " " + pad(a.target, 12) + " #" +
           std::to_string(a.attempt) + "  " + format_elapsed(now - a.started) + '\n';
  }
  if (running_.size() > shown)
    out += "  ... and " + std::to_string(running_.size() - shown) + " more running\n";
  if (!recent_.empty()) {
    out += paint("recent:", "\x1b[2m", colours) + '\n';
    for (const auto& line : recent_)
      out += "  " + line + '\n';
  }
  if (finished_)
    out += summary_line_ + '\n';
  return out;
}

std::string redraw(const std::string& frame, size_t previous_lines) {
  std::string out;
  if (previous_lines > 0)
    out += "\r\x1b[" + std::to_string(previous_lines) + "A";
  out += "\x1b[J";
  out += frame;
  return out;
}

size_t frame_lines(const std::string& frame) {
  return static_cast<size_t>(std::count(frame.begin(), frame.end(), '\n'));
}

} // namespace ad::runtime
