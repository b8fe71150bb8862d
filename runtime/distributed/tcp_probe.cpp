#include "runtime/distributed/tcp_probe.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <netdb.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace ad::runtime {

namespace {

status connect_one(const addrinfo& ai, const std::string& where, int64_t timeout_ms) {
  int fd = ::socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0)
    return status::from_errno(where, errno);
  std::unique_ptr<int, void (*)(int*)> guard(&fd, [](int* f) { ::close(*f); });
  if (::connect(fd, ai.ai_addr, ai.ai_addrlen) == 0)
    return status::ok();
  if (errno != EINPROGRESS)
    return status::from_errno(where, errno);
  pollfd p{fd, POLLOUT, 0};
  int n = ::poll(&p, 1, static_cast<int>(timeout_ms));
  if (n == 0)
    return status::io_error(where + ": no answer within " + std::to_string(timeout_ms) + " ms");
  if (n < 0)
    return status::from_errno(where, errno);
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0)
    return status::from_errno(where, err);
  return status::ok();
}

} // namespace

status probe_tcp(const node_endpoint& endpoint, int64_t timeout_ms) {
  std::string where = "node " + endpoint.text();
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto port = std::to_string(endpoint.port);
  if (int rc = ::getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return status::io_error(where + ": " + ::gai_strerror(rc));
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> list(found, ::freeaddrinfo);
  status last = status::io_error(where + ": no address");
  for (auto* ai = found; ai != nullptr; ai = ai->ai_next) {
    last = connect_one(*ai, where, timeout_ms);
    if (last.is_ok())
      return last;
  }
  return last;
}

} // namespace ad::runtime
