#pragma once
// A file descriptor that closes itself: owned by one object, moved, never
// copied. -1 is "none".

#include <unistd.h>
#include <utility>

namespace ad::runtime {

class unique_fd {
public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {}
  ~unique_fd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0)
        ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;

  int get() const { return fd_; }
  // Hands the descriptor to the caller, who closes it.
  int release() { return std::exchange(fd_, -1); }

private:
  int fd_ = -1;
};

} // namespace ad::runtime
