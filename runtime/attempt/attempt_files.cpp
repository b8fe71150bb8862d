#include "runtime/attempt/attempt_files.hpp"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <unistd.h>

#include "runtime/agents/terminal_diagnostics.hpp"

namespace ad::runtime {

line_file::line_file(line_file&& other) noexcept
  : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

line_file& line_file::operator=(line_file&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

line_file::~line_file() {
  if (fd_ >= 0)
    ::close(fd_);
}

result<line_file> line_file::create(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("create " + path.string(), errno);
  line_file f;
  f.fd_ = fd;
  f.path_ = path;
  return f;
}

status line_file::append_line(std::string_view text) {
  if (fd_ < 0)
    return status::io_error("append to closed file " + path_.string());
  buffer_.assign(text);
  buffer_.push_back('\n');
  std::string_view rest = buffer_;
  while (!rest.empty()) {
    auto n = ::write(fd_, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return status::from_errno("append to " + path_.string(), errno);
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
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
  auto tail = read_file_tail(path, max_bytes);
  if (!tail)
    return {};
  std::string text = std::move(*tail);
  if (text.size() > max_chars)
    text.erase(0, text.size() - max_chars);
  return text;
}

} // namespace ad::runtime
