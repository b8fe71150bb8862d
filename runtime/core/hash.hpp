#pragma once
// SHA-256 digests (OpenSSL's libcrypto) for workspace identities and write-set
// snapshots. Pure functions; hashing a file returns not_found or io_error
// naming the path when it cannot be read.

#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// Lower-case hex SHA-256 of data (64 characters).
std::string sha256_hex(std::string_view data);

// Lower-case hex SHA-256 of a file's content, streamed in blocks.
result<std::string> sha256_file_hex(const std::filesystem::path& path);

} // namespace ad::runtime
