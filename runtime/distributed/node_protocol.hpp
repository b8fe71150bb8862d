#pragma once
// What a coordinator and a node agree on before any attempt (docs/
// distributed.md): the wire protocol's version, the node's address, that a
// node beyond loopback listens only with certificates, and that the node
// sees the coordinator's workspace and state folders at the same paths on
// the same (shared) file system. Pure functions except judge_shared_files,
// which reads the files it is told of. Error contract: status or result
// whose message says what differs and what to do; nothing throws except
// std::bad_alloc.

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// Raised whenever a message between coordinator and node changes.
inline constexpr int32_t node_protocol_version = 2;

struct node_endpoint {
  std::string host;
  uint16_t port = 0;
  std::string text() const;  // host:port, [v6]:port
  friend bool operator==(const node_endpoint&, const node_endpoint&) = default;
};

// "HOST:PORT" or "[V6]:PORT"; what names the option in the error.
result<node_endpoint> parse_node_endpoint(std::string_view text, std::string_view what);

// localhost, 127.0.0.0/8 and ::1.
bool is_loopback_host(std::string_view host);

// A node may listen beyond loopback only with certificate, key and CA.
status check_node_listen(const node_endpoint& listen, bool has_certificates);

status check_protocol(int32_t coordinator_protocol, std::string_view node_name);

// What the coordinator tells a node of its files, and the node's check
// of them: the workspace and the runs folder exist here at these paths,
// probe_file (which the coordinator wrote into the runs folder) holds
// probe_token, so both see the same file system, not two copies, and the
// node may write both folders.
struct shared_files {
  std::string workspace;
  std::string runs_dir;
  std::string probe_file;
  std::string probe_token;
};

status judge_shared_files(const shared_files& files, std::string_view node_name);

} // namespace ad::runtime
