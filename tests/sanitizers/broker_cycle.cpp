// The exit-time leaks CAF 0.17.6 leaves at random
// (tools/sanitizers/lsan_suppressions.cpp), made certain.
// Without arguments: the BASP broker keeps one reference more than anyone
// holds when the actor system is destroyed. With "tls": a TLS session made
// by CAF's openssl module is never freed (a connection object of that
// module with nothing pointing to it, as a coordinator leaves it).
// Either must exit 0: the suppressions cover what CAF allocated and what
// hangs from it. With "own" the program also leaks an array of its own,
// which LeakSanitizer must still report.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>
#include <caf/openssl/session.hpp>
#include <sys/socket.h>
#include <iostream>
#include <string_view>
#include <thread>

namespace {
// An argument, as everywhere here: CAF's spawn(fun) without one trips
// UBSan in init_fun_factory.hpp.
caf::behavior echo(caf::event_based_actor*, int step) {
  return {[step](int x) { return x + step; }};
}

// The broker with a connection, so it holds a peer, a proxy and their
// maps, kept alive by one reference nobody releases.
int leak_broker(caf::actor_system& sys) {
  auto server = sys.spawn(echo, 1);
  auto port = sys.middleman().publish(server, 0, "127.0.0.1");
  if (!port) {
    std::cerr << "publish: " << sys.render(port.error()) << "\n";
    return 2;
  }
  auto peer = sys.middleman().remote_actor("127.0.0.1", *port);
  if (!peer) {
    std::cerr << "remote_actor: " << sys.render(peer.error()) << "\n";
    return 2;
  }
  auto broker = caf::actor_cast<caf::strong_actor_ptr>(
    sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP")));
  intrusive_ptr_add_ref(broker.get());
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
  return 0;
}

// Both ends of a TLS session over a socket pair (anonymous: no
// certificates configured), the connecting end never freed.
int leak_tls_session(caf::actor_system& sys) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
    std::cerr << "socketpair failed\n";
    return 2;
  }
  caf::openssl::session_ptr accepted;
  std::thread acceptor([&] { accepted = caf::openssl::make_session(sys, fds[1], true); });
  auto connected = caf::openssl::make_session(sys, fds[0], false);
  acceptor.join();
  if (!connected || !accepted) {
    std::cerr << "TLS handshake over a socket pair failed\n";
    return 2;
  }
  static_cast<void>(connected.release());
  return 0;
}
} // namespace

int main(int argc, char** argv) {
  std::string_view mode = argc > 1 ? argv[1] : "";
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  if (mode == "tls")
    cfg.load<caf::openssl::manager>();
  caf::actor_system sys{cfg};
  int rc = mode == "tls" ? leak_tls_session(sys) : leak_broker(sys);
  if (mode == "own") {
    volatile int* mine = new int[7];
    mine[0] = 1;
  }
  return rc;
}
