#include "runtime/distributed/lease_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace ad::runtime {

std::filesystem::path node_lease_file(const std::filesystem::path& node_dir, int pid) {
  return node_dir / ("lease." + std::to_string(pid));
}

status touch_lease_file(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("lease file " + file.string(), errno);
  int rc = ::futimens(fd, nullptr);
  int err = errno;
  ::close(fd);
  if (rc != 0)
    return status::from_errno("lease file " + file.string(), err);
  return status::ok();
}

} // namespace ad::runtime
