#pragma once
// The file operations the durable store performs, behind an interface so
// tests can fail the k-th write or fsync (once or persistently) or cut files
// short, the way SQLite's crash tests do. posix_file_layer() is the real one:
// appends with write(2), rewrites the mark with pwrite(2), syncs with
// fdatasync(2) and replaces whole files with write_file_atomic (temp, fsync,
// rename, fsync dir), a large one a part at a time. Single-threaded: one
// owner (the serializer) uses a layer at a time. Every failure is a status
// naming the path; nothing throws.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/core/file_text.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

// A file opened for appending at its end.
class append_file {
public:
  virtual ~append_file() = default;
  virtual status append(std::string_view data) = 0;  // one write request
  virtual status sync() = 0;                          // data durable on OK
  virtual status truncate(uint64_t size) = 0;         // cut back to size and sync
};

// A small file rewritten in place from its first byte (the journal mark).
class overwrite_file {
public:
  virtual ~overwrite_file() = default;
  virtual status write(std::string_view data) = 0;  // one pwrite(2) at offset 0
  virtual status sync() = 0;                         // data durable on OK
};

class state_file_layer {
public:
  virtual ~state_file_layer() = default;
  // Whole content; not_found when missing.
  virtual result<std::string> read(const std::filesystem::path& path) = 0;
  // The same for a file this layer only ever replaces whole (the snapshot),
  // never changes in place: the posix layer maps it (file_text.hpp). By
  // default it is read().
  virtual result<file_text> read_replaced(const std::filesystem::path& path) {
    auto text = read(path);
    if (!text)
      return text.error();
    return file_text(std::move(*text));
  }
  virtual result<std::unique_ptr<append_file>> open_append(const std::filesystem::path& path) = 0;
  // Opens for in-place rewrites, creating the file when missing.
  virtual result<std::unique_ptr<overwrite_file>> open_overwrite(const std::filesystem::path& path) = 0;
  // Durable whole-file replace.
  virtual status replace(const std::filesystem::path& path, std::string_view data) = 0;
  // The same for content made a part at a time (write_file_atomic_in_parts
  // in runtime/core/files.hpp): the posix layer writes each part as it comes,
  // so the content is never whole in memory. By default the parts are
  // gathered and given to replace(), one write as far as faults count.
  virtual status replace_in_parts(const std::filesystem::path& path,
                                  const std::function<status(const part_writer&)>& produce) {
    std::string whole;
    if (auto st = produce([&](std::string_view part) {
          whole.append(part);
          return status::ok();
        });
        !st)
      return st;
    return replace(path, whole);
  }
  virtual status make_dirs(const std::filesystem::path& dir) = 0;
};

std::shared_ptr<state_file_layer> posix_file_layer();

} // namespace ad::runtime
