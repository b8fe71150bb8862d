#include "tools/cli/distributed_setup.hpp"

#include <chrono>
#include <fstream>

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include "runtime/distributed/node_setup.hpp"

namespace ad::cli {

runtime::status tls_files::check() const {
  if (!given())
    return runtime::status::ok();
  for (auto [option, file] : {std::pair{"--tls-cert", &cert}, std::pair{"--tls-key", &key},
                              std::pair{"--tls-ca", &ca}}) {
    if (file->empty())
      return runtime::status::invalid_argument(
        std::string(option) + " is missing: mutual TLS needs --tls-cert, --tls-key and --tls-ca");
    if (!std::ifstream(*file))
      return runtime::status::invalid_argument(std::string(option) + " " + *file +
                                               ": cannot be read");
  }
  return runtime::status::ok();
}

void add_tls_options(CLI::App& cmd, tls_files& files) {
  cmd.add_option("--tls-cert", files.cert, "this host's certificate (PEM), signed by the CA");
  cmd.add_option("--tls-key", files.key, "the private key of --tls-cert (PEM)");
  cmd.add_option("--tls-ca", files.ca,
                 "the CA (PEM) that must have signed the peer's certificate (mutual TLS)");
}

void configure_middleman(caf::actor_system_config& cfg, int64_t lease_ms, const tls_files& tls) {
  cfg.load<caf::io::middleman>();
  if (tls.given()) {
    cfg.load<caf::openssl::manager>();
    cfg.openssl_certificate = tls.cert;
    cfg.openssl_key = tls.key;
    cfg.openssl_cafile = tls.ca;
  }
  auto t = runtime::middleman_timing_for(lease_ms);
  cfg.set("middleman.heartbeat-interval",
          caf::timespan{std::chrono::milliseconds(t.heartbeat_ms)});
  cfg.set("middleman.connection-timeout",
          caf::timespan{std::chrono::milliseconds(t.connection_timeout_ms)});
}

} // namespace ad::cli
