#include "runtime/attempt/attempt_files.hpp"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <vector>
#include <unistd.h>

#include "runtime/agents/terminal_diagnostics.hpp"
#include "runtime/core/files.hpp"

namespace ad::runtime {

std::filesystem::path tail_segment(const std::filesystem::path& path, int age) {
  return path.string() + std::string(retained_tail_suffix) + (age == 0 ? "" : ".1");
}

line_file::line_file(line_file&& other) noexcept { *this = std::move(other); }

line_file& line_file::operator=(line_file&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    if (segment_fd_ >= 0)
      ::close(segment_fd_);
    fd_ = std::exchange(other.fd_, -1);
    segment_fd_ = std::exchange(other.segment_fd_, -1);
    path_ = std::move(other.path_);
    keep_ = other.keep_;
    head_written_ = other.head_written_;
    segment_bytes_ = other.segment_bytes_;
    segment_lines_ = other.segment_lines_;
    older_bytes_ = other.older_bytes_;
    older_lines_ = other.older_lines_;
    cut_bytes_ = other.cut_bytes_;
    cut_lines_ = other.cut_lines_;
  }
  return *this;
}

line_file::~line_file() {
  if (fd_ >= 0)
    ::close(fd_);
  if (segment_fd_ >= 0)
    ::close(segment_fd_);
}

result<line_file> line_file::create(const std::filesystem::path& path, line_retention keep) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("create " + path.string(), errno);
  line_file f;
  f.fd_ = fd;
  f.path_ = path;
  f.keep_ = keep;
  return f;
}

result<line_file> line_file::append_to(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("open " + path.string(), errno);
  line_file f;
  f.fd_ = fd;
  f.path_ = path;
  return f;
}

status line_file::open_segment() {
  auto seg = tail_segment(path_, 0);
  segment_fd_ = ::open(seg.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (segment_fd_ < 0)
    return status::from_errno("create " + seg.string(), errno);
  segment_bytes_ = 0;
  segment_lines_ = 0;
  return status::ok();
}

status line_file::append_line(std::string_view text) {
  if (fd_ < 0)
    return status::io_error("append to closed file " + path_.string());
  buffer_.assign(text);
  buffer_.push_back('\n');
  uint64_t size = buffer_.size();
  if (keep_.head_bytes == 0 || (segment_fd_ < 0 && head_written_ + size <= keep_.head_bytes)) {
    head_written_ += size;
    return write_all(fd_, buffer_, "append to " + path_.string());
  }
  if (segment_fd_ < 0) {
    std::string mark = "[agent-dispatch: the first " + std::to_string(head_written_) +
                       " bytes of this log end here; of the rest the newest " +
                       std::to_string(keep_.tail_bytes) +
                       " bytes are kept, and a line says what was cut]\n";
    if (auto st = write_all(fd_, mark, "append to " + path_.string()); !st)
      return st;
    if (auto st = open_segment(); !st)
      return st;
  }
  if (segment_bytes_ > 0 && segment_bytes_ + size > keep_.tail_bytes / 2) {
    // The newest segment is full: it becomes the older one, whose lines go.
    ::close(segment_fd_);
    segment_fd_ = -1;
    std::error_code ec;
    std::filesystem::rename(tail_segment(path_, 0), tail_segment(path_, 1), ec);
    if (ec)
      return status::io_error("rotate " + tail_segment(path_, 0).string() + ": " + ec.message());
    cut_bytes_ += older_bytes_;
    cut_lines_ += older_lines_;
    older_bytes_ = segment_bytes_;
    older_lines_ = segment_lines_;
    if (auto st = open_segment(); !st)
      return st;
  }
  segment_bytes_ += size;
  ++segment_lines_;
  return write_all(segment_fd_, buffer_, "append to " + tail_segment(path_, 0).string());
}

status line_file::seal() {
  if (fd_ < 0 || segment_fd_ < 0)
    return status::ok();
  ::close(segment_fd_);
  segment_fd_ = -1;
  if (cut_lines_ > 0) {
    std::string mark = "[agent-dispatch: " + std::to_string(cut_lines_) + " lines (" +
                       std::to_string(cut_bytes_) + " bytes) cut here]\n";
    if (auto st = write_all(fd_, mark, "append to " + path_.string()); !st)
      return st;
  }
  std::vector<char> chunk(64 << 10);
  for (int age : {1, 0}) {
    auto seg = tail_segment(path_, age);
    int in = ::open(seg.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
      continue; // no older segment yet
    for (;;) {
      auto n = ::read(in, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      if (auto st = write_all(fd_, std::string_view(chunk.data(), static_cast<std::size_t>(n)), "append to " + path_.string());
          !st) {
        ::close(in);
        return st;
      }
    }
    ::close(in);
    std::error_code ec;
    std::filesystem::remove(seg, ec);
  }
  return status::ok();
}

std::string random_uuid() {
  std::random_device rd;
  std::uniform_int_distribution<int> byte(0, 255);
  unsigned char b[16];
  for (auto& x : b)
    x = static_cast<unsigned char>(byte(rd));
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof(out),
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

std::string log_tail(const std::filesystem::path& path, std::size_t max_bytes,
                     std::size_t max_chars) {
  std::error_code ec;
  std::string text;
  if (std::filesystem::exists(tail_segment(path, 0), ec)) {
    // A retained file whose attempt has not ended: the newest lines are in
    // its segments.
    for (int age : {0, 1}) {
      if (text.size() >= max_bytes)
        break;
      auto part = read_file_tail(tail_segment(path, age), max_bytes - text.size());
      if (part)
        text.insert(0, *part);
    }
  } else {
    auto tail = read_file_tail(path, max_bytes);
    if (!tail)
      return {};
    text = std::move(*tail);
  }
  if (text.size() > max_chars)
    text.erase(0, text.size() - max_chars);
  return text;
}

} // namespace ad::runtime
