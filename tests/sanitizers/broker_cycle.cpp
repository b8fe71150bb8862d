// The exit-time leak CAF 0.17.6 leaves at random
// (tools/sanitizers/lsan_suppressions.cpp), made certain: the BASP broker
// keeps one reference more than anyone holds when the actor system is
// destroyed.
// Run without arguments it must exit 0 (the suppression covers the broker
// and what hangs from it); with "own" it also leaks an array of its own,
// which LeakSanitizer must still report.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <iostream>
#include <string_view>

namespace {
// An argument, as everywhere here: CAF's spawn(fun) without one trips
// UBSan in init_fun_factory.hpp.
caf::behavior echo(caf::event_based_actor*, int step) {
  return {[step](int x) { return x + step; }};
}
} // namespace

int main(int argc, char** argv) {
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  caf::actor_system sys{cfg};
  auto server = sys.spawn(echo, 1);
  auto port = sys.middleman().publish(server, 0, "127.0.0.1");
  if (!port) {
    std::cerr << "publish: " << sys.render(port.error()) << "\n";
    return 2;
  }
  // A connection, so the broker holds a peer, a proxy and their maps.
  auto peer = sys.middleman().remote_actor("127.0.0.1", *port);
  if (!peer) {
    std::cerr << "remote_actor: " << sys.render(peer.error()) << "\n";
    return 2;
  }
  auto broker = caf::actor_cast<caf::strong_actor_ptr>(
    sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP")));
  intrusive_ptr_add_ref(broker.get());
  if (argc > 1 && std::string_view(argv[1]) == "own") {
    volatile int* mine = new int[7];
    mine[0] = 1;
  }
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
  return 0;
}
