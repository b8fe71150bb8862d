#pragma once
// A state_file_layer for fault tests: wraps the real one, counts write-class
// operations (append, replace, truncate, mark write) and sync-class
// operations (sync, replace) and fails the k-th of one kind, once or persistently. A failed
// append writes the first half of its data before failing, like a write cut
// short; a failed sync leaves the data written but reports an error. No
// real fsync is issued: these tests simulate failures, not power loss, and
// the page cache is what a reload reads, so skipping it keeps the loop fast.

#include <memory>

#include "runtime/core/files.hpp"
#include "runtime/state/file_layer.hpp"

namespace ad::runtime::test {

enum class fault_kind : uint8_t { write, sync };
enum class fault_mode : uint8_t { once, persistent };

class fault_file_layer final : public state_file_layer,
                               public std::enable_shared_from_this<fault_file_layer> {
public:
  fault_file_layer(fault_kind kind, uint64_t k, fault_mode mode)
      : real_(posix_file_layer()), kind_(kind), k_(k), mode_(mode) {}

  // No faults: only counts.
  fault_file_layer() : real_(posix_file_layer()), k_(0) {}

  uint64_t writes() const { return writes_; }
  uint64_t syncs() const { return syncs_; }
  bool fired() const { return fired_; }

  // True when this operation of `kind` must fail.
  bool should_fail(fault_kind kind) {
    uint64_t n = kind == fault_kind::write ? ++writes_ : ++syncs_;
    if (k_ == 0 || kind != kind_)
      return false;
    if (n == k_ || (mode_ == fault_mode::persistent && n > k_)) {
      fired_ = true;
      return true;
    }
    return false;
  }

  result<std::string> read(const std::filesystem::path& path) override { return real_->read(path); }

  result<std::unique_ptr<append_file>> open_append(const std::filesystem::path& path) override;
  result<std::unique_ptr<overwrite_file>> open_overwrite(const std::filesystem::path& path) override;

  status replace(const std::filesystem::path& path, std::string_view data) override {
    if (should_fail(fault_kind::write))
      return status::io_error("injected write failure replacing " + path.string());
    if (should_fail(fault_kind::sync)) {
      // The data may or may not have reached the disk: here it did.
      (void) write_file_atomic(path, data, durability::buffered);
      return status::io_error("injected sync failure replacing " + path.string());
    }
    return write_file_atomic(path, data, durability::buffered);
  }

  status make_dirs(const std::filesystem::path& dir) override { return real_->make_dirs(dir); }

private:
  std::shared_ptr<state_file_layer> real_;
  fault_kind kind_ = fault_kind::write;
  uint64_t k_;
  fault_mode mode_ = fault_mode::once;
  uint64_t writes_ = 0;
  uint64_t syncs_ = 0;
  bool fired_ = false;
};

class fault_append_file final : public append_file {
public:
  fault_append_file(std::shared_ptr<fault_file_layer> layer, std::unique_ptr<append_file> real)
      : layer_(std::move(layer)), real_(std::move(real)) {}

  status append(std::string_view data) override {
    if (layer_->should_fail(fault_kind::write)) {
      (void) real_->append(data.substr(0, data.size() / 2));
      return status::io_error("injected write failure");
    }
    return real_->append(data);
  }
  status sync() override {
    if (layer_->should_fail(fault_kind::sync))
      return status::io_error("injected sync failure");
    return status::ok();
  }
  status truncate(uint64_t size) override {
    if (layer_->should_fail(fault_kind::write))
      return status::io_error("injected truncate failure");
    return real_->truncate(size);
  }

private:
  std::shared_ptr<fault_file_layer> layer_;
  std::unique_ptr<append_file> real_;
};

class fault_overwrite_file final : public overwrite_file {
public:
  fault_overwrite_file(std::shared_ptr<fault_file_layer> layer, std::unique_ptr<overwrite_file> real)
      : layer_(std::move(layer)), real_(std::move(real)) {}

  status write(std::string_view data) override {
    if (layer_->should_fail(fault_kind::write))
      return status::io_error("injected mark write failure");
    return real_->write(data);
  }
  status sync() override {
    if (layer_->should_fail(fault_kind::sync))
      return status::io_error("injected mark sync failure");
    return status::ok();
  }

private:
  std::shared_ptr<fault_file_layer> layer_;
  std::unique_ptr<overwrite_file> real_;
};

inline result<std::unique_ptr<overwrite_file>>
fault_file_layer::open_overwrite(const std::filesystem::path& path) {
  auto real = real_->open_overwrite(path);
  if (!real)
    return real.error();
  return std::unique_ptr<overwrite_file>(
    std::make_unique<fault_overwrite_file>(shared_from_this(), std::move(*real)));
}

inline result<std::unique_ptr<append_file>>
fault_file_layer::open_append(const std::filesystem::path& path) {
  auto real = real_->open_append(path);
  if (!real)
    return real.error();
  return std::unique_ptr<append_file>(
    std::make_unique<fault_append_file>(shared_from_this(), std::move(*real)));
}

} // namespace ad::runtime::test
