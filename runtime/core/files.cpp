#include "runtime/core/files.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/core/unique_fd.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;


status write_all(int fd, std::string_view data, std::string_view what) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return status::from_errno(what, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return status::ok();
}

std::string_view describe_file_kind(unsigned mode) {
  if (S_ISREG(mode))
    return "a regular file";
  if (S_ISLNK(mode))
    return "a symbolic link";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

namespace {

// open_regular_file, with the file's stat for the caller. With a folder's
// descriptor as `at`, path's file name is opened in that folder.
result<int> open_regular(int at, const fs::path& path, struct stat& st) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer. It stays set: it
  // changes nothing for a regular file (read and write never block on one).
  fs::path leaf;
  const char* name = path.c_str();
  if (at != AT_FDCWD) {
    leaf = path.filename();
    name = leaf.c_str();
  }
  unique_fd fd(::openat(at, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0)
    return status::from_errno("open " + path.string(), errno);
  if (::fstat(fd.get(), &st) != 0)
    return status::from_errno("stat " + path.string(), errno);
  if (!S_ISREG(st.st_mode))
    return status::invalid_argument(path.string() + " is " + std::string(describe_file_kind(st.st_mode))
                                    + ", expected a regular file");
  return fd.release();
}

} // namespace

result<int> open_regular_file(const fs::path& path) {
  struct stat st {};
  return open_regular(AT_FDCWD, path, st);
}

result<std::string> read_file(const fs::path& path, std::size_t max_bytes) {
  return read_file_at(AT_FDCWD, path, max_bytes);
}

result<std::string> read_file_at(int folder_fd, const fs::path& path, std::size_t max_bytes) {
  struct stat st {};
  auto opened = open_regular(folder_fd, path, st);
  if (!opened)
    return opened.error();
  unique_fd fd(*opened);
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    return status::invalid_argument(path.string() + " is " + std::to_string(st.st_size)
                                    + " bytes, more than the limit of "
                                    + std::to_string(max_bytes) + " bytes");
  // Read straight into the result. A regular file whose size is known ends
  // where a read comes back short at or past that size, so a small file
  // takes one read; a file that reports no size (those of /proc) or grows
  // is read until a read returns nothing.
  // One byte past the stated size lets that read come back short; a file
  // that states no size starts with a page.
  const auto stated = static_cast<std::size_t>(st.st_size);
  std::string out(std::min(stated > 0 ? stated + 1 : 4096, max_bytes + 1), '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got > max_bytes)
        return status::invalid_argument(path.string() + " grew past the limit of "
                                        + std::to_string(max_bytes) + " bytes while reading");
      out.resize(std::min(out.size() * 2, max_bytes + 1));
    }
    const std::size_t asked = out.size() - got;
    ssize_t n = ::read(fd.get(), out.data() + got, asked);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return status::from_errno("read " + path.string(), errno);
    }
    if (n == 0)
      break;
    got += static_cast<std::size_t>(n);
    if (stated > 0 && got >= stated && static_cast<std::size_t>(n) < asked)
      break;
  }
  if (got > max_bytes)
    return status::invalid_argument(path.string() + " grew past the limit of "
                                    + std::to_string(max_bytes) + " bytes while reading");
  out.resize(got);
  return out;
}

result<std::string> read_listed_file_at(int folder_fd, const fs::path& path,
                                        std::size_t max_bytes) {
  {
    fs::path leaf = folder_fd == AT_FDCWD ? path : path.filename();
    unique_fd fd(::openat(folder_fd, leaf.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
    if (fd.get() >= 0) {
      // A read of a regular file comes back short only at its end.
      char buffer[8192];
      ssize_t n;
      do {
        n = ::read(fd.get(), buffer, sizeof buffer);
      } while (n < 0 && errno == EINTR);
      if (n > 0 && static_cast<std::size_t>(n) < sizeof buffer &&
          static_cast<std::size_t>(n) <= max_bytes)
        return std::string(buffer, static_cast<std::size_t>(n));
    }
  }
  return read_file_at(folder_fd, path, max_bytes);
}

status fsync_directory(const fs::path& dir) {
  unique_fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0)
    return status::from_errno("open directory " + dir.string(), errno);
  if (::fsync(fd.get()) != 0)
    return status::from_errno("fsync directory " + dir.string(), errno);
  return status::ok();
}

status make_directories(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return status::io_error("create directory " + dir.string() + ": " + ec.message());
  return status::ok();
}

status write_file_atomic(const fs::path& path, std::string_view data, durability mode) {
  return write_file_atomic_in_parts(
    path, [&](const part_writer& write) { return write(data); }, mode);
}

status write_file_atomic_in_parts(const fs::path& path,
                                  const std::function<status(const part_writer&)>& produce,
                                  durability mode) {
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  auto fail = [&](status st) {
    ::unlink(tmp.c_str());
    return st;
  };
  unique_fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0)
    return status::from_errno("create " + tmp.string(), errno);
  std::string what = "write " + tmp.string();
  if (auto st = produce([&](std::string_view part) { return write_all(fd.get(), part, what); });
      !st)
    return fail(st);
  if (mode == durability::synced && ::fsync(fd.get()) != 0)
    return fail(status::from_errno("fsync " + tmp.string(), errno));
  if (::close(fd.release()) != 0)
    return fail(status::from_errno("close " + tmp.string(), errno));
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(status::from_errno("rename " + tmp.string() + " to " + path.string(), errno));
  if (mode == durability::synced) {
    auto parent = path.parent_path();
    return fsync_directory(parent.empty() ? fs::path(".") : parent);
  }
  return status::ok();
}

} // namespace ad::runtime
