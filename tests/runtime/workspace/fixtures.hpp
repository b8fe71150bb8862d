#pragma once
// Paths of the workspace fixture folders (tests/fixtures/workspace/).
#include <filesystem>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

[[maybe_unused]] std::filesystem::path fixture(const std::filesystem::path& relative) {
  return test::source_dir() / "tests/fixtures/workspace" / relative;
}

} // namespace
} // namespace ad::runtime
