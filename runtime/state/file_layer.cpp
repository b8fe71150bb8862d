#include "runtime/state/file_layer.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include "runtime/core/files.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

class posix_append_file final : public append_file {
public:
  posix_append_file(int fd, fs::path path) : fd_(fd), path_(std::move(path)) {}
  ~posix_append_file() override { ::close(fd_); }

  status append(std::string_view data) override {
    while (!data.empty()) {
      ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR)
          continue;
        return status::from_errno("append to " + path_.string(), errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return status::ok();
  }

  status sync() override {
    if (::fdatasync(fd_) != 0)
      return status::from_errno("fdatasync " + path_.string(), errno);
    return status::ok();
  }

  status truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0)
      return status::from_errno("truncate " + path_.string(), errno);
    if (::fsync(fd_) != 0)
      return status::from_errno("fsync " + path_.string(), errno);
    return status::ok();
  }

private:
  int fd_;
  fs::path path_;
};

class posix_overwrite_file final : public overwrite_file {
public:
  posix_overwrite_file(int fd, fs::path path) : fd_(fd), path_(std::move(path)) {}
  ~posix_overwrite_file() override { ::close(fd_); }

  status write(std::string_view data) override {
    ssize_t n;
    do {
      n = ::pwrite(fd_, data.data(), data.size(), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
      return status::from_errno("write " + path_.string(), errno);
    if (static_cast<size_t>(n) != data.size())
      return status::io_error("write " + path_.string() + ": short write of "
                              + std::to_string(n) + " of " + std::to_string(data.size())
                              + " bytes");
    return status::ok();
  }

  status sync() override {
    if (::fdatasync(fd_) != 0)
      return status::from_errno("fdatasync " + path_.string(), errno);
    return status::ok();
  }

private:
  int fd_;
  fs::path path_;
};

class posix_layer final : public state_file_layer {
public:
  result<std::string> read(const fs::path& path) override {
    return read_file(path, 1u << 30);
  }
  result<file_text> read_replaced(const fs::path& path) override {
    return file_text::map(path, 1u << 30);
  }

  result<std::unique_ptr<append_file>> open_append(const fs::path& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
      return status::from_errno("open " + path.string() + " for appending", errno);
    return std::unique_ptr<append_file>(std::make_unique<posix_append_file>(fd, path));
  }

  result<std::unique_ptr<overwrite_file>> open_overwrite(const fs::path& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      return status::from_errno("open " + path.string() + " for writing", errno);
    return std::unique_ptr<overwrite_file>(std::make_unique<posix_overwrite_file>(fd, path));
  }

  status replace(const fs::path& path, std::string_view data) override {
    return write_file_atomic(path, data, durability::synced);
  }

  status replace_in_parts(const fs::path& path,
                          const std::function<status(const part_writer&)>& produce) override {
    return write_file_atomic_in_parts(path, produce, durability::synced);
  }

  status make_dirs(const fs::path& dir) override { return make_directories(dir); }
};

} // namespace

std::shared_ptr<state_file_layer> posix_file_layer() { return std::make_shared<posix_layer>(); }

} // namespace ad::runtime
