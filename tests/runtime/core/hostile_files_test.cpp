// Reads of hostile inputs end at once with a clear error: a FIFO or a device
// in place of a file, and JSON nested deep enough to exhaust a stack.
#include <chrono>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/core/files.hpp"
#include "runtime/core/hash.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

using namespace std::chrono_literals;

TEST(hostile_files, a_fifo_or_a_device_is_refused_without_blocking) {
  test::temp_dir dir;
  auto fifo = dir.path() / "PLAN-cloud-G05.md";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto t0 = std::chrono::steady_clock::now();
  auto read = read_file(fifo);
  ASSERT_FALSE(read.is_ok());
  EXPECT_NE(read.error().message().find("is a FIFO, expected a regular file"), std::string::npos)
    << read.error().message();
  EXPECT_NE(read.error().message().find(fifo.string()), std::string::npos);
  EXPECT_FALSE(sha256_file_hex(fifo).is_ok());
  auto zero = read_file("/dev/zero");
  ASSERT_FALSE(zero.is_ok());
  EXPECT_NE(zero.error().message().find("a character device"), std::string::npos);
  // A symlink to a device is the device.
  auto link = dir.path() / "trace.jsonl";
  std::filesystem::create_symlink("/dev/zero", link);
  EXPECT_FALSE(read_file(link).is_ok());
  auto dir_read = read_file(dir.path());
  ASSERT_FALSE(dir_read.is_ok());
  EXPECT_NE(dir_read.error().message().find("a directory"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST(hostile_files, deep_json_is_refused_before_it_is_parsed) {
  std::string deep(50'000, '[');
  deep += std::string(50'000, ']');
  auto r = parse_json(deep, "agent-dispatch.json");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("agent-dispatch.json: invalid JSON: nested deeper than 256"),
            std::string::npos)
    << r.error().message();
  std::string objects;
  for (int i = 0; i < 300; ++i)
    objects += "{\"a\":";
  objects += "1" + std::string(300, '}');
  EXPECT_FALSE(parse_json(objects, "x").is_ok());
  // Brackets inside strings do not count, and 256 levels are fine.
  EXPECT_TRUE(parse_json("{\"s\": \"" + std::string(1000, '[') + "\"}", "x").is_ok());
  EXPECT_TRUE(parse_json(std::string(256, '[') + std::string(256, ']'), "x").is_ok());
  EXPECT_TRUE(parse_json("[\"\\\\\", [[]]]", "x").is_ok());
}

} // namespace
} // namespace ad::runtime
