#include "runtime/distributed/lease.hpp"

#include <algorithm>
#include <string>

namespace ad::runtime {

int64_t renew_interval_ms(const lease_terms& terms) noexcept {
  return std::max<int64_t>(50, terms.lease_ms / 4);
}

bool lease_expired(int64_t last_renewed, int64_t now, int64_t lease_ms) noexcept {
  return now - last_renewed > lease_ms;
}

int64_t replacement_allowed_at(int64_t last_heard, const lease_terms& terms) noexcept {
  return last_heard + terms.lease_ms + terms.margin_ms;
}

status check_lease_terms(const lease_terms& terms, int64_t grace_ms) {
  if (terms.lease_ms < 1000)
    return status::invalid_argument("--lease-ms: a lease shorter than 1000 ms (" +
                                    std::to_string(terms.lease_ms) +
                                    ") would stop agents on every scheduling hiccup");
  int64_t keeper_check = std::min<int64_t>(1000, terms.lease_ms / 4);
  int64_t least = keeper_check + std::max<int64_t>(grace_ms, 0) + renew_interval_ms(terms);
  if (terms.margin_ms < least)
    return status::invalid_argument(
      "--lease-margin-ms: " + std::to_string(terms.margin_ms) +
      " ms does not cover the keeper's check interval, its stop grace and one renewal; use at "
      "least " + std::to_string(least) + " ms");
  return status::ok();
}

} // namespace ad::runtime
