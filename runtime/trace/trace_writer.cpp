#include "runtime/trace/trace_writer.hpp"

#include <map>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace ad::runtime {

result<std::shared_ptr<trace_writer>> trace_writer::open(const std::filesystem::path& file,
                                                         const trace_header& header,
                                                         trace_paths paths,
                                                         std::size_t flush_bytes) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("trace: cannot create " + file.string(), errno);
  std::shared_ptr<trace_writer> w(new trace_writer(fd, file.string(), std::move(paths), flush_bytes));
  trace_header h = header;
  h.policy = w->paths_.relativize(h.policy);
  h.policy_sha256 = trace_policy_hash(h.policy);
  h.options = w->paths_.relativize(h.options);
  std::lock_guard<std::mutex> lock(w->mu_);
  w->buffer_ = dump_json(to_json(h));
  w->buffer_.push_back('\n');
  w->write_buffer_locked();
  if (!w->error_.is_ok())
    return w->error_;
  return w;
}

std::shared_ptr<trace_writer> trace_writer::in_memory(trace_paths paths) {
  std::shared_ptr<trace_writer> w(new trace_writer(-1, "(memory)", std::move(paths), 0));
  w->in_memory_ = true;
  return w;
}

trace_writer::trace_writer(int fd, std::string file, trace_paths paths, std::size_t flush_bytes)
    : fd_(fd), file_(std::move(file)), paths_(std::move(paths)), flush_bytes_(flush_bytes) {}

trace_writer::~trace_writer() {
  (void)stop();
}

int64_t trace_writer::edge(std::string_view kind, const json& body) {
  return append(trace_direction::edge, kind, 0, body);
}

int64_t trace_writer::decision(std::string_view kind, int64_t cause, const json& body) {
  return append(trace_direction::decision, kind, cause, body);
}

int64_t trace_writer::append(trace_direction dir, std::string_view kind, int64_t cause,
                             const json& body) {
  // The expensive part (path mapping, serialization) runs outside the lock.
  trace_record r;
  r.dir = dir;
  r.kind = std::string(kind);
  r.cause = cause;
  r.body = paths_.relativize(body);
  std::lock_guard<std::mutex> lock(mu_);
  return append_locked(std::move(r));
}

int64_t trace_writer::append_locked(trace_record r) {
  if (in_memory_) {
    r.seq = ++seq_;
    if (r.dir == trace_direction::edge)
      ++kept_edges_;
    kept_.push_back(std::move(r));
    return seq_;
  }
  if (fd_ < 0 || !error_.is_ok())
    return 0;
  r.seq = ++seq_;
  buffer_ += dump_json(to_json(r));
  buffer_.push_back('\n');
  if (buffer_.size() >= flush_bytes_)
    write_buffer_locked();
  return r.seq;
}

void trace_writer::write_buffer_locked() {
  std::size_t done = 0;
  while (done < buffer_.size() && error_.is_ok()) {
    auto n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      error_ = status::from_errno("trace: write to " + file_, errno);
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

int64_t trace_writer::edge_and_decision(std::string_view edge_kind, const json& edge_body,
                                        std::string_view decision_kind,
                                        const json& decision_body) {
  trace_record e;
  e.dir = trace_direction::edge;
  e.kind = std::string(edge_kind);
  e.body = paths_.relativize(edge_body);
  trace_record d;
  d.dir = trace_direction::decision;
  d.kind = std::string(decision_kind);
  d.body = paths_.relativize(decision_body);
  std::lock_guard<std::mutex> lock(mu_);
  auto seq = append_locked(std::move(e));
  if (seq == 0)
    return 0;
  d.cause = seq;
  append_locked(std::move(d));
  return seq;
}

status trace_writer::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  in_memory_ = false;
  if (fd_ < 0)
    return error_;
  write_buffer_locked();
  if (::close(fd_) != 0 && error_.is_ok())
    error_ = status::from_errno("trace: close " + file_, errno);
  fd_ = -1;
  return error_;
}

std::vector<trace_record> trace_writer::kept_records() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_;
}

std::size_t trace_writer::kept_edges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_edges_;
}

int64_t trace_writer::records() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seq_;
}

} // namespace ad::runtime
