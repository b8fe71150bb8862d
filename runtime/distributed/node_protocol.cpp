#include "runtime/distributed/node_protocol.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <tuple>
#include <unistd.h>

namespace ad::runtime {

namespace fs = std::filesystem;

std::string node_endpoint::text() const {
  if (host.find(':') != std::string::npos)
    return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

result<node_endpoint> parse_node_endpoint(std::string_view text, std::string_view what) {
  auto bad = [&](std::string why) {
    return status::invalid_argument(std::string(what) + ": '" + std::string(text) + "' " + why +
                                    " (expected HOST:PORT, e.g. 127.0.0.1:7300 or [::1]:7300)");
  };
  node_endpoint out;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return bad("has no closing ']:' after the address");
    out.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return bad("has no port");
    out.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (out.host.find(':') != std::string::npos)
      return bad("is an IPv6 address without brackets");
  }
  if (out.host.empty())
    return bad("has no host");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535)
    return bad("has no port between 1 and 65535");
  out.port = static_cast<uint16_t>(value);
  return out;
}

bool is_loopback_host(std::string_view host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

status check_node_listen(const node_endpoint& listen, bool has_certificates) {
  if (has_certificates || is_loopback_host(listen.host))
    return status::ok();
  return status::invalid_argument(
    "--listen " + listen.text() +
    ": listening beyond loopback needs mutual TLS; give --tls-cert, --tls-key and --tls-ca "
    "(docs/distributed.md shows how to make them)");
}

status check_protocol(int32_t coordinator_protocol, std::string_view node_name) {
  if (coordinator_protocol == node_protocol_version)
    return status::ok();
  return status::invalid_argument(
    "node " + std::string(node_name) + " speaks wire protocol " +
    std::to_string(node_protocol_version) + " and the coordinator " +
    std::to_string(coordinator_protocol) +
    ": run the same agent-dispatch version on the coordinator and every node");
}

status judge_shared_files(const shared_files& files, std::string_view node_name) {
  std::string node = "node " + std::string(node_name);
  std::error_code ec;
  if (!fs::is_directory(files.workspace, ec))
    return status::invalid_argument(node + " has no workspace at " + files.workspace +
                                    ": the workspace must be at the same path on every host "
                                    "(a shared file system)");
  if (!fs::is_directory(files.runs_dir, ec))
    return status::invalid_argument(node + " has no state folder at " + files.runs_dir +
                                    ": the coordinator's state root must be shared at the same "
                                    "path (it is inside .git for a git checkout, else under the same XDG_STATE_HOME)");
  std::ifstream in(files.probe_file, std::ios::binary);
  std::stringstream text;
  if (in)
    text << in.rdbuf();
  if (!in || text.str() != files.probe_token)
    return status::invalid_argument(node + " sees " + files.runs_dir +
                                    " but not the coordinator's copy of it (" +
                                    files.probe_file + " " +
                                    (in ? "differs" : "is missing") +
                                    "): share the folder, do not copy it");
  // Seen but read-only (a read-only export, or a node under systemd's
  // ProtectSystem=strict without the folder in ReadWritePaths=): refused
  // here rather than failing the first attempt.
  for (auto [what, dir, writer] :
       {std::tuple{"workspace", &files.workspace, "its agents write there"},
        std::tuple{"state folder", &files.runs_dir, "it writes its attempts' files there"}})
    if (::access(dir->c_str(), W_OK) != 0)
      return status::invalid_argument(node + " cannot write the " + what + " " + *dir + " (" +
                                      std::strerror(errno) + "): " + writer +
                                      "; a node run by systemd needs it in ReadWritePaths= "
                                      "(docs/packaging.md)");
  return status::ok();
}

} // namespace ad::runtime
