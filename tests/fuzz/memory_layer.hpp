#pragma once
// A state_file_layer over a map of file contents, so the state targets drive
// the durable store's real load and commit code on fuzzed bytes without
// touching the disk. Appends, mark rewrites and replaces change the map.

#include <map>
#include <memory>
#include <string>

#include "runtime/state/file_layer.hpp"

namespace ad::fuzz {

class memory_layer final : public ad::runtime::state_file_layer {
public:
  using files_map = std::map<std::string, std::string>;
  explicit memory_layer(std::shared_ptr<files_map> files) : files_(std::move(files)) {}

  ad::runtime::result<std::string> read(const std::filesystem::path& path) override {
    auto it = files_->find(path.string());
    if (it == files_->end())
      return ad::runtime::status::not_found(path.string() + " does not exist");
    return it->second;
  }

  ad::runtime::result<std::unique_ptr<ad::runtime::append_file>>
  open_append(const std::filesystem::path& path) override {
    if (!files_->count(path.string()))
      return ad::runtime::status::not_found(path.string() + " does not exist");
    return std::unique_ptr<ad::runtime::append_file>(new appender(files_, path.string()));
  }

  ad::runtime::result<std::unique_ptr<ad::runtime::overwrite_file>>
  open_overwrite(const std::filesystem::path& path) override {
    (*files_)[path.string()];
    return std::unique_ptr<ad::runtime::overwrite_file>(new overwriter(files_, path.string()));
  }

  ad::runtime::status replace(const std::filesystem::path& path, std::string_view data) override {
    (*files_)[path.string()] = std::string(data);
    return ad::runtime::status::ok();
  }

  ad::runtime::status make_dirs(const std::filesystem::path&) override {
    return ad::runtime::status::ok();
  }

private:
  class appender final : public ad::runtime::append_file {
  public:
    appender(std::shared_ptr<files_map> files, std::string path)
        : files_(std::move(files)), path_(std::move(path)) {}
    ad::runtime::status append(std::string_view data) override {
      (*files_)[path_].append(data);
      return ad::runtime::status::ok();
    }
    ad::runtime::status sync() override { return ad::runtime::status::ok(); }
    ad::runtime::status truncate(uint64_t size) override {
      auto& text = (*files_)[path_];
      if (size < text.size())
        text.resize(size);
      return ad::runtime::status::ok();
    }

  private:
    std::shared_ptr<files_map> files_;
    std::string path_;
  };

  class overwriter final : public ad::runtime::overwrite_file {
  public:
    overwriter(std::shared_ptr<files_map> files, std::string path)
        : files_(std::move(files)), path_(std::move(path)) {}
    ad::runtime::status write(std::string_view data) override {
      auto& text = (*files_)[path_];
      if (text.size() < data.size())
        text.resize(data.size());
      text.replace(0, data.size(), data);
      return ad::runtime::status::ok();
    }
    ad::runtime::status sync() override { return ad::runtime::status::ok(); }

  private:
    std::shared_ptr<files_map> files_;
    std::string path_;
  };

  std::shared_ptr<files_map> files_;
};

} // namespace ad::fuzz
