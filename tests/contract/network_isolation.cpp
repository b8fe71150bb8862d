// Before any contract test runs, this process moves into a network
// namespace of its own in which only loopback is up, so neither the mock
// provider nor a CLI (both children) can reach anything beyond 127.0.0.1,
// whatever a CLI tries on its own. As root a plain network namespace is
// used; otherwise a user namespace that maps the current user onto itself.
// When neither is allowed the tests still run, with every CLI configured for
// loopback only and all proxy variables on a closed port (cli-env.sh), and
// a warning says so.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace ad::contract {
namespace {

bool write_proc(const char* path, const std::string& text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

bool loopback_up() {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  bool ok = ::ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  ok = ok && ::ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
  ::close(s);
  return ok;
}

class loopback_only : public ::testing::Environment {
public:
  void SetUp() override {
    if (::unshare(CLONE_NEWNET) != 0) {
      uid_t uid = ::getuid();
      gid_t gid = ::getgid();
      if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        std::fprintf(stderr,
                     "contract tests: no network namespace (%s); the CLIs are configured "
                     "for loopback only, but nothing enforces it\n",
                     std::strerror(errno));
        return;
      }
      write_proc("/proc/self/setgroups", "deny");
      write_proc("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1");
      write_proc("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1");
    }
    if (!loopback_up())
      std::fprintf(stderr, "contract tests: cannot bring loopback up in the namespace: %s\n",
                   std::strerror(errno));
  }
};

[[maybe_unused]] const auto* registered = ::testing::AddGlobalTestEnvironment(new loopback_only);

} // namespace
} // namespace ad::contract
