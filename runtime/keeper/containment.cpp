#include "runtime/keeper/containment.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "runtime/core/files.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

const char* to_string(containment_kind k) noexcept {
  return k == containment_kind::cgroup ? "cgroup" : "subreaper";
}

result<containment_kind> parse_containment_kind(std::string_view text) {
  if (text == "cgroup")
    return containment_kind::cgroup;
  if (text == "subreaper")
    return containment_kind::subreaper;
  return status::invalid_argument("unknown containment '" + std::string(text) +
                                  "' (expected cgroup or subreaper)");
}

namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    auto at = text.find(sep);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return out;
    text.remove_prefix(at + 1);
  }
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_octal(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      auto digits = s.substr(i + 1, 3);
      int v = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 8);
      if (ec == std::errc() && end == digits.data() + digits.size()) {
        out += static_cast<char>(v);
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

std::optional<uint64_t> number_of(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.remove_suffix(1);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return v;
}

status write_text(const fs::path& file, std::string_view text) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return status::from_errno("open " + file.string(), errno);
  ssize_t n = ::write(fd, text.data(), text.size());
  int e = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    return status::from_errno("write " + file.string(), n < 0 ? e : EIO);
  return status::ok();
}

} // namespace

std::optional<fs::path> cgroup2_mount_of(std::string_view mountinfo) {
  for (std::string_view line : split(mountinfo, '\n')) {
    auto dash = line.find(" - ");
    if (dash == std::string_view::npos)
      continue;
    auto after = split(line.substr(dash + 3), ' ');
    if (after.empty() || after[0] != "cgroup2")
      continue;
    auto before = split(line.substr(0, dash), ' ');
    if (before.size() < 6)
      continue;
    // Mounted read-only: nothing can be created in it.
    auto options = split(before[5], ',');
    if (std::find(options.begin(), options.end(), "ro") != options.end())
      continue;
    std::string root = unescape_octal(before[3]);
    fs::path mount = unescape_octal(before[4]);
    // A mount of a part of the hierarchy (root other than "/") is not
    // where this process's cgroup path starts: not used.
    if (root != "/")
      continue;
    return mount;
  }
  return std::nullopt;
}

std::optional<std::string> cgroup2_path_of(std::string_view proc_self_cgroup) {
  for (std::string_view line : split(proc_self_cgroup, '\n'))
    if (line.starts_with("0::/"))
      return std::string(line.substr(3));
  return std::nullopt;
}

std::string attempt_cgroup_name(std::string_view marker) {
  std::string out = "agent-dispatch-";
  for (char c : marker.substr(0, 185)) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
    out += plain ? c : '_';
  }
  return out;
}

bool kept_alive_by_name(std::string_view comm, std::string_view argv0,
                        const std::vector<std::string>& keep_alive) {
  std::string_view base = argv0.substr(argv0.rfind('/') == std::string_view::npos ? 0 : argv0.rfind('/') + 1);
  for (const auto& name : keep_alive)
    if (!name.empty() && (name == comm || name == base))
      return true;
  return false;
}

std::optional<uint64_t> cpu_usec_of(std::string_view cpu_stat) {
  for (std::string_view line : split(cpu_stat, '\n'))
    if (line.starts_with("usage_usec "))
      return number_of(line.substr(11));
  return std::nullopt;
}

result<fs::path> writable_cgroup2_parent(const fs::path& proc_self) {
  auto mountinfo = read_file(proc_self / "mountinfo", 16u << 20);
  if (!mountinfo)
    return status::not_found("cannot read " + (proc_self / "mountinfo").string());
  auto mount = cgroup2_mount_of(*mountinfo);
  if (!mount)
    return status::not_found("no cgroup v2 hierarchy is mounted read-write");
  auto own_text = read_file(proc_self / "cgroup", 1 << 20);
  auto own = own_text ? cgroup2_path_of(*own_text) : std::nullopt;
  if (!own)
    return status::not_found("this process has no cgroup in the v2 hierarchy at " + mount->string());
  fs::path dir = (*mount / fs::path(*own).relative_path()).lexically_normal();
  if (::access(dir.c_str(), W_OK) != 0 || ::access((dir / "cgroup.procs").c_str(), W_OK) != 0)
    return status::not_found("the cgroup " + dir.string() + " is not writable: " + std::strerror(errno));
  return dir;
}

result<fs::path> create_cgroup(const fs::path& parent, std::string_view name) {
  fs::path dir = parent / std::string(name);
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return status::from_errno("create the cgroup " + dir.string(), errno);
  if (::access((dir / "cgroup.procs").c_str(), W_OK) != 0)
    return status::from_errno(dir.string() + " is not a cgroup one can join", errno);
  return dir;
}

std::vector<int> cgroup_members(const fs::path& cgroup) {
  std::vector<int> out;
  auto text = read_file(cgroup / "cgroup.procs", 16u << 20);
  if (!text)
    return out;
  for (std::string_view line : split(*text, '\n'))
    if (auto pid = number_of(line))
      out.push_back(static_cast<int>(*pid));
  return out;
}

bool cgroup_populated(const fs::path& cgroup) {
  auto text = read_file(cgroup / "cgroup.events", 1 << 16);
  if (!text)
    return false;
  for (std::string_view line : split(*text, '\n'))
    if (line.starts_with("populated "))
      return line.substr(10) == "1";
  return false;
}

status kill_cgroup(const fs::path& cgroup) {
  if (write_text(cgroup / "cgroup.kill", "1"))
    return status::ok();
  // Before Linux 5.14: each member in turn (what forks meanwhile is found
  // at the caller's next look).
  auto members = cgroup_members(cgroup);
  if (members.empty() && !fs::exists(cgroup / "cgroup.procs"))
    return status::not_found("no cgroup " + cgroup.string());
  for (int pid : members)
    ::kill(pid, SIGKILL);
  return status::ok();
}

cgroup_usage read_cgroup_usage(const fs::path& cgroup) {
  cgroup_usage out;
  if (auto text = read_file(cgroup / "cpu.stat", 1 << 16))
    out.cpu_usec = cpu_usec_of(*text);
  if (auto text = read_file(cgroup / "memory.peak", 1 << 16))
    out.memory_peak_bytes = number_of(*text);
  return out;
}

status remove_cgroup(const fs::path& cgroup) {
  if (::rmdir(cgroup.c_str()) != 0 && errno != ENOENT)
    return status::from_errno("remove the cgroup " + cgroup.string(), errno);
  return status::ok();
}

} // namespace ad::runtime
