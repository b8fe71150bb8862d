#pragma once
// The file a node's keepers watch (ad-keeper --lease-file, docs/keeper.md):
// the node touches it at every renewal of its lease with the coordinator
// and removes it when it stops; a keeper stops its agent when the file is
// older than the lease or gone. Each node process has its own file
// (lease.<pid>), so the keepers of a node that was SIGKILLed fence even if
// a new node process starts at once. Error contract: status naming the
// file and the errno text.

#include <filesystem>

#include "runtime/core/status.hpp"

namespace ad::runtime {

std::filesystem::path node_lease_file(const std::filesystem::path& node_dir, int pid);

// Creates the file if needed and sets its modification time to now.
status touch_lease_file(const std::filesystem::path& file);

} // namespace ad::runtime
