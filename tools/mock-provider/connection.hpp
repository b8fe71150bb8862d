#pragma once
// Ends one accepted TCP connection of this process from inside a request
// handler, without the HTTP server's cooperation: cpp-httplib 0.11 offers no
// way to leave a request unanswered or to cut a chunked body, so the socket
// is found by its two ports among this process's descriptors. `fin` shuts it
// down (the peer reads EOF); `reset` sets SO_LINGER 0 and replaces the
// descriptor with /dev/null, which closes the socket with a TCP reset while
// the server thread keeps a valid descriptor to close later. Call only from
// the thread serving that connection. Returns false when no such socket is
// open (nothing is changed then).

#include <string>

#include "tools/mock-provider/script.hpp"

namespace ad::mock_provider {

bool end_connection(int local_port, const std::string& remote_addr, int remote_port,
                    close_mode mode);

} // namespace ad::mock_provider
