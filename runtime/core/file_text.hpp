#pragma once
// A whole file's bytes, either read into memory or mapped read-only (mmap).
// A mapping costs no copy and no memory of the process's own: reading the
// 25 MB state snapshot of a 10,000-task run took about 115 ms with read(2)
// here (most of it the faults of the fresh buffer) and 16 ms mapped. Map
// only a file that is replaced whole (renamed over) and never changed in
// place: a file cut short in place while it is mapped ends the process with
// SIGBUS. The state snapshot is such a file (docs/state-format.md).
// Either way, `padding` bytes past the end of a text that is not empty can
// be read (their values are unspecified): a parser that reads ahead in wide
// blocks (simdjson) takes the text where it is, with no padded copy.
// Errors are status values naming the path, as read_file's are.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

class file_text {
public:
  static constexpr std::size_t padding = 64;

  file_text() = default;
  explicit file_text(std::string owned);
  file_text(file_text&& other) noexcept;
  file_text& operator=(file_text&& other) noexcept;
  file_text(const file_text&) = delete;
  file_text& operator=(const file_text&) = delete;
  ~file_text();

  // Maps the regular file at path (open_regular_file's checks); a file
  // larger than max_bytes is refused with invalid_argument, as by read_file.
  static result<file_text> map(const std::filesystem::path& path, std::size_t max_bytes);

  std::string_view view() const {
    return mapped_ ? std::string_view(mapped_, size_) : std::string_view(owned_);
  }
  std::size_t size() const { return view().size(); }
  bool empty() const { return size() == 0; }

private:
  void unmap();

  std::string owned_;
  const char* mapped_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_bytes_ = 0;  // the mapping's length, padding included
};

} // namespace ad::runtime
