#include "runtime/keeper/spool_scan.hpp"

#include <cerrno>
#include <unistd.h>

namespace ad::runtime {

result<std::size_t> read_spool_at(int fd, uint64_t offset, char* buf, std::size_t n,
                                  const std::filesystem::path& where) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, buf + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return status::from_errno("read " + where.string(), errno);
    }
    if (r == 0)
      break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

} // namespace ad::runtime
