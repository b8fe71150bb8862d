// keeper-test-agent: a tiny scripted agent for the ad-keeper tests and
// bench. Each argument is one step, run in order:
//   out:TEXT err:TEXT    a line on stdout / stderr     raw:TEXT  stdout, no '\n'
//   lines:N              N numbered stdout lines       long:N    one line of N 'x'
//   mb:N[:LEN]           N MB of numbered stdout lines of LEN bytes (default
//                        100, at least 11), as fast as possible
//   every:MS:N           N numbered lines, MS ms apart sleep:MS
//   ignore-term          ignore SIGTERM from now on
//   grandchild:FILE      fork a child that ignores SIGTERM, holds the pipes,
//                        writes its pid to FILE and sleeps 60 s
//   orphan:MS            fork a child in its own session that holds stdout,
//                        sleeps MS ms, then writes "orphan-done"
//   pidfile:FILE touch:FILE   write our pid to FILE / create FILE
//   env:NAME cwd         print NAME=<value> / the working directory
//   exit:N kill:SIG      exit with N / raise signal SIG
// Ends with exit 0 after the last step.

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace {

void write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n <= 0)
      std::_Exit(100);
    s.remove_prefix(static_cast<std::size_t>(n));
  }
}

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (::nanosleep(&ts, &ts) != 0) {
  }
}

void write_pid(const std::string& file, pid_t pid) {
  std::string tmp = file + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  write_all(fd, std::to_string(pid));
  ::close(fd);
  ::rename(tmp.c_str(), file.c_str());
}

void numbered_mb(long mb, long length) {
  // "%09ld " + 'a's + '\n', written 64 KiB at a time.
  length = std::max(length, 11L);
  std::string buf;
  long lines = mb * 1000000 / length;
  char head[32];
  for (long i = 0; i < lines; ++i) {
    std::snprintf(head, sizeof head, "%09ld ", i);
    buf += head;
    buf.append(static_cast<std::size_t>(length - 11), 'a');
    buf += '\n';
    if (buf.size() >= (64 << 10)) {
      write_all(1, buf);
      buf.clear();
    }
  }
  write_all(1, buf);
}

} // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string step = argv[i];
    auto colon = step.find(':');
    std::string verb = step.substr(0, colon);
    std::string arg = colon == std::string::npos ? "" : step.substr(colon + 1);
    if (verb == "out" || verb == "err") {
      write_all(verb == "out" ? 1 : 2, arg + "\n");
    } else if (verb == "raw") {
      write_all(1, arg);
    } else if (verb == "lines") {
      std::string buf;
      for (long n = 0, end = std::atol(arg.c_str()); n < end; ++n)
        buf += "line-" + std::to_string(n) + "\n";
      write_all(1, buf);
    } else if (verb == "long") {
      write_all(1, std::string(static_cast<std::size_t>(std::atol(arg.c_str())), 'x') + "\n");
    } else if (verb == "mb") {
      auto colon2 = arg.find(':');
      numbered_mb(std::atol(arg.c_str()), colon2 == std::string::npos ? 100 : std::atol(arg.c_str() + colon2 + 1));
    } else if (verb == "every") {
      long ms = std::atol(arg.c_str());
      long n = std::atol(arg.substr(arg.find(':') + 1).c_str());
      for (long k = 0; k < n; ++k) {
        write_all(1, "tick-" + std::to_string(k) + "\n");
        sleep_ms(ms);
      }
    } else if (verb == "sleep") {
      sleep_ms(std::atol(arg.c_str()));
    } else if (verb == "ignore-term") {
      std::signal(SIGTERM, SIG_IGN);
    } else if (verb == "grandchild") {
      pid_t pid = ::fork();
      if (pid == 0) {
        std::signal(SIGTERM, SIG_IGN);
        write_pid(arg, ::getpid());
        sleep_ms(60000);
        std::_Exit(0);
      }
      while (::access(arg.c_str(), F_OK) != 0)
        sleep_ms(5);
    } else if (verb == "orphan") {
      if (::fork() == 0) {
        ::setsid();
        sleep_ms(std::atol(arg.c_str()));
        write_all(1, "orphan-done\n");
        std::_Exit(0);
      }
    } else if (verb == "pidfile") {
      write_pid(arg, ::getpid());
    } else if (verb == "touch") {
      ::close(::open(arg.c_str(), O_WRONLY | O_CREAT, 0644));
    } else if (verb == "env") {
      const char* v = std::getenv(arg.c_str());
      write_all(1, arg + "=" + (v ? v : "<unset>") + "\n");
    } else if (verb == "cwd") {
      char buf[4096];
      write_all(1, std::string(::getcwd(buf, sizeof buf) ? buf : "?") + "\n");
    } else if (verb == "exit") {
      return std::atoi(arg.c_str());
    } else if (verb == "kill") {
      std::signal(std::atoi(arg.c_str()), SIG_DFL);
      ::raise(std::atoi(arg.c_str()));
      sleep_ms(1000);
    } else {
      write_all(2, "keeper-test-agent: unknown step " + step + "\n");
      return 99;
    }
  }
  return 0;
}
