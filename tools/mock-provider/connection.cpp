#include "tools/mock-provider/connection.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace ad::mock_provider {
namespace {

bool same_endpoint(const sockaddr_storage& a, const std::string& addr, int port) {
  char text[INET6_ADDRSTRLEN] = {0};
  int p = -1;
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    p = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    p = ntohs(v6.sin6_port);
  } else {
    return false;
  }
  return p == port && (addr.empty() || addr == text);
}

int port_of(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
  return -1;
}

int find_socket(int local_port, const std::string& remote_addr, int remote_port) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    char* end = nullptr;
    auto name = entry.path().filename().string();
    long fd = std::strtol(name.c_str(), &end, 10);
    if (end == name.c_str() || *end != '\0') continue;
    sockaddr_storage local{}, peer{};
    socklen_t len = sizeof local;
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &len) != 0)
      continue;
    if (port_of(local) != local_port) continue;
    len = sizeof peer;
    if (getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &len) != 0)
      continue;
    if (same_endpoint(peer, remote_addr, remote_port)) return static_cast<int>(fd);
  }
  return -1;
}

int dev_null() {
  static const int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  return fd;
}

} // namespace

bool end_connection(int local_port, const std::string& remote_addr, int remote_port,
                    close_mode mode) {
  int fd = find_socket(local_port, remote_addr, remote_port);
  if (fd < 0) return false;
  if (mode == close_mode::fin) return shutdown(fd, SHUT_RDWR) == 0;
  linger l{};
  l.l_onoff = 1;
  l.l_linger = 0;
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  int null_fd = dev_null();
  if (null_fd < 0) return shutdown(fd, SHUT_RDWR) == 0;
  // dup2 closes the socket (a reset, with linger 0) and leaves fd open.
  return dup2(null_fd, fd) == fd;
}

} // namespace ad::mock_provider
