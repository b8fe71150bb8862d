#pragma once
// The PLAN identity header and the work unit id (SPEC section 2). A PLAN names
// its task, plan number and tag in an HTML comment within its first 1024 bytes:
//   <!-- task=<task name> plan=<N> tag=<tag> -->
// The work unit id `<task>::plan-<N>::tag-<tag>` keys every per-plan state
// (budgets, decisions); a changed header is a new work unit. Pure functions;
// read_plan_header_file reads at most the first 1024 bytes of a file and
// returns not_found / io_error statuses naming the path.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

inline constexpr std::size_t plan_header_window = 1024;

struct plan_header {
  std::string task;  // task name as written, e.g. "auth/02+01_api"
  std::string plan;  // decimal digits as written
  std::string tag;

  // "<task>::plan-<N>::tag-<tag>"
  std::string work_unit_id() const;
  friend bool operator==(const plan_header&, const plan_header&) = default;
};

// Finds the first well-formed header that starts within the first 1024 bytes
// of text. Fields are separated by whitespace; the tag ends at whitespace or
// at the closing `-->`.
std::optional<plan_header> parse_plan_header(std::string_view text);

// Reads the first 1024 bytes of a file and parses its header: a value, or
// std::nullopt when the file has none. Errors: not_found, io_error.
result<std::optional<plan_header>> read_plan_header_file(const std::filesystem::path& path);

// A key that changes exactly when a file's plan identity changes: "meta:" and
// a digest of the header when it has one, else the digest of the whole file
// (so a header-less file changes identity with its content). "none" when the
// file cannot be read.
std::string plan_identity_key(const std::filesystem::path& path);
// The same key for a file already read: its header (parse_plan_header of
// `text`) and its whole text.
std::string plan_identity_key_of(const std::optional<plan_header>& header, std::string_view text);

} // namespace ad::runtime
