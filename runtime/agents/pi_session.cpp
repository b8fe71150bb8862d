#include "runtime/agents/pi_session.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/agents/json_fields.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/unique_fd.hpp"

namespace ad::runtime {

namespace {

using agent_json::member;

pi_session_state make(pi_phase phase, std::string reason) {
  pi_session_state s;
  s.phase = phase;
  s.reason = std::move(reason);
  return s;
}

pi_session_state unknown(std::string reason) { return make(pi_phase::unknown, std::move(reason)); }

// Reads exactly [offset, offset+len) unless the file is shorter; false on error.
bool read_at(int fd, off_t offset, size_t len, std::string& out, pi_read_stats& stats) {
  out.resize(len);
  size_t got = 0;
  while (got < len) {
    ssize_t n = ::pread(fd, out.data() + got, len - got, offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  stats.bytes_read += got;
  return true;
}

// Yields the lines of [begin, end) of a file from the last to the first,
// reading fixed-size blocks backwards.
class reverse_lines {
public:
  enum class outcome : uint8_t { line, done, io_error, too_large };

  reverse_lines(int fd, off_t begin, off_t end, const pi_read_options& options,
                pi_read_stats& stats)
      : fd_(fd), begin_(begin), pos_(end), options_(options), stats_(stats) {}

  outcome next(std::string& line) {
    for (;;) {
      if (cur_end_ > 0) {
        std::string_view data(block_.data(), cur_end_);
        size_t nl = data.rfind('\n');
        if (nl != std::string_view::npos) {
          line.assign(data.substr(nl + 1));
          join_into(line);
          cur_end_ = nl;
          if (line.size() > options_.max_entry_bytes)
            return outcome::too_large;
          return outcome::line;
        }
        pieces_size_ += data.size();
        pieces_.emplace_back(data);
        cur_end_ = 0;
        if (pieces_size_ > options_.max_entry_bytes)
          return outcome::too_large;
      }
      if (pos_ <= begin_) {
        if (pieces_.empty())
          return outcome::done;
        line.clear();
        join_into(line);
        return outcome::line;
      }
      size_t n = static_cast<size_t>(std::min<off_t>(pos_ - begin_,
                                                     static_cast<off_t>(options_.block_size)));
      pos_ -= static_cast<off_t>(n);
      if (!read_at(fd_, pos_, n, block_, stats_) || block_.size() != n)
        return outcome::io_error;
      cur_end_ = n;
    }
  }

private:
  // line holds the earliest piece; later pieces were collected first.
  void join_into(std::string& line) {
    if (pieces_.empty())
      return;
    for (auto it = pieces_.rbegin(); it != pieces_.rend(); ++it)
      line += *it;
    pieces_.clear();
    pieces_size_ = 0;
  }

  int fd_;
  off_t begin_;
  off_t pos_;
  const pi_read_options& options_;
  pi_read_stats& stats_;
  std::string block_;
  size_t cur_end_ = 0;
  std::vector<std::string> pieces_; // later → earlier
  size_t pieces_size_ = 0;
};

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The header line's end offset (just past its newline, or the file size when
// it has none) and its verdict; nullopt verdict means the header is valid.
struct header_check {
  off_t end = 0;
  std::optional<pi_session_state> failure;
};

header_check check_header(int fd, off_t size, const pi_read_options& options,
                          pi_read_stats& stats) {
  header_check out;
  std::string text;
  size_t want = std::min<size_t>(static_cast<size_t>(size), options.max_header_bytes);
  size_t step = std::min(want, options.block_size);
  size_t nl = std::string::npos;
  while (true) {
    std::string chunk;
    if (!read_at(fd, static_cast<off_t>(text.size()), step, chunk, stats)) {
      out.failure = unknown("unreadable-jsonl");
      return out;
    }
    size_t old = text.size();
    text += chunk;
    nl = text.find('\n', old);
    if (nl != std::string::npos || chunk.empty() || text.size() >= want)
      break;
    step = std::min(options.block_size, want - text.size());
  }
  if (nl == std::string::npos && static_cast<off_t>(text.size()) < size) {
    out.failure = unknown("session-header-invalid");
    return out;
  }
  std::string_view line = nl == std::string::npos ? std::string_view(text)
                                                  : std::string_view(text).substr(0, nl);
  out.end = nl == std::string::npos ? size : static_cast<off_t>(nl + 1);
  if (blank(line)) {
    out.failure = unknown("session-header-invalid");
    return out;
  }
  auto header = parse_json(line, "pi session header");
  if (!header) {
    out.failure = unknown("session-header-invalid");
    return out;
  }
  if (!header->is_object() || agent_json::str(*header, "type") != "session") {
    out.failure = unknown("session-header-invalid");
    return out;
  }
  const json* version = member(*header, "version");
  if (version == nullptr || !version->is_number_integer()) {
    out.failure = unknown("session-header-invalid");
    return out;
  }
  if (version->get<int64_t>() != pi_session_schema_version) {
    out.failure = unknown("unsupported-session-version:" + std::to_string(version->get<int64_t>()));
    return out;
  }
  return out;
}

// The walk over the active branch, newest entry first.
class branch_walk {
public:
  // A decided state, or nullopt to keep reading.
  std::optional<pi_session_state> feed(const json& value) {
    if (!value.is_object())
      return unknown("invalid-entry-schema");
    const json* id = member(value, "id");
    const json* parent = member(value, "parentId");
    if (id == nullptr || !id->is_string() || id->get_ref<const std::string&>().empty()
        || parent == nullptr || !(parent->is_null() || parent->is_string()))
      return unknown("invalid-entry-identity");
    const std::string& entry_id = id->get_ref<const std::string&>();
    if (leaf_found_ && (!expected_ || entry_id != *expected_))
      return std::nullopt; // another branch
    leaf_found_ = true;
    if (parent->is_null())
      expected_.reset();
    else
      expected_ = parent->get<std::string>();
    if (agent_json::str(value, "type") != "message")
      return std::nullopt;
    const json* message = member(value, "message");
    if (message == nullptr || !message->is_object())
      return unknown("invalid-message-schema");
    const json* role_value = member(*message, "role");
    std::string role = role_value && role_value->is_string() ? role_value->get<std::string>()
                       : role_value && !role_value->is_null() ? role_value->dump()
                                                              : std::string("None");
    if (role == "toolResult")
      return tool_result(*message);
    if (role == "user") {
      if (!completed_.empty())
        return unknown("tool-results-without-assistant");
      return make(pi_phase::awaiting_model, "user-message");
    }
    if (role != "assistant")
      return unknown("unsupported-message-role:" + role);
    return assistant(*message);
  }

  pi_session_state at_header() const {
    if (!completed_.empty())
      return unknown("tool-results-without-assistant");
    if (leaf_found_ && expected_)
      return unknown("active-branch-parent-missing");
    return make(pi_phase::starting, "no-message-events");
  }

private:
  std::optional<pi_session_state> tool_result(const json& message) {
    const json* id = member(message, "toolCallId");
    if (id == nullptr || !id->is_string() || id->get_ref<const std::string&>().empty())
      return unknown("tool-result-id-missing");
    const std::string& call = id->get_ref<const std::string&>();
    if (contains(completed_, call))
      return unknown("duplicate-tool-result-id");
    completed_.push_back(call);
    return std::nullopt;
  }

  pi_session_state assistant(const json& message) {
    const json* content = member(message, "content");
    if (content == nullptr || !content->is_array())
      return unknown("assistant-content-not-list");
    std::vector<std::string> expected;
    bool any_call = false;
    for (const auto& block : *content) {
      std::string_view type = agent_json::str(block, "type");
      if (!block.is_object() || (type != "text" && type != "thinking" && type != "toolCall"))
        return unknown("unsupported-assistant-content");
    }
    for (const auto& block : *content) {
      if (agent_json::str(block, "type") != "toolCall")
        continue;
      any_call = true;
      const json* id = member(block, "id");
      if (id == nullptr || !id->is_string() || id->get_ref<const std::string&>().empty())
        return unknown("tool-call-id-missing");
      const std::string& call = id->get_ref<const std::string&>();
      if (contains(expected, call))
        return unknown("duplicate-tool-call-id");
      expected.push_back(call);
    }
    if (!any_call) {
      if (!completed_.empty())
        return unknown("tool-results-without-tool-calls");
      return make(pi_phase::finishing, "assistant-final");
    }
    for (const auto& done : completed_)
      if (!contains(expected, done))
        return unknown("tool-result-id-not-in-latest-batch");
    pi_session_state s;
    for (const auto& call : expected)
      (contains(completed_, call) ? s.completed_tool_call_ids : s.pending_tool_call_ids)
        .push_back(call);
    s.expected_tool_call_ids = std::move(expected);
    bool pending = !s.pending_tool_call_ids.empty();
    s.phase = pending ? pi_phase::tool_running : pi_phase::awaiting_model;
    s.reason = pending ? "pending-tool-results" : "all-tool-results-recorded";
    return s;
  }

  bool leaf_found_ = false;
  std::optional<std::string> expected_; // the parent id the branch continues with
  std::vector<std::string> completed_;  // toolResult ids seen after the assistant
};

} // namespace

std::string_view to_string(pi_phase phase) {
  switch (phase) {
    case pi_phase::starting:
      return "starting";
    case pi_phase::awaiting_model:
      return "awaiting-model";
    case pi_phase::tool_running:
      return "tool-running";
    case pi_phase::finishing:
      return "finishing";
    case pi_phase::unknown:
      return "unknown";
  }
  return "unknown";
}

pi_session_state read_pi_session_state(const std::filesystem::path& path, pi_read_stats* stats,
                                       const pi_read_options& options_in) {
  pi_read_stats local;
  pi_read_stats& st = stats ? *stats : local;
  st = {};
  pi_read_options options = options_in;
  if (options.block_size == 0)
    options.block_size = 64 * 1024;
  if (path.empty())
    return make(pi_phase::starting, "native-session-path-missing");
  // O_NONBLOCK: a FIFO in its place must not block the watcher.
  int raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (raw_fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return make(pi_phase::starting, "native-session-file-missing");
    return unknown("unreadable-jsonl");
  }
  unique_fd fd(raw_fd);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0)
    return unknown("unreadable-jsonl");
  if (!S_ISREG(info.st_mode))
    return make(pi_phase::starting, "native-session-file-missing");
  off_t size = info.st_size;
  if (size == 0)
    return unknown("session-header-invalid");

  header_check header = check_header(fd.get(), size, options, st);
  if (header.failure)
    return *header.failure;

  // Whether the file ends with a newline decides if its last line is complete.
  bool last_terminated = true;
  if (size > header.end) {
    std::string last;
    if (!read_at(fd.get(), size - 1, 1, last, st) || last.size() != 1)
      return unknown("unreadable-jsonl");
    last_terminated = last[0] == '\n';
  }

  reverse_lines lines(fd.get(), header.end, size, options, st);
  branch_walk walk;
  std::string line;
  bool first = true;
  for (;;) {
    auto got = lines.next(line);
    if (got == reverse_lines::outcome::done)
      break;
    if (got == reverse_lines::outcome::io_error)
      return unknown("unreadable-jsonl");
    if (got == reverse_lines::outcome::too_large)
      return unknown("entry-too-large");
    bool unterminated = first && !last_terminated;
    first = false;
    if (blank(line))
      continue;
    auto value = parse_json(line, "pi session entry");
    if (!value) {
      if (unterminated)
        continue; // still being written
      return unknown("unreadable-jsonl");
    }
    ++st.entries_examined;
    if (value->is_object() && agent_json::str(*value, "type") == "session")
      break;
    if (auto decided = walk.feed(*value))
      return *decided;
  }
  return walk.at_header();
}

} // namespace ad::runtime
