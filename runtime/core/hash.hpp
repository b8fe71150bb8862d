#pragma once
// SHA-256 digests (OpenSSL's libcrypto) for workspace identities and write-set
// snapshots, and the lower-case hex form they and other binary values are
// written in. Pure functions; hashing a file returns not_found or io_error
// naming the path when it cannot be read.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// Two lower-case hex digits per byte.
std::string hex_encode(std::string_view bytes);
// The bytes of hex_encode's text; nullopt for an odd length or a character
// that is not a lower-case hex digit.
std::optional<std::string> hex_decode(std::string_view text);

// Lower-case hex SHA-256 of data (64 characters).
std::string sha256_hex(std::string_view data);

// Lower-case hex SHA-256 of a file's content, streamed in blocks.
result<std::string> sha256_file_hex(const std::filesystem::path& path);

} // namespace ad::runtime
