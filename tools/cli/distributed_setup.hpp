#pragma once
// What `node` and `run --node` set up alike for CAF's middleman: the
// heartbeat and connection timeout derived from the lease
// (runtime::middleman_timing_for, the same on both sides), and mutual TLS
// through CAF's openssl module when certificate, key and CA are given.

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>
#include <caf/actor_system_config.hpp>

#include "runtime/core/status.hpp"

namespace ad::cli {

struct tls_files {
  std::string cert, key, ca;
  bool given() const { return !cert.empty() || !key.empty() || !ca.empty(); }
  // All three or none, each a readable file.
  runtime::status check() const;
};

void add_tls_options(CLI::App& cmd, tls_files& files);

void configure_middleman(caf::actor_system_config& cfg, int64_t lease_ms, const tls_files& tls);

} // namespace ad::cli
