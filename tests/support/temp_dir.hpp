#pragma once

#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

namespace courier::testing {

// A fresh directory per test (<tmp>/courier-<name>-XXXXXX), removed afterwards. One made with
// `keep_if_failed` outlives a test that failed, so its logs can be read; the test's output
// names it.
class temp_dir {
 public:
  static constexpr bool keep_if_failed = true;

  explicit temp_dir(const std::string& name = "test", bool keep_on_failure = false)
      : keep_on_failure_(keep_on_failure) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("courier-" + name + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error{"mkdtemp failed"};
    }
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    if (keep_on_failure_ && ::testing::Test::HasFailure()) {
      std::cerr << "kept " << path_.string() << " for the failed test\n";
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  // Writes `content` to the file `name` in this directory and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& content) const {
    const std::filesystem::path p = path_ / name;
    std::ofstream{p, std::ios::binary} << content;
    return p;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool keep_on_failure_ = false;
};

}  // namespace courier::testing
