#pragma once
// Small file-system helpers shared by every runtime module: bounded reads and
// the durable whole-file replace (write a temporary, fsync it, rename over the
// target, fsync the directory; the temporary is removed on failure, after
// leveldb's SetCurrentFile). Errors come back as status values: not_found when
// the file is missing, invalid_argument when a read exceeds its cap, io_error
// otherwise, each message naming the path. Nothing here keeps state or threads.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// Opens path for reading only when it is a regular file (after symlinks),
// without blocking: a FIFO, a device, a socket or a folder is refused with
// invalid_argument naming the path and what it is, so no read can hang on
// it. Returns the file descriptor (the caller closes it).
result<int> open_regular_file(const std::filesystem::path& path);

// "a regular file", "a directory", "a FIFO", "a character device", "a block
// device", "a socket", "a symbolic link" for a st_mode.
std::string_view describe_file_kind(unsigned mode);

// Reads a whole regular file (open_regular_file). Files larger than
// max_bytes are refused with invalid_argument naming the path, its size and
// the cap.
result<std::string> read_file(const std::filesystem::path& path,
                              std::size_t max_bytes = 16u << 20);

// read_file of a file in a folder the caller holds open as folder_fd: path's
// file name is opened in that folder, so the kernel does not walk path's
// folders again (a scan reads two files in each of 10,000 folders); path
// itself names the file in messages. AT_FDCWD for folder_fd is read_file.
result<std::string> read_file_at(int folder_fd, const std::filesystem::path& path,
                                 std::size_t max_bytes = 16u << 20);

// read_file_at of a file its folder's listing showed as a regular file, no
// link: opened without following one and, when it is small, taken whole in
// one read, with no stat for its size (a scan reads two such files in each
// of thousands of folders). Anything else (a link now, a larger or empty
// file, a failure) goes through read_file_at, so the text and the messages
// are read_file_at's.
result<std::string> read_listed_file_at(int folder_fd, const std::filesystem::path& path,
                                        std::size_t max_bytes = 16u << 20);

enum class durability : uint8_t { buffered, synced };

// A line file that keeps only its head and newest tail (runtime/attempt/
// attempt_files.hpp) writes the tail to <file> + retained_tail_suffix and
// rotates it to <file> + retained_tail_suffix + ".1"; a reader of the file's
// progress or its last lines looks there too.
inline constexpr std::string_view retained_tail_suffix = ".tail";

// Replaces path's content. With durability::synced the data and the directory
// entry are on disk when this returns OK.
status write_file_atomic(const std::filesystem::path& path, std::string_view data,
                         durability mode = durability::synced);

// Writes one part of a file's content; an error stops the writing.
using part_writer = std::function<status(std::string_view part)>;

// The same for content made a part at a time (a large file that is never
// whole in memory): `produce` hands each part to the writer it is given, in
// order, and returns what the writer returned when that failed. The file at
// `path` is replaced only when every part was written; on any failure the
// temporary file is removed and `path` is as it was.
status write_file_atomic_in_parts(const std::filesystem::path& path,
                                  const std::function<status(const part_writer&)>& produce,
                                  durability mode = durability::synced);

// fsync() of a directory, so a rename or create inside it survives a crash.
status fsync_directory(const std::filesystem::path& dir);

// Writes all of data to fd, again after a short write or EINTR. An error is
// io_error "<what>: <strerror>", so `what` names the action and the file
// ("write /path/file").
status write_all(int fd, std::string_view data, std::string_view what);

// create_directories without exceptions.
status make_directories(const std::filesystem::path& dir);

} // namespace ad::runtime
