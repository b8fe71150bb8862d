// What LeakSanitizer must not report; linked into sanitized builds only
// (AD_SANITIZE), by agent-dispatch and tests/sanitizers (one strong
// definition per executable overrides the sanitizer runtime's weak one).
//
// CAF 0.17.6's BASP broker (the middleman's connection handler) is at
// times still alive, referenced only from memory it owns, when the actor
// system has been destroyed. Seen here on a coordinator and on a node
// exiting with open connections, at random and more often under load (a
// few exits in a hundred in the distributed tests): the broker,
// its connection maps and a pending heartbeat tick (a delayed message from
// the broker to itself, sender included), 2-7 KB, all CAF's own memory,
// which the process's exit frees.
// LeakSanitizer ignores the broker and everything reachable only from it;
// a leak of anything else is still reported (tests/sanitizers).
//
// With TLS (caf::openssl) the same exit leaves, at random, a connection
// object of CAF's openssl module with nothing pointing to it: 344 bytes
// allocated by libcaf_openssl (a scribe with its stream) and the OpenSSL
// session hanging from it, about 75 KB. Seen on a coordinator exiting 0
// after a partitioned node came back (about one exit in two under load).
// The allocating function has no symbol and the unwinder stops in the
// library, so only the module can name it: any allocation made by
// libcaf_openssl itself is ignored, with what is reachable only from it.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:caf::io::basp_broker\n"
         "leak:libcaf_openssl.so\n";
}
