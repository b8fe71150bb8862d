#include "runtime/core/file_text.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "runtime/core/unique_fd.hpp"

namespace ad::runtime {

file_text::file_text(std::string owned) : owned_(std::move(owned)) {
  if (owned_.capacity() < owned_.size() + padding)
    owned_.reserve(owned_.size() + padding);
}

file_text::file_text(file_text&& other) noexcept
  : owned_(std::move(other.owned_)), mapped_(other.mapped_), size_(other.size_),
    mapped_bytes_(other.mapped_bytes_) {
  other.mapped_ = nullptr;
  other.size_ = 0;
  other.mapped_bytes_ = 0;
}

file_text& file_text::operator=(file_text&& other) noexcept {
  if (this != &other) {
    unmap();
    owned_ = std::move(other.owned_);
    mapped_ = other.mapped_;
    size_ = other.size_;
    mapped_bytes_ = other.mapped_bytes_;
    other.mapped_ = nullptr;
    other.size_ = 0;
    other.mapped_bytes_ = 0;
  }
  return *this;
}

file_text::~file_text() { unmap(); }

void file_text::unmap() {
  if (mapped_)
    ::munmap(const_cast<char*>(mapped_), mapped_bytes_);
  mapped_ = nullptr;
  size_ = 0;
  mapped_bytes_ = 0;
}

result<file_text> file_text::map(const std::filesystem::path& path, std::size_t max_bytes) {
  auto opened = open_regular_file(path);
  if (!opened)
    return opened.error();
  unique_fd fd(*opened);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return status::from_errno("stat " + path.string(), errno);
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > max_bytes)
    return status::invalid_argument(path.string() + " is " + std::to_string(size)
                                    + " bytes, more than the limit of " + std::to_string(max_bytes)
                                    + " bytes");
  if (size == 0)
    return file_text();
  // The padding: zeros mapped past the file's end (in its last page the
  // kernel fills what follows the end with zeros; a reserved anonymous
  // mapping holds the rest), so reading ahead never reaches a page past
  // the file, which would end the process with SIGBUS.
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t bytes = (size + padding + page - 1) / page * page;
  void* area = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    return status::from_errno("mmap " + path.string(), errno);
  // MAP_POPULATE: the pages in the page cache are mapped in one call, not
  // one fault each as the parser reaches them.
  void* at = ::mmap(area, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE | MAP_FIXED, fd.get(), 0);
  if (at == MAP_FAILED) {
    int err = errno;
    ::munmap(area, bytes);
    return status::from_errno("mmap " + path.string(), err);
  }
  file_text out;
  out.mapped_ = static_cast<const char*>(at);
  out.size_ = size;
  out.mapped_bytes_ = bytes;
  return out;
}

} // namespace ad::runtime
